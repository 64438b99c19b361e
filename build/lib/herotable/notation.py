"""Free-form dice notation for the table (`2d20kh1+3`, `4d6kh3`, `1d6e6`) through the `d20` library.

`d20` parses and evaluates; the faces come from the `Rng` passed in, so rolls can be scripted in tests and
every raw face is kept for events. `d20`'s roll budget stays on, set to the table's limit of
MAX_DICE dice per expression (explosions and re-rolls count), and dice have at most MAX_SIDES faces.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

import d20  # type: ignore[import-untyped]

from herotable.dice import RecordingRng, Rng

MAX_DICE = 100
MAX_SIDES = 1000
MAX_LENGTH = 200
PERCENTILE = "%"
EXAMPLES = "2d20kh1+3, 4d6kh3, 1d6e6, 3d8+2"


class NotationError(ValueError):
    """A dice expression that cannot be rolled; `code` is stable, `fix` says how to write it."""

    def __init__(self, code: str, reason: str, fix: str) -> None:
        self.code = code
        self.reason = reason
        self.fix = fix
        super().__init__(f"{reason}. Tip: {fix}")


@dataclass(frozen=True)
class NotationRoll:
    """A rolled expression: its total, d20's plain rendering, and every raw face as (sides, face)."""

    expression: str
    total: int
    text: str
    dice: tuple[tuple[int, int], ...]


class _RngDie(d20.Die):  # type: ignore[misc]
    rng: Rng

    @classmethod
    def rolled(cls, size: int | str, context: Any, rng: Rng) -> _RngDie:
        die = cls(size, [], context=context)
        die.rng = rng
        die._add_roll()
        return die

    def _add_roll(self) -> None:
        if self.size != PERCENTILE and not 1 <= self.size <= MAX_SIDES:
            raise d20.RollValueError(f"a die has 1 to {MAX_SIDES} faces, not {self.size}")
        if self._context:
            self._context.count_roll()
        face = (self.rng.roll(10) - 1) * 10 if self.size == PERCENTILE else self.rng.roll(self.size)
        self.values.append(d20.Literal(face))


class _RngDice(d20.Dice):  # type: ignore[misc]
    rng: Rng

    def roll_another(self) -> None:
        self.values.append(_RngDie.rolled(self.size, self._context, self.rng))


class _RngRoller(d20.Roller):  # type: ignore[misc]
    def __init__(self, rng: Rng) -> None:
        super().__init__(d20.RollContext(max_rolls=MAX_DICE))
        self._rng = rng

    def _eval_dice(self, node: Any) -> _RngDice:
        dice = _RngDice(node.num, node.size, [], context=self.context)
        dice.rng = self._rng
        for _ in range(node.num):
            dice.roll_another()
        return dice


class _PlainText(d20.SimpleStringifier):  # type: ignore[misc]
    _nodes: dict[Any, Any]

    def __init__(self) -> None:
        super().__init__()
        self._nodes = {**self._nodes, _RngDice: self._str_dice, _RngDie: self._str_die}


_PARSER = d20.Roller()
_PARSING = threading.Lock()  # the parser keeps a cache of its own, which is not safe to share between threads


@functools.lru_cache(maxsize=1024)
def _parsed(text: str) -> Any:
    """The expression's syntax tree, parsed once: a table rolls the same few expressions again and again, and
    parsing costs more than rolling (rolling reads the tree and never changes it). Raises d20.RollSyntaxError."""
    with _PARSING:
        return _PARSER.parse(text)


# the parser's names for what it wanted next, in words; the rest (whitespace, operators' inner names) say nothing
_WANTED = {
    "INTEGER": "a number",
    "DECIMAL": "a number",
    "DICE_VALUE": "how many faces (as in 2d6)",
    "D": "dice (as in d6)",
    "LPAR": "an opening bracket",
    "RPAR": "a closing bracket",
    "U_OP": "a sign",
    "$END": "nothing more",
}


def _unreadable(text: str, exc: d20.RollSyntaxError) -> str:
    """Where a dice expression stops making sense, and what could have come there, in words rather than the parser's
    token names."""
    expected = {str(e) for e in exc.expected}
    wanted = list(dict.fromkeys(words for name, words in _WANTED.items() if name in expected))  # in a fixed order
    col = int(exc.col) if str(exc.col).isdigit() else 0
    if wanted == [_WANTED["$END"]] and 0 < col <= len(text):
        return f"cannot read {text!r}: nothing may come after {text[: col - 1]!r}"
    could = f": it could go on with {' or '.join(w for w in wanted if w != _WANTED['$END'])}" if wanted else ""
    if not str(exc.got).strip():
        return f"{text!r} stops too soon{could}"
    at = text[col - 1 :] if 0 < col <= len(text) else str(exc.got)
    return f"cannot read {text!r} from {at!r} (character {col}){could}"


def roll_notation(expression: str, rng: Rng) -> NotationRoll:
    """Roll a dice expression in d20 notation with faces from `rng`.

    Raises NotationError for bad syntax, a bad value (a 0-sided die, division by zero), more than
    MAX_DICE dice, or an expression longer than MAX_LENGTH characters.
    """
    text = expression.strip()
    if not text:
        raise NotationError("dice/empty", "no dice expression given", f"write dice like {EXAMPLES}")
    if len(text) > MAX_LENGTH:
        raise NotationError(
            "dice/too_long",
            f"the expression has {len(text)} characters, more than {MAX_LENGTH}",
            "split it into shorter rolls",
        )
    recorder = RecordingRng(rng)
    try:
        result = _RngRoller(recorder).roll(_parsed(text), stringifier=_PlainText())
        total, rendered = int(result.total), str(result.result)
    except d20.TooManyRolls:
        raise NotationError(
            "dice/too_many_dice",
            f"{text!r} rolls more than {MAX_DICE} dice (explosions and re-rolls count)",
            f"roll at most {MAX_DICE} dice in one expression",
        ) from None
    except d20.RollSyntaxError as exc:
        raise NotationError("dice/syntax", _unreadable(text, exc), f"write dice like {EXAMPLES}") from None
    except d20.RollValueError as exc:
        reason = f"cannot roll {text!r}: {str(exc).rstrip('.')}"
        raise NotationError("dice/bad_value", reason, "check the numbers") from None
    return NotationRoll(text, total, rendered, tuple(recorder.rolled))
