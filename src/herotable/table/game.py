"""One interface for every game, and a registry of them (like python-chess's variants): shared code asks the
registry for the campaign's game and never branches on which game it is.

Also the vocabulary of legal actions: what a viewer may do now, each field with its domain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from itertools import zip_longest
from typing import Any, ClassVar, Protocol

from herotable.table.codec import Json, decode_as, decoder, encode
from herotable.table.commands import NAME_LENGTH, Decision, InvalidCommand
from herotable.table.facts import Fact
from herotable.table.recap_parts import GameRecap, Session
from herotable.table.series import Chart
from herotable.table.state import CharacterRef, Role, Ruleset, TableError, TableState
from herotable.table.throws import Die, Part, once

# --- legal actions: field domains ---


@dataclass(frozen=True)
class Choice:
    """One of the listed values (`labels` say them in words, in the same order)."""

    choices: tuple[Json, ...]
    labels: tuple[str, ...] = ()
    kind: str = "choice"


@dataclass(frozen=True)
class IntRange:
    """A whole number from `min` to `max`; `optional`: it may be left out (an override's "unchanged")."""

    min: int
    max: int
    kind: str = "int"
    optional: bool = False


@dataclass(frozen=True)
class TextDomain:
    """Any text of at most `max_length` characters; `required`: not blank; none of `exclude` (compared without
    regard to case or spacing); `format`: "dice" for dice notation; `suggestions`: the names a picker offers first
    (a character's skills), which the text need not be one of."""

    max_length: int
    required: bool = False
    exclude: tuple[str, ...] = ()
    format: str | None = None
    kind: str = "text"
    suggestions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Flag:
    """True or false."""

    kind: str = "bool"


@dataclass(frozen=True)
class Subset:
    """Any subset of the listed values, of at least `min_size` (a JSON list). `within`: only values that are also
    keys of that other field."""

    choices: tuple[Json, ...]
    labels: tuple[str, ...] = ()
    min_size: int = 0
    within: str | None = None
    kind: str = "multi"


@dataclass(frozen=True)
class KeyedValues:
    """Values of the `value` domain for some of the listed keys (at least `min_keys`, each once): a JSON object, or
    with `pairs` a JSON list of [key, value] pairs."""

    keys: tuple[str, ...]
    value: Domain
    labels: tuple[str, ...] = ()
    min_keys: int = 0
    pairs: bool = False
    kind: str = "map"


@dataclass(frozen=True)
class SheetDomain:
    """A character sheet in the game's format; checked when submitted, every problem named by field."""

    game: str
    kind: str = "sheet"


@dataclass(frozen=True)
class DocumentDomain:
    """A character file of the game, as a character's page exports it (`herotable.table.travel`); checked when
    submitted, every problem named by field with a tip."""

    game: str
    kind: str = "character_document"


Domain = Choice | IntRange | TextDomain | Flag | Subset | KeyedValues | SheetDomain | DocumentDomain


@dataclass(frozen=True)
class LegalAction:
    """A command the viewer may issue now: `fixed` fields are sent as given, each of `fields` takes any value of
    its domain, and fields named in neither keep their defaults. `group` and `rule` help a panel lay it out."""

    type: str
    label: str
    fixed: Mapping[str, Json] = field(default_factory=dict)
    fields: Mapping[str, Domain] = field(default_factory=dict)
    group: str = ""
    rule: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "label": self.label,
            "group": self.group,
            "rule": self.rule,
            "fixed": dict(self.fixed),
            "fields": {name: domain_json(d) for name, d in self.fields.items()},
        }


