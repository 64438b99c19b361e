"""A random player: commands drawn from `legal_actions` only, a value for every field domain, and a table that
decides and folds commands without a store. The legal-actions property test plays with it, and `make bench` uses
it to record long campaigns of both games."""

from __future__ import annotations

import dataclasses
import functools
import random
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.dice import Rng
from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.table import kinds  # noqa: F401  (registers every command, fact and game)
from herotable.table.codec import encode
from herotable.table.commands import COMMANDS, command_from_json
from herotable.table.conviction.commands import CvSheet
from herotable.table.decide import decide
from herotable.table.fold import Recorded, apply
from herotable.table.game import (
    Choice,
    DocumentDomain,
    Domain,
    Flag,
    IntRange,
    KeyedValues,
    LegalAction,
    SheetDomain,
    Subset,
    TextDomain,
)
from herotable.table.legal import legal_actions
from herotable.table.state import Ruleset, TableState
from herotable.table.structure import CreateCampaign
from herotable.table.travel import new_document

DICE = ("1d20", "2d6+1", "4d6kh3", "1d8-2", "3d4", "1d100", "2d20kl1")
LETTERS = "abcdefghijklmnopqrstuvwxyz ÉéßΩ-'"
DIES = ("d4", "d6", "d8", "d10", "d12", "d20")


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


def sample_text(r: random.Random, d: TextDomain) -> str:
    if d.format == "dice":
        return r.choice(DICE)
    excluded = {_key(x) for x in d.exclude}
    for _ in range(50):
        if r.random() < 0.05:
            text = "x" * d.max_length
        else:
            size = r.randint(1 if d.required else 0, min(d.max_length, 24))
            text = "".join(r.choice(LETTERS) for _ in range(size))
        if d.required and not text.strip():
            continue
        if _key(text) in excluded or (d.exclude and not text.strip() and "" in excluded):
            continue
        return text
    raise AssertionError(f"no text fits {d}")


def ltl_sheet(r: random.Random, name: str) -> dict[str, Any]:
    sheet: dict[str, Any] = dict(r.choice((CAPTAIN_COMET, DOCTOR_ENTROPY)))
    base = r.choice(DIES[:5])
    above = [d for d in DIES if DIES.index(d) >= DIES.index(base)]
    styles = {f"Style {i}": r.choice(above) for i in range(r.randint(0, 3))}
    healer = random.Random(name).randrange(4)  # drawn apart, so the play's own draws stay as they were
    if healer:  # a healing Power (R-LTL-15), with a Style of its own name or rolling base Power
        sheet["superpowers"] = [*sheet["superpowers"], {"name": "Mending", "stunts": [], "healing": True}]
        if healer > 1:
            styles["Mending"] = above[healer % len(above)]
    return {
        **sheet,
        "name": name,
        "base": base,
        "styles": styles,
        "karma": r.choice(DIES),
        "heroism": r.choice(DIES),
        "specialties": r.sample(["Sailing", "Boxing", "Chemistry", "Law"], r.randint(0, 2)),
        "hero_points": r.choice((0, 0, 4, 12, 40, 100)),
    }


def cv_sheet(r: random.Random, name: str) -> dict[str, Any]:
    role = r.choice(list(CvRole))
    level = r.randint(1, 6)
    sheet = CvSheet(
        name=name,
        level=level,
        roles=(role,),
        abilities=Abilities(*(r.randint(-1, 3) for _ in range(6))),
        toughness=r.randint(0, 4),
        nature=Nature("Loyal", "Reckless"),
        combat_bonus=r.randint(0, level),
        skills=(("Notice", r.randint(0, level + 3)), ("Acrobatics", r.randint(0, 2))),
    )
    data: dict[str, Any] = encode(sheet)
    return data


