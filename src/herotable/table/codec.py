"""Plain-JSON encoding of the frozen values the rules use, driven by their type hints.

Snapshots, exports and the web views all need rules state as JSON; one codec serves them all, so a new
field on a rules value needs no serialisation code.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

T = TypeVar("T")
Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


class CodecError(ValueError):
    """Data that does not fit the type it is decoded as; the message names the path."""


def encode(value: Any) -> Any:
    """A JSON-ready copy of a frozen dataclass, enum, tuple, dict or scalar."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return encode(value.value)
    if isinstance(value, tuple | list | frozenset | set):
        items = [encode(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, frozenset | set) else items
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    raise CodecError(f"cannot encode a {type(value).__name__}")


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: Any, path: str = "$") -> Any:
    """Rebuild a value of type `tp` from `encode`'s output. Raises CodecError naming the path."""
    origin = get_origin(tp)
    if tp is Any:
        return data
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if data is None:
            if len(options) < len(get_args(tp)):
                return None
            raise CodecError(f"{path}: a value is required")
        errors = []
        for option in options:
            try:
                return decode(option, data, path)
            except CodecError as err:
                errors.append(str(err))
        raise CodecError("; ".join(errors))
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = decode(hints[f.name], data[f.name], f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise CodecError(f"{path}.{f.name}: missing")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as err:
            raise CodecError(f"{path}: {err}") from None
    if isinstance(tp, type) and issubclass(tp, Enum):
        try:
            return tp(data)
        except ValueError:
            raise CodecError(f"{path}: {data!r} is not a {tp.__name__}") from None
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v, f"{path}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise CodecError(f"{path}: expected {len(args)} items")
        return tuple(decode(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
    if origin in (frozenset, set):
        if not isinstance(data, list):
            raise CodecError(f"{path}: expected a list")
        return frozenset(decode(get_args(tp)[0], v, f"{path}[]") for v in data)
    if origin is dict:
        key_t, val_t = get_args(tp)
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object")
        return {decode(key_t, k, path): decode(val_t, v, f"{path}.{k}") for k, v in data.items()}
    if tp in (int, float, str, bool):
        ok = isinstance(data, tp) and not (tp is int and isinstance(data, bool))
        if tp is float and isinstance(data, int) and not isinstance(data, bool):
            return float(data)
        if not ok:
            raise CodecError(f"{path}: expected {tp.__name__}, got {type(data).__name__}")
        return data
    if tp is type(None):
        if data is not None:
            raise CodecError(f"{path}: expected null")
        return None
    raise CodecError(f"{path}: cannot decode type {tp!r}")


def decode_as(cls: type[T], data: Any) -> T:
    """Typed front door to `decode` for a dataclass."""
    value: T = decode(cls, data)
    return value
