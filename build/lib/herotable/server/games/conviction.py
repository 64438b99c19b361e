"""Conviction's face on the web: its sheet editor, how the table reads its view (the d20s of pending checks), and
where its actions sit."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from herotable.conviction.character import SUGGESTED_VICES, SUGGESTED_VIRTUES, Abilities, Ability, Nature
from herotable.conviction.character import Role as CvRole
from herotable.errors import Problem
from herotable.odds.advisor import advise_check
from herotable.odds.check import check
from herotable.server.actions import Layout, Panel
from herotable.server.board import Board, DiceSide, Die
from herotable.server.presenter import Duels, register
from herotable.server.sheets import COMMON_KEYS, FormLike, Read, SheetEditor, int_field
from herotable.table.commands import Command
from herotable.table.conviction.commands import (
    Announce,
    BeginTurns,
    CallCheck,
    CreateCvCharacter,
    CvSheet,
    RaiseLevel,
    Reroll,
    Rest,
    RollCheck,
    StartRound,
)
from herotable.table.conviction.decide import catalogue, check_modifier, sheet_skills, table_of
from herotable.table.state import Ruleset, TableState
from herotable.table.views import view_for

CV_SKILL_ROWS = 6


class CvSheets:
    template = "cv_sheet.html"
    view_template = "cv_sheet_view.html"

    def context(self) -> dict[str, Any]:
        return {
            "skill_rows": CV_SKILL_ROWS,
            "virtues": SUGGESTED_VIRTUES,
            "vices": SUGGESTED_VICES,
            "cv_roles": [r.value for r in CvRole],
            "abilities": [a.value for a in Ability],
            "feats": catalogue().feats,
        }

    def keys(self) -> frozenset[str]:
        numbers = {f"abilities.{a.value}" for a in Ability} | {f"skill_{i}" for i in range(CV_SKILL_ROWS)}
        traits = {"level", "roles", "first_role", "toughness", "combat_bonus", "nature.virtue", "nature.vice"}
        return COMMON_KEYS | numbers | traits

    def read(self, values: Mapping[str, str], form: FormLike) -> Read:
        """The sheet as the engine reads it, which form row each listed skill came from; numbers that are not
        numbers are problems of their own."""
        roles = [str(r) for r in form.getlist("roles")]
        feats = [str(f) for f in form.getlist("feats")]
        uncounted = [str(f) for f in form.getlist("uncounted_feats") if str(f) in feats]
        problems: list[Problem] = []
        skill_rows: dict[int, int] = {}
        first = values.get("first_role", "")
        ordered = [first] if first in roles else []
        ordered += [r for r in roles if r != first]
        skills: list[tuple[str, int]] = []
        for row in range(CV_SKILL_ROWS):
            name = values.get(f"skill_name_{row}", "").strip()
            if name:
                skill_rows[len(skills)] = row
                skills.append((name, int_field(values, f"skill_ranks_{row}", problems)))
        sheet = CvSheet(
            name=values.get("name", "").strip(),
            level=int_field(values, "level", problems, 1),
            roles=tuple(CvRole(r) for r in ordered if r in {x.value for x in CvRole}),
            abilities=Abilities(**{a.value: int_field(values, f"abilities.{a.value}", problems) for a in Ability}),
            toughness=int_field(values, "toughness", problems),
            nature=Nature(values.get("nature.virtue", "").strip(), values.get("nature.vice", "").strip()),
            combat_bonus=int_field(values, "combat_bonus", problems),
            skills=tuple(skills),
            feats=tuple(feats),
            uncounted_feats=tuple(uncounted),
        )

        def field_of(problem: Problem) -> str:
            m = re.match(r"(skills|feats)\[(\d+)\]", problem.field)
            if m and m.group(1) == "skills":
                return f"skill_{skill_rows.get(int(m.group(2)), 0)}"
            if m:
                index = int(m.group(2))
                return f"feat_{feats[index]}" if index < len(feats) else "feats"
            return problem.field.replace("skill_ranks_", "skill_")

        return Read(sheet, problems, field_of)

    def command(self, cid: str, sheet: Any, *, owner: str | None, npc: bool, hidden: bool) -> Command:
        return CreateCvCharacter(cid, sheet, owner=owner, npc=npc, hidden=hidden)

    def view(self, hero: Any) -> dict[str, Any]:
        return {}


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
    _turns(state, user, game, board)


def _turns(state: TableState, user: str, game: Mapping[str, Any], board: Board) -> None:
    """The rounds' initiative order as the tracker at the top of the table (R-CV-14): each character in order with
    the total the viewer may see, whether it has taken its standard action this round, and the first that has not
    highlighted as next to act."""
    order = game.get("order") or []
    if not order:
        return
    table = table_of(state)
    names = state.names()
    mine = {card.id for card in board.party + board.opponents if card.mine}
    out = {cid for cid in (*table.absent, *table.left)}
    entries = []
    for o in order:
        cid = o["character"]
        turn = table.hero(cid).turn if cid in table.heroes else None
        acted = turn is not None and (turn.standard_used + turn.full_round_used) > turn.extra_standard
        entries.append(
            {"id": cid, "name": names.get(cid, cid), "acted": acted, "out": cid in out, "mine": cid in mine}
            | {"total": o.get("total")}
        )
    nxt = next((e["id"] for e in entries if not e["acted"] and not e["out"]), None)
    rounds = [table.hero(o["character"]).turn.number for o in order if o["character"] in table.heroes]
    board.turns = {
        "round": max(rounds, default=0),
        "groups": [[e] for e in entries],
        "initiative": True,
        "turn": [nxt] if nxt else [],
        "yours": not state.is_gm(user) and nxt in mine,
        "waiting": [e["name"] for e in entries if not e["acted"] and not e["out"]],
    }


def _check_chances(state: TableState, uid: str, laid: Panel) -> dict[str, str]:
    """A Conviction check's chance with and without a spend, beside the action it is about: a called check whose
    ability and skill the GM set, as it is and with a Conviction re-roll (R-T-3, R-CV-4); and on a pending check
    that fails as it stands, the re-roll's chance to turn it. Only numbers the viewer already sees go in: a call's
    Difficulty is its roller's to see, a pending check's dice too (`view_for` shows them to no one else)."""
    table = table_of(state)
    out: dict[str, str] = {}
    for card in laid.cards.values():
        for a in card.own:
            call = next((c for c in table.calls if c.id == a.get("call")), None)
            if a.type != RollCheck.type or call is None:
                continue
            hero = table.hero(call.character)
            if any(f.name in ("ability", "skill") for f in a.fields):  # the roller names what the GM left open
                out[a.key] = _open_call_chances(hero, call)
                continue
            ability = Ability(call.ability) if call.ability else None
            modifier, bonuses = check_modifier(hero, ability, call.skill, call.modifier, call.reason)
            bonus = modifier + sum(b.amount for b in bonuses)
            as_is, _, rerolled, _ = advise_check(bonus, call.difficulty)
            out[a.key] = Markup(
                'Chance: <strong title="{}">{:.0%}</strong> as it is, <strong title="{}">{:.0%}</strong> with a '
                "Conviction re-roll."
            ).format(as_is.success, float(as_is.success), rerolled.success, float(rerolled.success))
    seen = {c["id"]: c for c in view_for(state, uid)["game"].get("checks", ())}
    for acts in laid.rolls.values():
        for a in acts:
            shown = seen.get(a.get("check"))
            if a.type != Reroll.type or shown is None:
                continue
            if shown["succeeded"]:
                out[a.key] = "It succeeds as it stands; a re-roll cannot make it fail (the better die counts)."
                continue
            bonus = shown["modifier"] + sum(amount for _, amount in shown["bonuses"])
            plain = check(bonus, shown["difficulty"])
            turned = (check(bonus, shown["difficulty"], conviction_reroll=True).success - plain.success) / (
                plain.first_roll_fails or 1
            )
            out[a.key] = f"It fails as it stands; the re-roll turns it into a success {float(turned):.0%} of the time."
    return out


def _open_call_chances(hero: Any, call: Any) -> str:
    """The chance of a called check whose ability or skill the roller chooses, for each choice the sheet offers: by
    ability (with the call's skill, if it set one), or by skill on the sheet and untrained (with the call's ability);
    as it is, before any re-roll (R-CV-1)."""

    def chance(ability: Ability | None, skill: str | None) -> str:
        modifier, bonuses = check_modifier(hero, ability, skill, call.modifier, call.reason)
        return f"{float(check(modifier + sum(b.amount for b in bonuses), call.difficulty).success):.0%}"

    fixed = Ability(call.ability) if call.ability else None
    if call.ability is None:
        parts = [f"{a.value.capitalize()} {chance(a, call.skill)}" for a in Ability]
        return f"Chance by ability{f' with {call.skill}' if call.skill else ''}, as it is: {', '.join(parts)}."
    parts = [f"{name} {chance(fixed, name)}" for name in sheet_skills(hero)] + [f"untrained {chance(fixed, None)}"]
    return f"Chance by skill with {fixed.value.capitalize() if fixed else 'no ability'}, as it is: {', '.join(parts)}."


class CvPresenter:
    ruleset = Ruleset.CONVICTION
    panels: str | None = "cv_panels.html"
    rules: str | None = "conviction"
    listed = 2
    blurb = "DPoNI / True20"
    sheets: SheetEditor = CvSheets()
    layout = Layout(
        table_actions=frozenset({Rest.type, CallCheck.type, RaiseLevel.type}),
        round_controls=frozenset({StartRound.type, BeginTurns.type}),
        accepts=frozenset({Announce.type}),
        field_labels={
            (CallCheck.type, "untrained"): "Untrained: a skill not on the sheet, named as typed",
            (RollCheck.type, "untrained"): "Untrained: a skill not on the sheet, named as typed",
        },
    )

    duels: Duels | None = None  # a check's chance stands beside it (`chances`): no exchanges to weigh
    read_board = staticmethod(_read_cv)
    chances = staticmethod(_check_chances)

    @staticmethod
    def odds_panels(laid: Panel) -> set[str]:
        return set()  # no exchanges to weigh: a check's chance stands beside it (`chances`)


register(CvPresenter())