def domain_json(d: Domain) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": d.kind}
    if isinstance(d, Choice | Subset):
        out["choices"] = list(d.choices)
        if d.labels:
            out["labels"] = list(d.labels)
        if isinstance(d, Subset) and d.min_size:
            out["min_size"] = d.min_size
        if isinstance(d, Subset) and d.within:
            out["within"] = d.within
    elif isinstance(d, IntRange):
        out.update(min=d.min, max=d.max)
        if d.optional:
            out["optional"] = True
    elif isinstance(d, TextDomain):
        out["max_length"] = d.max_length
        if d.required:
            out["required"] = True
        if d.exclude:
            out["exclude"] = list(d.exclude)
        if d.format:
            out["format"] = d.format
        if d.suggestions:
            out["suggestions"] = list(d.suggestions)
    elif isinstance(d, KeyedValues):
        out.update(keys=list(d.keys), value=domain_json(d.value))
        if d.labels:
            out["labels"] = list(d.labels)
        if d.min_keys:
            out["min_keys"] = d.min_keys
        if d.pairs:
            out["pairs"] = True
    elif isinstance(d, SheetDomain | DocumentDomain):
        out["game"] = d.game
    return out


# --- presentation: what a table page shows, without any HTML ---


def word_choice(values: tuple[str, ...], labels: tuple[str, ...] = ()) -> Choice:
    """A choice of stored names (`try_again`), labelled in words unless `labels` are given."""
    return Choice(values, labels or tuple(v.replace("_", " ") for v in values))


def acting_for(state: TableState, user: str, heroes: Mapping[str, Any]) -> list[CharacterRef] | None:
    """The characters among `heroes` that `user` acts for (the GM: all of them), or None for a spectator or someone
    who is not a member, who may issue none of a game's commands."""
    role = state.role_of(user)
    if role is None or role is Role.SPECTATOR:
        return None
    return [c for c in state.characters if c.id in heroes and (role is Role.GM or c.owner == user)]


def _taken_ids(state: TableState, user: str) -> tuple[str, ...]:
    """Character ids in use, as `user` may know of them: at the table, retired, deleted (the log still names them),
    and waiting for the GM's approval where `user` sees the arrival (its player, the GM). Another player's arrival
    holds its id too, unnamed here: it carries a mark nobody would choose (`herotable.table.travel.arrival_id`)."""
    waiting = (a.ref.id for a in state.arrivals if a.ref.owner == user or state.is_gm(user))
    return (
        *(c.id for c in state.characters),
        *(s.ref.id for s in state.retired),
        *(g for g, _ in state.gone),
        *waiting,
    )


def new_character_actions(state: TableState, user: str, kind: str, game: str, rule: str) -> list[LegalAction]:
    """Creating a character: a player makes their own hero; the GM makes NPCs, hidden or not, and heroes for
    anyone (R-T-3)."""
    fields: dict[str, Domain] = {
        "character": TextDomain(NAME_LENGTH, required=True, exclude=_taken_ids(state, user)),
        "sheet": SheetDomain(game),
    }
    if not state.is_gm(user):
        fields["owner"] = Choice((None, user), ("you (the default)", "you"))
        return [LegalAction(kind, "New character", fields=fields, group="Characters", rule=rule)]
    owners = [m for m in state.members if m.role is not Role.SPECTATOR]
    anyone: dict[str, Domain] = {
        "owner": Choice((None, *(m.user for m in owners)), ("you", *(m.name for m in owners))),
        "npc": Flag(),
    }
    return [
        LegalAction(kind, "New character", fields=fields | anyone, group="Characters", rule=rule),
        # a hidden sheet is the GM's secret, so its character is the GM's
        LegalAction(
            kind,
            "New hidden NPC",
            {"hidden": True},
            fields | {"owner": Choice((None, user), ("you", "you")), "npc": Flag()},
            group="Characters",
            rule=rule,
        ),
    ]


@dataclass(frozen=True)
class Card:
    """One character on the board. `sheet` is False for a hidden NPC the viewer may not see."""

    id: str
    name: str
    owner: str
    npc: bool
    hidden: bool
    sheet: bool
    mine: bool
    stats: tuple[tuple[str, str], ...] = ()
    flags: tuple[str, ...] = ()
    side: str = ""


@dataclass(frozen=True)
class OpenRoll:
    """An open roll the viewer may see: its id (what a command names it by), who rolls, and its lines."""

    id: str
    character: str
    title: str
    lines: tuple[str, ...]
    mine: bool  # the viewer may settle or announce it
    rolling: bool = False  # someone else's roll: no dice shown
    characters: tuple[str, ...] = ()  # the viewer's characters rolling in it
    status: str = ""  # whom it waits for, shown on its card ("Accepted for Doctor Entropy; waiting for Nova.")