def sample(r: random.Random, d: Domain, chosen: Mapping[str, Any], taken_names: set[str]) -> Any:
    if isinstance(d, Choice):
        return r.choice(d.choices)
    if isinstance(d, IntRange):
        return r.choice((d.min, d.max, r.randint(d.min, d.max), *((None,) if d.optional else ())))
    if isinstance(d, TextDomain):
        return sample_text(r, d)
    if isinstance(d, Flag):
        return r.random() < 0.5
    if isinstance(d, Subset):
        pool = [c for c in d.choices if d.within is None or c in _keys(chosen.get(d.within))]
        return r.sample(pool, r.randint(max(d.min_size, 0), len(pool))) if pool else []
    if isinstance(d, KeyedValues):
        keys = r.sample(list(d.keys), r.randint(max(d.min_keys, 1 if d.min_keys else 0), len(d.keys)))
        values = {k: sample(r, d.value, chosen, taken_names) for k in keys}
        if isinstance(d.value, TextDomain) and len(keys) > 2:
            # a text shared among keys now and then (a conflict's sides, so that a side holds a team, R-LTL-14),
            # drawn apart so the play's own draws stay as they were
            apart = random.Random(repr(keys))
            if apart.random() < 0.8:
                shared = values[keys[0]]
                values = {k: shared if i < 2 or apart.random() < 0.3 else v for i, (k, v) in enumerate(values.items())}
        return [[k, v] for k, v in values.items()] if d.pairs else values
    if isinstance(d, SheetDomain | DocumentDomain):
        name = f"Hero {r.getrandbits(24):06x}"  # drawn from the play's own generator: a seed replays the same play
        taken_names.add(name)
        sheet = ltl_sheet(r, name) if d.game == "ltl" else cv_sheet(r, name)
        return sheet if isinstance(d, SheetDomain) else new_document(Ruleset(d.game), sheet)
    raise AssertionError(d)


