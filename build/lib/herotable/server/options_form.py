"""A game's campaign options as form controls, and back: the new-campaign form shows every game's options (the page
shows the chosen game's), and the settings page the campaign's own, each with its sentence. Any game's options,
from what it lists (`Game.option_specs`); nothing here names a game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herotable.server.actions import Field, as_text
from herotable.table.commands import InvalidCommand
from herotable.table.game import Choice, Flag, IntRange, OptionSpec


def option_fields(specs: tuple[OptionSpec, ...], values: Mapping[str, Any], prefix: str) -> list[Field]:
    """One control per option, named `prefix` + its name, showing `values` (the defaults, or the campaign's)."""
    out = []
    for s in specs:
        name, value = prefix + s.name, values.get(s.name)
        hint = s.about + ("" if s.changeable else " Chosen once, when the campaign is made.")
        d = s.domain
        if isinstance(d, Choice):
            options = tuple(zip(map(as_text, d.choices), d.labels or tuple(map(as_text, d.choices)), strict=True))
            out.append(Field(name, s.title, "select", options, as_text(value), hint=hint))
        elif isinstance(d, IntRange):
            out.append(Field(name, s.title, "number", value=as_text(value), hint=hint, min=d.min, max=d.max))
        elif isinstance(d, Flag):
            out.append(Field(name, s.title, "check", value="true" if value is True else "", hint=hint))
    return out


def options_from_form(specs: tuple[OptionSpec, ...], form: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The options a form sent under `prefix`, as their values (an option left out keeps its value). Raises
    InvalidCommand naming the option whose value cannot be read."""
    out: dict[str, Any] = {}
    for s in specs:
        raw = form.get(prefix + s.name)
        if raw is None:
            continue
        text, d = str(raw).strip(), s.domain
        if isinstance(d, Choice):
            found = [c for c in d.choices if as_text(c) == text]
            out[s.name] = found[0] if found else text  # an unknown value is refused by `checked_options`, in words
        elif isinstance(d, IntRange):
            if not text.lstrip("-").isdigit():
                raise InvalidCommand(
                    "options/value",
                    f"{s.title} must be a whole number",
                    fix=f"give a number from {d.min} to {d.max}",
                    field=s.name,
                )
            out[s.name] = int(text)
        elif isinstance(d, Flag):
            out[s.name] = text == "true"
    return out