@dataclass(frozen=True)
class Board:
    """A game's presentation of the table for one viewer."""

    cards: tuple[Card, ...] = ()
    rolls: tuple[OpenRoll, ...] = ()
    conflict: Mapping[str, Any] | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)  # game-specific panels (wits, an exit bid…)


@dataclass(frozen=True)
class OptionSpec:
    """One campaign option of a game as the GM chooses it: its values (a `Choice`, an `IntRange` or a `Flag`), a
    sentence on what it changes, and whether it may change once the campaign is under way (a change is a fact, and
    counts from the next round or scene: it is refused while anything is open, `Game.busy`)."""

    name: str
    title: str
    about: str
    domain: Domain
    changeable: bool = True
    rule: str = ""

    def to_json(self, **more: Any) -> dict[str, Any]:
        out = {"name": self.name, "title": self.title, "about": self.about, "changeable": self.changeable}
        return out | {"rule": self.rule, "values": domain_json(self.domain), **more}


def checked_options(
    specs: tuple[OptionSpec, ...], given: Mapping[str, Any], *, changing: bool = False
) -> dict[str, Any]:
    """The options as given, each checked against its spec; while `changing` a campaign under way, only those that
    may change. Raises InvalidCommand naming the option, what it may be, and the options there are (TableError for
    one that cannot change in play)."""
    by_name = {s.name: s for s in specs}
    out: dict[str, Any] = {}
    for name, value in given.items():
        spec = by_name.get(name)
        if spec is None:
            known = ", ".join(by_name) or "none"
            raise InvalidCommand(
                "options/unknown", f"this game has no option {name!r}", fix=f"choose among: {known}", field=name
            )
        if changing and not spec.changeable:
            raise TableError(
                "options/fixed",
                f"{spec.title} is chosen when the campaign is made and cannot change in play",
                fix="leave it out, or start a new campaign with the other choice",
                ruling=spec.rule,
            )
        d = spec.domain
        ok = (
            (isinstance(d, Choice) and value in d.choices and not isinstance(value, bool))
            or (isinstance(d, IntRange) and type(value) is int and d.min <= value <= d.max)
            or (isinstance(d, Flag) and isinstance(value, bool))
        )
        if not ok:
            allowed = (
                "one of: "
                + ", ".join(f"{c} ({label})" if label else str(c) for c, label in zip_longest(d.choices, d.labels))
                if isinstance(d, Choice)
                else f"a whole number from {d.min} to {d.max}"
                if isinstance(d, IntRange)
                else "true or false"
            )
            raise InvalidCommand(
                "options/value", f"{spec.title} cannot be {value!r}", fix=f"give {name} {allowed}", field=name
            )
        out[name] = value
    return out


class Boundary(StrEnum):
    """Structure boundaries that carry a game's effects (R-T-1)."""

    ADVENTURE_START = "adventure_start"
    ADVENTURE_END = "adventure_end"
    SESSION_START = "session_start"
    SESSION_END = "session_end"
    SCENE_START = "scene_start"
    SCENE_END = "scene_end"


