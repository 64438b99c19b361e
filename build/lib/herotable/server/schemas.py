"""The API's command body: a discriminated union of every command's own schema, built from the command dataclasses
(their fields, defaults, ranges and lengths), so the OpenAPI document describes each command exactly and a body
outside a field's range is refused (422) before the table sees it."""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from functools import cache
from typing import Annotated, Any, Literal, Union, cast

from pydantic import BaseModel, ConfigDict, Field, Strict, create_model

from herotable.table import kinds  # noqa: F401  (registers every command)
from herotable.table.commands import COMMANDS, Range, Text, constraints, strip_optional


def _model_name(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.replace("_", ".").split(".")) + "Command"


STRICT_SCALARS = (bool, int, float, str)


def _strict(tp: Any) -> Any:
    """A field type whose JSON must already be of that type: no "yes" for true, no "15" or 15.0 for 15 (R-T-5).
    Containers and enums keep pydantic's reading of JSON (arrays for tuples, strings for enums)."""
    plain, optional = strip_optional(tp)
    if isinstance(plain, type) and issubclass(plain, str) and not issubclass(plain, Enum):
        plain = str  # a name of the table's own (a Ruleset): text in JSON, checked when the command is read
    if plain in STRICT_SCALARS:
        strict = cast(Any, Annotated)[plain, Strict()]  # a type built at run time
        return strict | None if optional else strict
    return tp


def command_model(kind: str) -> type[BaseModel]:
    """The pydantic model of one command kind."""
    cls = COMMANDS[kind].cls
    limits = constraints(cls)
    fields: dict[str, Any] = {"type": (Literal[kind], Field(kind))}
    for f in dataclasses.fields(cls):
        tp, limit = limits[f.name]
        extra: dict[str, Any] = {}
        plain, _ = strip_optional(tp)
        if isinstance(limit, Range) and plain is int:
            extra.update(ge=limit.lo, le=limit.hi)
        if isinstance(limit, Text) and plain is str:
            extra.update(max_length=limit.max_length)
        field_type = _strict(tp)
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (field_type, Field(f.default, **extra))
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (field_type, Field(default_factory=f.default_factory, **extra))
        else:
            fields[f.name] = (field_type, Field(..., **extra))
    doc = (cls.__doc__ or kind).strip().split("\n")[0]
    model: type[BaseModel] = create_model(
        _model_name(kind), __config__=ConfigDict(extra="forbid"), __doc__=doc, **fields
    )
    return model


@cache
def command_union() -> Any:
    """`Annotated[Union[...every command model...], Field(discriminator="type")]`."""
    models = tuple(command_model(kind) for kind in sorted(COMMANDS))
    return Annotated[Union[models], Field(discriminator="type")]  # noqa: UP007


CommandBody = command_union()


def body_json(body: Any) -> dict[str, Any]:
    """The command a validated body holds, as plain JSON for `command_from_json`."""
    data: dict[str, Any] = body.model_dump(mode="json")
    return data


__all__ = ["CommandBody", "body_json", "command_model", "typing"]