def _keys(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return [pair[0] for pair in value]
    return []


def in_domain(d: Domain, value: Any) -> bool:
    """Whether a value (a field's default) lies in a domain."""
    if isinstance(d, Choice):
        return value in d.choices
    if isinstance(d, IntRange):
        return (value is None and d.optional) or (isinstance(value, int) and d.min <= value <= d.max)
    if isinstance(d, TextDomain):
        excluded = {_key(x) for x in d.exclude}
        ok = isinstance(value, str) and len(value) <= d.max_length and _key(value) not in excluded
        return ok and not (d.required and not value.strip()) and d.format is None
    if isinstance(d, Flag):
        return isinstance(value, bool)
    if isinstance(d, Subset):
        return value in ((), []) and d.min_size == 0
    if isinstance(d, KeyedValues):
        return not value and d.min_keys == 0
    return False


def defaults(kind: str) -> dict[str, Any]:
    """The fields of a command kind that have defaults, with them."""
    return dict(_defaults(kind))


@functools.cache
def _defaults(kind: str) -> dict[str, Any]:
    cls = COMMANDS[kind].cls
    out: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = encode(f.default)
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = encode(f.default_factory())
    return out


def command_for(r: random.Random, action: LegalAction, taken_names: set[str]) -> dict[str, Any]:
    """A random command inside the action's domains: a field is left out (to take its default) only when the default
    lies in its domain; fields whose domain depends on another are drawn last."""
    chosen: dict[str, Any] = dict(action.fixed)
    given = defaults(action.type)
    later = [name for name, d in action.fields.items() if isinstance(d, Subset) and d.within]
    for name, d in action.fields.items():
        if name in later:
            continue
        if name in given and in_domain(d, given[name]) and r.random() < 0.15:
            continue
        chosen[name] = sample(r, d, chosen, taken_names)
    for name in later:
        chosen[name] = sample(r, action.fields[name], chosen, taken_names)
    return {"type": action.type, **chosen}


@dataclass
class Table:
    """A campaign decided and folded in memory: every fact as a `Recorded`, and each command with its dice."""

    rng: Rng
    state: TableState = field(default_factory=lambda: TableState("", "", Ruleset.LTL))
    log: list[Recorded] = field(default_factory=list)
    commands: list[tuple[str, dict[str, Any], list[tuple[int, int]], list[Recorded]]] = field(default_factory=list)
    ids: random.Random = field(default_factory=lambda: random.Random(0))

    def run(self, user: str, data: dict[str, Any]) -> None:
        """Decide and fold one command given as JSON. Raises RulesError when it is refused."""
        cmd = command_from_json(data)
        command_id = f"{self.ids.getrandbits(64):016x}"
        decided = decide(self.state, cmd, user, self.rng, command_id)
        recorded = []
        for e in decided.facts:
            rec = Recorded(len(self.log) + 1, command_id, user, cmd.type, e.fact, e.visibility, e.owner)
            self.log.append(rec)
            recorded.append(rec)
            self.state = apply(self.state, rec)
        self.commands.append((user, data, decided.dice, recorded))

    def refused(self, user: str, data: dict[str, Any]) -> RulesError | None:
        """The refusal a command meets now (nothing is changed either way), or None when it would be accepted."""
        try:
            cmd = command_from_json(data)
            decide(self.state, cmd, user, self.rng, uuid.uuid4().hex)
        except RulesError as err:
            return err
        return None


MEMBERS = {"gm": "Gwen", "ana": "Ana", "ben": "Ben", "sly": "Sly"}


def new_table(rng: Rng, ruleset: Ruleset, campaign_id: str = "c") -> Table:
    """A new campaign with a GM, two players and a spectator (see MEMBERS). A Larger Than Life campaign draws how
    initiative goes (R-LTL-12: simultaneous, rolled each round or once), so random play meets all three."""
    table = Table(rng)
    options = {}
    if ruleset == Ruleset.LTL:
        options["initiative"] = ("simultaneous", "each_round", "once")[rng.roll(3) - 1]
    table.run(
        "gm",
        {
            "type": CreateCampaign.type,
            "campaign_id": campaign_id,
            "title": "Random",
            "ruleset": ruleset.value,
            "gm": "gm",
            "gm_name": "Gwen",
            "options": options,
        },
    )
    table.run("ana", {"type": "member.join", "display_name": "Ana"})
    table.run("ben", {"type": "member.join", "display_name": "Ben"})
    table.run("sly", {"type": "member.join", "display_name": "Sly", "role": "spectator"})
    return table


MAX_CHARACTERS = 6
CREATE = ("character.create_ltl", "character.create_cv", "character.import")


# members who leave take no more actions; characters retired or deleted play no more; an archived campaign waits
RARE = {
    "member.remove": 0.02,
    "member.set_role": 0.1,
    "character.edit": 0.1,
    "campaign.rename": 0.05,
    "character.delete": 0.02,
    "character.retire": 0.05,
    "character.return": 0.5,
    "campaign.archive": 0.05,
    "campaign.hand_over": 0.02,
    "campaign.options": 0.05,
    "campaign.recap": 0.1,  # the GM's paragraph in a recap: a line of prose, not play
    "ltl.override": 0.3,  # three forms a character (a plain override, a serious wound, bonds or mind control)
    "character.import": 0.2,
    "character.turn_away": 0.3,
}


def choose(
    r: random.Random, state: TableState, user: str, prefer: Callable[[str], float] | None = None
) -> LegalAction | None:
    """One of the member's legal actions: a kind of action first (weighted by `prefer`), then one of that kind;
    None for a member with nothing to do."""
    by_kind: dict[str, list[LegalAction]] = {}
    for a in legal_actions(state, user):
        if a.type in CREATE and len(state.characters) + len(state.arrivals) >= MAX_CHARACTERS:
            continue
        by_kind.setdefault(a.type, []).append(a)
    names = sorted(by_kind)
    if not names:
        return None
    weights = [prefer(k) if prefer else RARE.get(k, 1.0) for k in names]
    if not any(weights):  # only kinds `prefer` rules out
        return None
    kind = r.choices(names, weights)[0]
    return r.choice(by_kind[kind])


def play(
    table: Table,
    r: random.Random,
    *,
    steps: int | None = None,
    until_events: int | None = None,
    prefer: Callable[[str], float] | None = None,
    seen: set[str] | None = None,
) -> None:
    """Random members take random legal actions with random choices, for `steps` actions or until the log holds
    `until_events` facts. A refused action is a bug in `legal_actions` and raises."""
    taken: set[str] = set()
    done = 0
    members = [u for u in MEMBERS if u != "sly"]
    while (steps is None or done < steps) and (until_events is None or len(table.log) < until_events):
        user = r.choice(members)
        action = choose(r, table.state, user, prefer)
        if action is None:
            if not any(table.state.member(u) for u in members):
                return
            continue
        data = command_for(r, action, taken)
        table.run(user, data)
        if seen is not None:
            seen.add(action.type)
        done += 1
