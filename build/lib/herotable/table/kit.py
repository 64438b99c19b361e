"""What each game's part of the table is built from, written once: the registry of a game's log wording, the
registry of its evolve steps and the evolve function over them, the roster of characters its table holds, and the
facts (with their audiences) of the characters a decision changed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, Self, TypeVar

from herotable.table.codec import evolved
from herotable.table.commands import audience
from herotable.table.facts import Emitted, Fact, Visibility
from herotable.table.state import TableError, TableState

Names = Mapping[str, str]
Say = Callable[[Any, Names], str | None]
T = TypeVar("T")
H = TypeVar("H")
Step = Callable[[Any, Any], Any]


def words(text: str) -> str:
    """A stored name (`try_again`) as words (`try again`)."""
    return text.replace("_", " ")


class Wording:
    """A game's log sentences, one function per fact kind (`@wording.says(Fact)`), and how it names a character
    (`nobody`: what a missing character is called, e.g. the GM's difficulty die)."""

    def __init__(self, nobody: str) -> None:
        self._say: dict[str, Say] = {}
        self.nobody = nobody

    def says(self, cls: type[Fact]) -> Callable[[Say], Say]:
        def register(fn: Say) -> Say:
            self._say[cls.type] = fn
            return fn

        return register

    def render(self, f: Fact, names: Names) -> str | None:
        """The fact in words, or None when it says nothing worth a line."""
        say = self._say.get(f.type)
        return say(f, names) if say is not None else None

    def name(self, names: Names, cid: str | None) -> str:
        return self.nobody if cid is None else names.get(cid, cid)

    def names(self, names: Names, ids: Sequence[str]) -> str:
        """Several characters in words: "Comet", "Comet and Nova", "Comet, Nova and Entropy"."""
        said = [self.name(names, cid) for cid in ids]
        return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def registrar(steps: dict[str, Step]) -> Callable[[type[Fact]], Callable[[Step], Step]]:
    """A decorator registering a game's evolve step for a fact class in `steps`."""

    def on(cls: type[Fact]) -> Callable[[Step], Step]:
        def register(fn: Step) -> Step:
            steps[cls.type] = fn
            return fn

        return register

    return on


def folder(steps: Mapping[str, Step], hero_steps: Mapping[str, Step], title: str) -> Callable[[T, Fact], T]:
    """A game table's evolve function: a fact about one hero (in `hero_steps`, the fact naming its `character`)
    changes that hero; any other goes to its step. The fold's hot path, so a plain function over the registries."""

    hero_step_of = hero_steps.get
    new_object, set_fields = object.__new__, object.__setattr__

    def evolve(table: T, f: Fact) -> T:
        hero_step = hero_step_of(f.type)
        if hero_step is not None:  # `evolved_field(table, "heroes", …)` written out: most facts take this way
            cid: str = f.character  # type: ignore[attr-defined]
            fields = table.__dict__.copy()
            heroes = fields["heroes"] = fields["heroes"].copy()
            heroes[cid] = hero_step(heroes[cid], f)
            new: T = new_object(table.__class__)
            set_fields(new, "__dict__", fields)
            return new
        step = steps.get(f.type)
        if step is None:
            raise ValueError(f"{f.type} is not a {title} fact")
        result: T = step(table, f)
        return result

    evolve.__doc__ = f"The table after one {title} fact."
    return evolve


class Roster(Generic[H]):
    """The characters a game's table holds, by id (the dataclass using it has the `heroes` field)."""

    heroes: Mapping[str, H]
    game_title: ClassVar[str]

    def hero(self, cid: str) -> H:
        try:
            return self.heroes[cid]
        except KeyError:
            raise TableError(
                "table/unknown_character",
                f"there is no {self.game_title} character {cid!r} here",
                fix=f"use one of {', '.join(self.heroes) or 'no characters yet'}",
            ) from None

    def with_hero(self, cid: str, hero: H) -> Self:
        return evolved(self, heroes={**self.heroes, cid: hero})

    def with_heroes(self, heroes: Mapping[str, H]) -> Self:
        return evolved(self, heroes={**self.heroes, **heroes}) if heroes else self


def secret_spends_nothing(state: TableState, cid: str) -> None:
    """A GM secret roll spends nothing of a character the players see: spending is the player's to declare (R-T-3),
    and the player cannot see the roll (R-CV-4). A hidden NPC's resources are the GM's. Raises TableError."""
    character = state.character(cid)
    if not character.hidden:
        raise TableError(
            "roll/secret_spend",
            f"a secret roll spends nothing of {character.name}'s: their player declares every spend and cannot see "
            "this roll",
            fix="make the roll openly to spend on it",
            ruling="R-T-3",
        )


def hero_changes(
    state: TableState,
    before: Mapping[str, H],
    after: Mapping[str, H],
    facts_of: Callable[[str, H, H], Iterable[Fact]],
    reveals_sheet: Callable[[Fact], bool],
    *,
    secret: bool = False,
) -> list[Emitted]:
    """The facts of every character that changed between two rosters, each with its audience: a fact that would
    reveal a hidden sheet is the GM's, any other is public.

    With `secret` (a change made by a GM secret roll), only hidden characters may change, and their facts are the
    GM's: a secret roll spends nothing of a character the players see, since spending is the player's to declare
    (R-T-3) and the player cannot see the roll (R-CV-4). Raises TableError naming the character otherwise."""
    out: list[Emitted] = []
    for cid, hero in after.items():
        old = before.get(cid)
        if old is None or old is hero:
            continue
        if secret:
            secret_spends_nothing(state, cid)
        for f in facts_of(cid, old, hero):
            if secret:
                out.append(Emitted(f, Visibility.GM))
            else:
                out.append(Emitted(f, audience(state, cid) if reveals_sheet(f) else Visibility.PUBLIC))
    return out
