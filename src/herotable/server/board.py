"""What the table page shows: the campaign's game board for the viewer (from `Game.board`), the requests, the dice of
the open rolls and the log drawn as dice, and the turn tracker of a conflict. Presentation only: every secret
is filtered by the game's own masking (`view_for`) before anything here reads it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

from herotable.table.game import Card, OpenRoll, game_of
from herotable.table.render import LogEntry
from herotable.table.state import OpenRequest, Role, Ruleset, TableState
from herotable.table.views import view_for


@dataclass(frozen=True)
class Die:
    """One die as drawn: its type, the face it shows, and whether a re-roll replaced it."""

    sides: int
    face: int
    rerolled: bool = False

    @property
    def words(self) -> str:
        """The die as a screen reader says it."""
        extra = " (highest face)" if self.face == self.sides else " (lowest face)" if self.face == 1 else ""
        return f"d{self.sides} showing {self.face}{extra}" + (", re-rolled" if self.rerolled else "")


@dataclass(frozen=True)
class DiceSide:
    """One side of an open roll as the viewer may see it: whose dice, the dice, and the result in words."""

    who: str
    dice: tuple[Die, ...]
    total: int | None
    words: str


@dataclass
class Board:
    party: list[Card] = field(default_factory=list)
    opponents: list[Card] = field(default_factory=list)
    rolls: list[OpenRoll] = field(default_factory=list)
    requests: list[OpenRequest] = field(default_factory=list)
    conflict: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)
    dice: dict[str, list[DiceSide]] = field(default_factory=dict)  # by open roll id
    outcome: dict[str, str] = field(default_factory=dict)  # by open roll id: where the roll stands, in words
    turns: dict[str, Any] | None = None  # the conflict's turn tracker


def build(state: TableState, user: str) -> Board:
    """The board for `user`."""
    shown = game_of(state).board(state, user)
    board = Board(extras=dict(shown.extras))
    board.party.extend(c for c in shown.cards if not c.npc)
    board.opponents.extend(c for c in shown.cards if c.npc)
    board.rolls.extend(shown.rolls)
    board.conflict = dict(shown.conflict) if shown.conflict is not None else None
    gm = state.role_of(user) is Role.GM
    board.requests.extend(r for r in state.requests if gm or r.user == user)
    reader = READERS.get(state.ruleset)
    if reader is not None:
        reader(state, user, view_for(state, user)["game"], board)
    return board


# --- reading the masked view: only what the viewer may see is there to read ---


def _ltl_side(names: Mapping[str, str], side: Mapping[str, Any] | None, who: str) -> DiceSide | None:
    if side is None:
        return None
    sides = int(str(side["die"]).lstrip("d"))
    kept = int(side["kept"])
    dice = tuple(
        Die(sides, face, rerolled=len(side["rolls"]) > 1 and n != kept)
        for n, faces in enumerate(side["rolls"])
        for face in faces
    )
    total = side["total"]
    name = names.get(side["character"] or "", who)
    words = f"{name}: {total}" if total is not None else f"{name}: not rolled yet"
    return DiceSide(name, dice, total, words)


def _ltl_roll(names: Mapping[str, str], roll: Mapping[str, Any], actor: str, opponent: str) -> list[DiceSide]:
    out = [_ltl_side(names, roll.get("actor"), actor), _ltl_side(names, roll.get("opposition"), opponent)]
    return [s for s in out if s is not None]


def _standing(sides: list[DiceSide], hidden: bool) -> str:
    """Where a two-sided roll stands before it is settled, when the viewer sees both dice."""
    if hidden or len(sides) != 2 or sides[0].total is None or sides[1].total is None:
        return ""
    a, b = sides
    if a.total == b.total:
        return "A tie so far: nothing changes unless someone re-rolls."
    ahead = a if (a.total or 0) > (b.total or 0) else b
    return f"{ahead.who} is ahead so far."


def _read_ltl(state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
    names = state.names()
    for t in game.get("tasks", ()):
        opponent = f"Difficulty {t['difficulty']}" if t.get("difficulty") else "the opposition"
        sides = _ltl_roll(names, t, names.get(t["character"], t["character"]), opponent)
        board.dice[t["id"]] = sides
        board.outcome[t["id"]] = _standing(sides, t.get("actor") is None or t.get("opposition") is None)
    c = game.get("conflict")
    if c is None:
        return
    if c.get("open"):
        o = c["open"]
        sides = _ltl_roll(names, o, "the attacker", f"Difficulty {o['difficulty']}" if o.get("difficulty") else "")
        board.dice[o["id"]] = sides
        board.outcome[o["id"]] = _standing(sides, o.get("actor") is None or o.get("opposition") is None)
    out = {card.id for card in board.party + board.opponents if any(f.startswith("defeated") for f in card.flags)}
    mine = {card.id for card in board.party + board.opponents if card.mine}
    fighters = {f["id"]: f for f in c["fighters"]}

    def entry(fid: str) -> dict[str, Any]:
        f = fighters.get(fid, {})
        return {
            "id": fid,
            "name": names.get(fid, fid),
            "acted": bool(f.get("acted")),
            "out": fid in out or bool(f.get("gave_up")),
            "mine": fid in mine,
        }

    groups = [[entry(fid) for fid in g] for g in c.get("order", ())] or [[entry(fid) for fid in fighters]]
    turn: list[str] = []
    if not c.get("over"):
        for g in groups:
            waiting = [e["id"] for e in g if not e["acted"] and not e["out"]]
            if waiting:
                turn = waiting
                break
    gm = state.is_gm(user)
    board.turns = {
        "round": c["round"],
        "groups": groups,
        "initiative": bool(c.get("order")),
        "turn": turn,
        "yours": not gm and any(fid in mine for fid in turn),
        "waiting": [e["name"] for g in groups for e in g if not e["acted"] and not e["out"]],
    }


def _read_cv(state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
    names = state.names()
    for c in game.get("checks", ()):
        dice = [Die(20, c["d20"], rerolled=c["reroll"] is not None and c["kept"] != c["d20"])]
        if c["reroll"] is not None:
            dice.append(Die(20, c["reroll"], rerolled=c["kept"] == c["d20"]))
        verdict = "succeeds" if c["succeeded"] else "fails"
        name = names.get(c["character"], c["character"])
        words = f"{name}: {c['total']} against Difficulty {c['difficulty']}, {verdict}"
        board.dice[c["id"]] = [DiceSide(name, tuple(dice), c["total"], words)]
        board.outcome[c["id"]] = f"{c['total']} against {c['difficulty']}: {verdict} as it stands."


READERS: dict[Ruleset, Callable[[TableState, str, Mapping[str, Any], Board], None]] = {
    Ruleset.LTL: _read_ltl,
    Ruleset.CONVICTION: _read_cv,
}


# --- dice as pictures ---

SHAPES = {
    4: '<polygon points="20,3 37,35 3,35"/>',
    6: '<rect x="4" y="4" width="32" height="32" rx="5"/>',
    8: '<polygon points="20,2 38,20 20,38 2,20"/>',
    10: '<polygon points="20,2 37,16 20,38 3,16"/>',
    12: '<polygon points="20,2 38,15 31,37 9,37 2,15"/>',
    20: '<polygon points="20,2 36,11 36,29 20,38 4,29 4,11"/>',
}


def die_svg(die: Die) -> Markup:
    """One die as inline SVG: the die's shape with its face, a highest face and a re-rolled die marked; its
    words are the picture's text alternative."""
    shape = SHAPES.get(die.sides, '<circle cx="20" cy="20" r="17"/>')
    marks = ["die"]
    if die.face == die.sides:
        marks.append("high")
    elif die.face == 1:
        marks.append("low")
    if die.rerolled:
        marks.append("rerolled")
    y = "27" if die.sides == 4 else "25"
    return Markup(
        f'<svg class="{" ".join(marks)}" viewBox="0 0 40 40" width="40" height="40" role="img" '
        f'aria-label="{escape(die.words)}"><title>{escape(die.words)}</title>{shape}'
        f'<text x="20" y="{y}" text-anchor="middle">{die.face}</text></svg>'
    )


def dice_svg(dice: tuple[Die, ...] | list[Die]) -> Markup:
    return Markup("").join(die_svg(d) for d in dice)


def faces(entry: LogEntry) -> Markup:
    """A log entry's dice, drawn as dice, each with its words for screen readers."""
    return dice_svg([Die(sides, face) for sides, face in entry.dice])
