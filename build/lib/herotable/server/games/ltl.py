"""Larger Than Life's face on the web: its sheet editor, how the table reads its view (the dice of open rolls, the
conflict's turn tracker), and where its actions sit."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from herotable.errors import InvalidSheet, Problem
from herotable.ltl.sheet import CREATION_SECTIONS, sheet_from_dict, sheet_to_dict
from herotable.server.actions import Layout, Panel
from herotable.server.board import Board, DiceSide, Die
from herotable.server.games import ltl_chances
from herotable.server.games.ltl_odds import LtlDuels
from herotable.server.presenter import Duels, register
from herotable.server.sheets import COMMON_KEYS, FormLike, Read, SheetEditor, lines_of
from herotable.table.commands import Command
from herotable.table.ltl.commands import (
    Attack,
    BuySuccess,
    CallRoll,
    ChooseCritReward,
    CreateLtlCharacter,
    EndConflict,
    EndRound,
    Reroll,
    Settle,
    StartConflict,
)
from herotable.table.ltl.contests import CallContest, CancelContest
from herotable.table.ltl.teamwork import CallTeamAttack, CallTeamChallenge, CancelTeam
from herotable.table.state import Ruleset, TableState

DICE = ("d4", "d6", "d8", "d10", "d12", "d20")
LTL_ROWS = {"superpowers": 4, "styles": 4}


class LtlSheets:
    template = "ltl_sheet.html"
    view_template = "ltl_sheet_view.html"

    def context(self) -> dict[str, Any]:
        return {"dice": DICE, "sections": CREATION_SECTIONS, "rows": LTL_ROWS}

    def keys(self) -> frozenset[str]:
        rows = {f"style_{i}" for i in range(LTL_ROWS["styles"])} | {
            f"power_{i}" for i in range(LTL_ROWS["superpowers"])
        }
        texts = {"writer", "artist", "origin", "motivation", "costume", "base", "karma", "heroism"}
        lists = {"styles", "superpowers", "specialties", "complications", "drawbacks"}
        return COMMON_KEYS | rows | texts | lists

    def read(self, values: Mapping[str, str], form: FormLike) -> Read:
        """The sheet as the engine reads it; which form row each listed Style and Superpower came from, and the
        rows the sheet's Style map cannot hold (the same name twice)."""
        style_rows: dict[int, int] = {}
        styles: dict[str, str] = {}
        problems: list[Problem] = []
        for row in range(LTL_ROWS["styles"]):
            name = values.get(f"style_name_{row}", "").strip()
            if name in styles:
                problems.append(Problem(f"style_{row}", f"the Style {name!r} is listed twice"))
            elif name or values.get(f"style_die_{row}", ""):
                style_rows[len(styles)] = row
                styles[name or f"(row {row + 1})"] = values.get(f"style_die_{row}", "")
        power_rows: dict[int, int] = {}
        powers: list[dict[str, Any]] = []
        for row in range(LTL_ROWS["superpowers"]):
            name = values.get(f"power_name_{row}", "").strip()
            stunts = [s.strip() for s in values.get(f"power_stunts_{row}", "").split(",") if s.strip()]
            if name or stunts:
                power_rows[len(powers)] = row
                powers.append({"name": name, "stunts": stunts})
        sheet: dict[str, Any] = {
            key: values.get(key, "").strip() for key in ("name", "writer", "artist", "origin", "motivation", "costume")
        }
        sheet.update(
            base=values.get("base", ""),
            karma=values.get("karma", ""),
            heroism=values.get("heroism", ""),
            styles=styles,
            superpowers=powers,
            specialties=lines_of(values.get("specialties", "")),
            complications=lines_of(values.get("complications", "")),
            drawbacks=lines_of(values.get("drawbacks", "")),
        )
        if problems:  # the engine's own problems are listed with the form's
            try:
                sheet_from_dict(sheet)
            except InvalidSheet as err:
                problems += err.problems
        names = list(styles)

        def field_of(problem: Problem) -> str:
            m = re.match(r"(styles|superpowers)\[(\d+)\]", problem.field)
            if m:
                rows = style_rows if m.group(1) == "styles" else power_rows
                return f"{'style' if m.group(1) == 'styles' else 'power'}_{rows.get(int(m.group(2)), 0)}"
            if problem.field.startswith("styles."):
                name = problem.field.split(".", 1)[1]
                return f"style_{names.index(name)}" if name in names else "styles"
            return problem.field

        return Read(sheet, problems, field_of)

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command:
        return CreateLtlCharacter(cid, sheet, owner=owner, npc=npc, hidden=hidden)

    def view(self, hero: Any) -> dict[str, Any]:
        return {"ltl": sheet_to_dict(hero.sheet), "sections": CREATION_SECTIONS}


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
        # a side the viewer may not see yet stands as a hidden die, so nobody wonders where it went (R-T-2)
        for key, cid, at in (("actor", o.get("attacker"), 0), ("opposition", o.get("target"), 1)):
            if o.get(key) is None and isinstance(cid, str):
                name = names.get(cid, cid)
                sides.insert(min(at, len(sides)), DiceSide(name, (), None, f"{name}: hidden"))
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
        "waiting": [] if c.get("over") else [e["name"] for g in groups for e in g if not e["acted"] and not e["out"]],
    }


class LtlPresenter:
    ruleset = Ruleset.LTL
    panels: str | None = None
    rules: str | None = "ltl"
    listed = 1
    blurb = ""
    sheets: SheetEditor = LtlSheets()
    layout = Layout(
        table_actions=frozenset(
            {
                StartConflict.type,
                EndRound.type,
                EndConflict.type,
                CallContest.type,
                CancelContest.type,
                CallTeamChallenge.type,
                CallTeamAttack.type,
                CancelTeam.type,
            }
        ),
        round_controls=frozenset({EndRound.type, EndConflict.type}),
        accepts=frozenset({Settle.type}),
        field_labels={
            (BuySuccess.type, "character"): "Whose roll succeeds",
            (Reroll.type, "character"): "Who re-rolls",
            (ChooseCritReward.type, "bonus"): "Reward",
            (EndRound.type, "serious"): "Serious wounds (this round's physical damage heals in days)",
            (StartConflict.type, "fatigue"): "Failed challenges cost fatigue (a level each)",
            (CallRoll.type, "label"): "Label (what the roll is for, as the player reads it)",
            (CallRoll.type, "reason"): "Reason for the modifier (the player reads it)",
        },
    )

    read_board = staticmethod(_read_ltl)
    duels: Duels | None = LtlDuels()

    @staticmethod
    def chances(state: TableState, user: str, laid: Panel) -> dict[str, str]:
        """The line of odds beside a called roll, a Push and Recovery (`ltl_chances`); an attack's odds are a panel
        of their own (`odds_panels`)."""
        return dict(ltl_chances.chances(state, user, laid))

    @staticmethod
    def odds_panels(laid: Panel) -> set[str]:
        """The attacks open to the viewer's fighters now: each gets the odds panel of its choices."""
        return {a.key for c in laid.cards.values() for a in c.own if a.type == Attack.type}


register(LtlPresenter())
