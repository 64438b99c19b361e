"""The one error family of the rules layers.

Every illegal action raises a `RulesError` subclass. Its `code` is stable (`karma/below_d4`) so that the
table, the web server and the CLI can map it once; its message names the ruling and says what would make
the action legal.
"""

from __future__ import annotations

from dataclasses import dataclass


class RulesError(Exception):
    """An action the rules do not allow. Raising one never leaves a half-changed state behind."""

    def __init__(self, code: str, message: str, *, ruling: str, fix: str) -> None:
        self.code = code
        self.ruling = ruling
        self.fix = fix
        self.reason = message
        super().__init__(f"{message} ({ruling}). Tip: {fix}")


class IllegalAction(RulesError):
    """The action is not allowed in the current situation (wrong moment, wrong target, already used)."""


class NotEnough(RulesError):
    """A resource (Karma, Heroism, Hero Points, Conviction, tokens) is too low for the action."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a submitted sheet, tied to the field that holds it; `fix`, where one is given, says how to
    put it right."""

    field: str
    message: str
    fix: str = ""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class InvalidSheet(RulesError):
    """A character sheet breaks the rules; `problems` lists every one of them, by field."""

    def __init__(
        self,
        problems: tuple[Problem, ...] | list[Problem],
        *,
        ruling: str,
        code: str = "sheet/invalid",
        what: str = "the sheet",
        fix: str = "correct each listed field and submit the sheet again",
    ) -> None:
        self.problems = tuple(problems)
        listing = "; ".join(str(p) for p in self.problems)
        super().__init__(code, f"{what} has {len(self.problems)} problem(s): {listing}", ruling=ruling, fix=fix)
