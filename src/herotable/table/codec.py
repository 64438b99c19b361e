"""Plain-JSON encoding of the frozen values the table uses, driven by their type hints.

Facts, snapshots, exports and views all need values as JSON; one codec serves them all, so a new field on a
value needs no serialisation code. `decoder(cls)` compiles a fast decoder for a class once (facts are decoded
by the hundred thousand when a campaign is folded); `decode` is the general, slower path with error paths.
Fields marked `transient` (see `TRANSIENT`) live only in memory and are never encoded.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING
from enum import Enum
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin

T = TypeVar("T")
Json = None | bool | int | float | str | list["Json"] | dict[str, "Json"]
TRANSIENT = {"transient": True}  # dataclasses.field(metadata=TRANSIENT): kept in memory, never encoded


class CodecError(ValueError):
    """Data that does not fit the type it is decoded as; the message names the path."""


@cache
def _encoded_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if not f.metadata.get("transient"))


def encode(value: Any) -> Any:
    """A JSON-ready copy of a frozen dataclass, enum, tuple, dict or scalar."""
    kind = type(value)
    how = _HOW.get(kind)
    if how is None:
        how = _HOW[kind] = _encoder(kind)
    return how(value)


def _same(value: Any) -> Any:
    return value


def _encoder(kind: type) -> Callable[[Any], Any]:
    """How `encode` copies a value of `kind`, chosen once per type: views, frames and facts encode the same few
    types thousands of times over, and asking what a value is each time cost more than copying it. Raises
    CodecError for a type it cannot encode."""
    if issubclass(kind, type(None) | bool | int | float | str) and not issubclass(kind, Enum):
        return _same
    if dataclasses.is_dataclass(kind) and not issubclass(kind, type):
        names = _encoded_fields(kind)
        return lambda value: {name: encode(getattr(value, name)) for name in names}
    if issubclass(kind, Enum):
        return lambda value: encode(value.value)
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):  # a NamedTuple
        fields = kind._fields
        return lambda value: {name: encode(item) for name, item in zip(fields, value, strict=True)}
    if issubclass(kind, tuple | list):
        return lambda value: [encode(v) for v in value]
    if issubclass(kind, frozenset | set):
        return lambda value: sorted((encode(v) for v in value), key=repr)
    if issubclass(kind, dict):
        return lambda value: {str(k): encode(v) for k, v in value.items()}
    raise CodecError(f"cannot encode a {kind.__name__}")


_HOW: dict[type, Callable[[Any], Any]] = {}


@cache
def _hints(cls: Any) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def decode(tp: Any, data: Any, path: str = "$") -> Any:
    """Rebuild a value of type `tp` from `encode`'s output. Raises CodecError naming the path."""
    origin = get_origin(tp)
    if tp is Any:
        return data
    if origin is typing.Annotated:
        return decode(get_args(tp)[0], data, path)
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
    if origin is typing.Literal:
        if data not in get_args(tp):
            raise CodecError(f"{path}: {data!r} is not one of {', '.join(map(repr, get_args(tp)))}")
        return data
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.metadata.get("transient") or not f.init:
                continue
            if f.name in data:
                kwargs[f.name] = decode(hints[f.name], data[f.name], f"{path}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise CodecError(f"{path}.{f.name}: missing")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as err:
            raise CodecError(f"{path}: {err}") from None
    if isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields"):  # a NamedTuple
        if not isinstance(data, dict):
            raise CodecError(f"{path}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        try:
            return tp(**{k: decode(hints[k], v, f"{path}.{k}") for k, v in data.items()})
        except (TypeError, KeyError) as err:
            raise CodecError(f"{path}: {err}") from None
    if isinstance(tp, type) and (issubclass(tp, Enum) or (issubclass(tp, str) and tp is not str)):
        try:
            return tp(data)
        except ValueError:  # an enum's unknown value, or text a str type's constructor refuses (a Ruleset's name)
            raise CodecError(f"{path}: {data!r} is not a {tp.__name__}") from None
    if origin is tuple:
        args = get_args(tp)
        if not isinstance(data, list | tuple):
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
    if origin in (dict, collections.abc.Mapping):
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


# --- compiled decoders: trusted data (our own encoded values), no error paths beyond a CodecError ---

_SCALARS = (int, float, str, bool, type(None), Any)


def _converter(tp: Any) -> Callable[[Any], Any] | None:
    """A function rebuilding a value of `tp` from JSON, or None when the JSON value already is one."""
    origin = get_origin(tp)
    if tp in _SCALARS:
        return None
    if origin is typing.Annotated:
        return _converter(get_args(tp)[0])
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if all(_converter(o) is None for o in options):
            return None
        if len(options) == 1:
            inner = _converter(options[0])
            assert inner is not None
            return lambda v: None if v is None else inner(v)
        return lambda v: decode(tp, v)
    if origin is typing.Literal:
        return None
    if isinstance(tp, type) and (issubclass(tp, Enum) or (issubclass(tp, str) and tp is not str)):
        return tp
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return decoder(tp)
    if origin is tuple:
        args = get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            each = _converter(args[0])
            if each is None:
                return tuple
            return lambda v: tuple(map(each, v))
        items = [_converter(a) for a in args]
        if all(c is None for c in items):
            return tuple  # a pair of dice faces, say: the JSON list only becomes a tuple
        return lambda v: tuple(x if c is None else c(x) for c, x in zip(items, v, strict=True))
    if origin in (frozenset, set):
        member = _converter(get_args(tp)[0])
        if member is None:
            return frozenset
        return lambda v: frozenset(map(member, v))
    if origin in (dict, collections.abc.Mapping):
        value = _converter(get_args(tp)[1])
        if value is None:
            return None  # a JSON object is already the dict (keys are strings in both)
        return lambda v: {k: value(x) for k, x in v.items()}
    return lambda v: decode(tp, v)


DECODERS: dict[type, Callable[[dict[str, Any]], Any]] = {}


def decoder(cls: type[T]) -> Callable[[dict[str, Any]], T]:
    """A fast decoder for `cls` from `encode`'s output: fields are converted by precompiled functions."""
    found = DECODERS.get(cls)
    if found is None:
        found = DECODERS[cls] = _compile(cls)
    return found


def _compile(cls: type[T]) -> Callable[[dict[str, Any]], T]:
    """A decoder that fills the fields directly (the constructor runs only for a class with checks of its own, a
    `__post_init__`): the data is our own encoding, and what needs converting is converted by compiled functions."""
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.init and not f.metadata.get("transient")]  # type: ignore[arg-type]
    names = frozenset(f.name for f in fields)
    required = frozenset(f.name for f in fields if f.default is MISSING and f.default_factory is MISSING)
    defaults = {f.name: f.default for f in fields if f.default is not MISSING}
    factories = [(f.name, f.default_factory) for f in fields if f.default_factory is not MISSING]
    converters = [(f.name, c) for f in fields if (c := _converter(hints[f.name])) is not None]
    checked = hasattr(cls, "__post_init__")

    new_object = object.__new__

    def build(data: dict[str, Any]) -> T:
        keys = data.keys()
        if keys == names:
            values = dict(data)
        else:
            if not required <= keys or not keys <= names:
                wanted = ", ".join(sorted(required - keys)) or "none"
                extra = ", ".join(sorted(str(k) for k in keys - names)) or "none"
                raise CodecError(f"{cls.__name__}: missing fields: {wanted}; unknown fields: {extra}")
            values = {**defaults, **data}
            for name, factory in factories:
                if name not in data:
                    values[name] = factory()
        try:
            for name, convert in converters:
                values[name] = convert(values[name])
            if checked:
                return cls(**values)
        except (TypeError, ValueError, KeyError, AttributeError) as err:
            raise CodecError(f"{cls.__name__}: {err}") from None
        made: T = new_object(cls)
        made.__dict__.update(values)
        return made

    if checked:
        return build
    return _fast(cls, names, converters, build)


def _fast(
    cls: type[T],
    names: frozenset[str],
    converters: list[tuple[str, Callable[[Any], Any]]],
    general: Callable[[dict[str, Any]], T],
) -> Callable[[dict[str, Any]], T]:
    """`general` with a fast path for data giving every field (the common case for facts), written out for `cls`
    as `dataclasses` writes its methods: one assignment per field to convert, no loop, no copy of the data."""
    lines = [
        "def build(data):",
        "    if data.keys() != names:",
        "        return general(data)",
        "    new = new_object(cls)",
        "    fields = new.__dict__",
        "    fields.update(data)",
    ]
    scope: dict[str, Any] = {"names": names, "general": general, "new_object": object.__new__, "cls": cls}
    if converters:
        lines.append("    try:")
        for i, (name, convert) in enumerate(converters):
            scope[f"convert_{i}"] = convert
            lines.append(f"        fields[{name!r}] = convert_{i}(data[{name!r}])")
        lines.append("    except (TypeError, ValueError, KeyError, AttributeError) as err:")
        lines.append(f"        raise CodecError({cls.__name__ + ': '!r} + str(err)) from None")
    lines.append("    return new")
    scope["CodecError"] = CodecError
    exec("\n".join(lines), scope)  # source made above from field names, never from data
    built: Callable[[dict[str, Any]], T] = scope["build"]
    built.__qualname__ = f"decoder[{cls.__name__}]"
    return built


def evolved(value: T, **changes: Any) -> T:
    """A copy of a frozen dataclass value with some fields changed, made without calling its constructor: the fold's
    `dataclasses.replace`, five times faster. Only for values whose checks ran when they were first made (every
    value a fact describes was checked when it was decided); the field names are not checked either."""
    fields = value.__dict__.copy()
    fields.update(changes)
    new: T = _new_object(value.__class__)
    _set_fields(new, "__dict__", fields)
    return new


def evolved_field(value: T, name: str, item: Any) -> T:
    """`evolved(value, name=item)` for one field, without building keyword arguments (the fold's hottest copy)."""
    fields = value.__dict__.copy()
    fields[name] = item
    new: T = _new_object(value.__class__)
    _set_fields(new, "__dict__", fields)
    return new


_new_object = object.__new__
_set_fields = object.__setattr__  # a frozen dataclass's __setattr__ refuses; the object's own sets its __dict__