class Game(Protocol):
    """What a game supplies to the table. Its commands register themselves with `commands.handles(…, game=…)`."""

    ruleset: Ruleset
    title: str
    rules_version: int  # bumped when a rules correction changes what a command decides
    titles: Mapping[str, str]  # a log entry's heading by the type of its first fact
    command_titles: Mapping[str, str]  # …or by its command, where the first fact would mislead

    def new_state(self, options: Mapping[str, Any]) -> Any:
        """The game's state for a new campaign with these options (as `campaign.created` records them)."""
        ...

    def default_options(self) -> dict[str, Any]: ...

    option_specs: ClassVar[tuple[OptionSpec, ...]]  # the campaign options the GM chooses, in words

    def with_options(self, table: Any, changed: Mapping[str, Any]) -> Any:
        """The game state with some of its campaign options changed (checked already, `checked_options`)."""
        ...

    def decode_state(self, data: Mapping[str, Any], *, check: bool = True) -> Any:
        """The game state from a snapshot's JSON (`check`: as `fold.state_from_snapshot` says)."""
        ...

    def evolve(self, game: Any, f: Fact) -> Any:
        """The game state after one of its facts: pure, no dice, no rules decisions."""
        ...

    def on_boundary(self, state: TableState, boundary: Boundary, detail: Mapping[str, Any]) -> Decision:
        """The game's facts when a structure boundary passes."""
        ...

    def busy(self, state: TableState) -> str | None:
        """Why a scene or an adventure cannot end now (an open roll…), or None."""
        ...

    def legal_actions(self, state: TableState, user: str) -> list[LegalAction]: ...

    def end_adventure_action(self, state: TableState) -> LegalAction:
        """How the GM ends an adventure in this game (with its awards, if any)."""
        ...

    def mask(self, state: TableState, user: str) -> dict[str, Any]:
        """The game state as this member may see it, as plain JSON."""
        ...

    def render(self, f: Fact, names: Mapping[str, str]) -> str | None:
        """One of the game's facts in words, or None when it says nothing worth a log line."""
        ...

    def board(self, state: TableState, user: str) -> Board: ...

    def thrown(self, seen: Sequence[Any]) -> list[Die]:
        """The dice a reader saw thrown in `seen` (the `history.Seen` facts they may see, oldest first), as (sides,
        face), each die once however often it was shown (`throws.once`): what the dice fairness chart counts."""
        ...

    def charts(self, state: TableState, sessions: Sequence[Any], viewer: str | None) -> list[Chart]:
        """How the game charts a campaign's history, from the `history.Session`s `viewer` may see: only numbers they
        may see (a hidden NPC's are the GM's, `tallies.charted`)."""

    def recap(self, session: Session, names: Mapping[str, str]) -> GameRecap:
        """What the game says of one game session in words (conflicts, points spent, levels…), from the facts its
        reader may see, undone actions left out (`history.Session`)."""
        ...


GAMES: dict[Ruleset, Game] = {}


class PackagedGame:
    """What every game's `Game` shares: its options and table made and read by the codec. A game names its options
    and table types, points the interface at its modules' functions, and adds its own boundaries."""

    options_type: ClassVar[type]
    table_type: ClassVar[type]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()  # what the GM may choose, in words (none: nothing to choose)

    def default_options(self) -> dict[str, Any]:
        data: dict[str, Any] = encode(self.options_type())
        return data

    def new_state(self, options: Mapping[str, Any]) -> Any:
        return self.table_type(options=decode_as(self.options_type, dict(options)))

    def decode_state(self, data: Mapping[str, Any], *, check: bool = True) -> Any:
        return decode_as(self.table_type, dict(data)) if check else decoder(self.table_type)(dict(data))

    def with_options(self, table: Any, changed: Mapping[str, Any]) -> Any:
        return replace(table, options=decode_as(self.options_type, {**encode(table.options), **changed}))

    def throw_part(self, f: Fact) -> Part | None:
        """Which roll a die fact shows part or all of (`throws.Part`); None: its dice count as they are."""
        return None

    def thrown(self, seen: Sequence[Any]) -> list[Die]:
        return once(((s.command_id, s.fact) for s in seen), self.throw_part)

    def charts(self, state: TableState, sessions: Sequence[Any], viewer: str | None) -> list[Chart]:
        return []

    def recap(self, session: Session, names: Mapping[str, str]) -> GameRecap:
        """Nothing of its own: a game that says nothing of its sessions gets the recap's shared part alone."""
        return GameRecap()


def register(game: Game) -> Game:
    if game.ruleset in GAMES:
        raise ValueError(f"game {game.ruleset} registered twice")
    GAMES[game.ruleset] = game
    return game


def game_for(ruleset: Ruleset) -> Game:
    return GAMES[ruleset]


def game_of(state: TableState) -> Game:
    return GAMES[state.ruleset]
