"""The sheet editors' one interface: what the editor page needs, how a posted form becomes the game's
character-creation command, and which form control each problem on the sheet belongs beside. Each game's editor is
part of its presenter (`herotable.server.games`); the pages ask `presenter_for(state).sheets`, never which game a
campaign plays."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from herotable.errors import Problem
from herotable.table.commands import Command

COMMON_KEYS = frozenset({"character", "name", "owner", "sheet"})


class FormLike(Protocol):
    def getlist(self, key: str) -> list[Any]: ...


@dataclass(frozen=True)
class Read:
    """A posted sheet as its game reads it: the sheet for the command, the problems found in the form itself, and
    the form control each problem belongs beside."""

    sheet: Any
    problems: list[Problem]
    field_of: Callable[[Problem], str]


class SheetEditor(Protocol):
    template: str  # the sheet's form
    view_template: str  # the sheet as read, included in sheet_view.html with `view`'s context

    def context(self) -> dict[str, Any]:
        """What the editor page shows beyond the campaign: choices, rows, suggestions."""
        ...

    def keys(self) -> frozenset[str]:
        """The form controls that show their problems beside them; others are listed at the top."""
        ...

    def read(self, values: Mapping[str, str], form: FormLike) -> Read: ...

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command: ...

    def view(self, hero: Any) -> dict[str, Any]:
        """What the character's page shows beyond the hero."""
        ...


def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def int_field(form: Mapping[str, str], key: str, problems: list[Problem], default: int = 0) -> int:
    text = form.get(key, "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        problems.append(Problem(key, f"{text!r} is not a whole number"))
        return default
