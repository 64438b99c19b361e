"""JSON payloads: checked before they are stored, so what comes back equals exactly what went in."""

from __future__ import annotations

import json
import math
from typing import Any

from herotable.store.port import StoreError


def check_json(value: Any, where: str) -> None:
    """Raise `StoreError` naming the first part of `value` that would not come back from JSON unchanged."""
    if value is None or isinstance(value, str | bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise StoreError(f"{where} is {value!r}, which JSON cannot hold. Tip: store it as a string")
        return
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            check_json(item, f"{where}[{index}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise StoreError(f"{where} has the key {key!r}; JSON object keys are strings. Tip: use str keys")
            check_json(item, f"{where}[{key!r}]")
        return
    raise StoreError(
        f"{where} is a {type(value).__name__}, which is not JSON. Tip: use dicts with str keys, lists, str, "
        "int, float, bool and None"
    )


def dumps(value: Any, where: str) -> str:
    """Check `value` and encode it as compact JSON text (key order kept, unicode as is)."""
    check_json(value, where)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def loads(text: str) -> Any:
    """Decode JSON text written by `dumps`."""
    return json.loads(text)


def canonical(value: Any) -> bytes:
    """One byte string per JSON value whatever its key order: the input of integrity digests."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False).encode()
