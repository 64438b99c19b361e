"""What a Larger Than Life table shows one member: the masked state (`mask`) and the board (`board`).

A hidden NPC's sheet is the GM's; a pending roll's dice are seen by that side's roller and the GM; a GM secret roll
by the GM alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from herotable.ltl.hero import Hero, LossType
from herotable.ltl.task import Side, Task
from herotable.table.codec import encode
from herotable.table.commands import controls
from herotable.table.game import Board, Card, OpenRoll
from herotable.table.ltl.contests import contest_view
from herotable.table.ltl.decide import table_of
from herotable.table.ltl.state import LtlTable, OpenAction, accepter, accepts_for, waiting_for
from herotable.table.ltl.teamwork import team_view
from herotable.table.state import TableState
from herotable.table.views import may_see_sheet


def _sees_side(state: TableState, user: str, act: OpenAction, side: str) -> bool:
    """Whether the member sees one side's die of the conflict's open action: its roller's controller, or for the
    GM's difficulty die the actor's."""
    roller = act.actor if side == "actor" else (act.target or act.actor)
    if not controls(state, user, roller):
        return False
    return may_see_sheet(state, user, roller)


def side_json(s: Side) -> dict[str, Any]:
    return {
        "character": s.who,
        "rating": s.rating.name,
        "die": f"d{s.throw.sides}",
        "rolls": [list(r.faces) for r in s.throw.rolls],
        "sources": [src.value for src in s.throw.sources],
        "kept": s.throw.kept,
        "total": s.throw.total if s.throw.rolls else None,
        "broke": s.broke,
        "auto_success": s.auto_success,
    }


def task_json(t: Task, *, actor: bool = True, opposition: bool = True) -> dict[str, Any]:
    return {
        "actor": side_json(t.actor) if actor else None,
        "opposition": side_json(t.opposition) if opposition else None,
        "difficulty": t.difficulty.name if t.difficulty else None,
        "must_succeed": t.must_succeed,
    }


def mask(state: TableState, user: str) -> dict[str, Any]:
    """The table as `user` may see it, as plain JSON."""
    table = table_of(state)
    gm = state.is_gm(user)
    heroes: dict[str, Any] = {}
    for cid, hero in table.heroes.items():
        if may_see_sheet(state, user, cid):
            heroes[cid] = encode(hero)
        else:
            heroes[cid] = {"name": hero.name, "hidden": True, "status": public_status(hero, table.stakes)}
    view: dict[str, Any] = {
        "options": encode(table.options),
        "heroes": heroes,
        "tasks": [
            {
                "id": t.id,
                "character": t.character,
                "purpose": t.purpose,
                "secret": t.secret,
                "detail": t.detail,
                "revealed": t.id in state.revealed,
                **task_json(t.task),
            }
            for t in table.tasks
            if gm or (controls(state, user, t.character) and not t.secret)
        ],
        "failed": [
            {"character": f.character, "outcome": f.outcome}
            for f in table.failed
            if gm or (controls(state, user, f.character) and not f.secret)
        ],
        "conflict": None,
        "contest": contest_view(state, user),
        "team": team_view(state, user),  # R-LTL-14
        "calls": [encode(c) for c in table.calls if controls(state, user, c.character)],  # R-T-3
        "recovery": [encode(r) for r in table.recovery if may_see_sheet(state, user, r.character)],  # R-LTL-11
    }
    c = table.conflict
    if c is not None:
        hidden = {cid for cid in table.heroes if not may_see_sheet(state, user, cid)}
        open_ = None
        if c.open is not None:
            o = c.open
            open_ = {
                "id": o.id,
                "actor": o.actor,
                "target": o.target,
                "revealed": o.id in state.revealed,
                "attacker": o.actor,  # "actor" below is the attacker's side of the dice, None where not seen
                "accepted": list(o.accepted),  # R-LTL-3: who accepted the exchange as it stands, who it waits for
                "waiting": list(waiting_for(o)),
                **task_json(
                    o.task,
                    actor=_sees_side(state, user, o, "actor"),
                    opposition=_sees_side(state, user, o, "opposition"),
                ),
            }
        view["conflict"] = {
            "fighters": [encode(f) for f in c.fighters],
            "stakes": c.stakes.value,
            "round": c.round,
            "order": [list(g) for g in c.order],
            "initiative_rolls": [[fid, list(r.faces)] for fid, r in c.initiative_rolls if fid not in hidden],
            "pending": [encode(p) for p in c.pending],
            "open": open_,
            "over": _rules_over(table),
            # a hidden defender's Style is the GM's (R-T-3)
            "defences": [[cid, style] for cid, style in c.defences if cid not in hidden],
        }
    return view


def _waiting_words(state: TableState, user: str, o: OpenAction, names: Mapping[str, str]) -> str:
    """Whom an exchange waits for once one side accepted it (R-LTL-3), each named with whose Accept it needs: "you",
    a player, or the GM."""
    if not o.accepted:
        return ""

    def whose(cid: str) -> str:
        if accepts_for(state, user, cid):
            return f"you ({names.get(cid, cid)})"
        player = accepter(state, cid)
        return f"{names.get(cid, cid)} ({names.get(player, player) if player else 'the GM'})"

    left = " and ".join(whose(cid) for cid in waiting_for(o))
    done = " and ".join(names.get(cid, cid) for cid in o.accepted)
    return f"Accepted for {done}; waiting for {left}."


def _rules_over(table: LtlTable) -> bool:
    from herotable.table.ltl.state import rules_conflict

    return rules_conflict(table).over


# --- the board ---


def _now_of(now: str, full: str) -> str:
    return now if now == full else f"{now} (sheet {full})"


def public_status(hero: Hero, stakes: LossType | None) -> list[str]:
    """What the table sees of a hero whose sheet is hidden: out of the fight, unconscious, stunned (each a public
    fact when it happens)."""
    shown = ((hero.is_defeated(stakes), "defeated"), (hero.unconscious, "unconscious"), (hero.stunned, "stunned"))
    return [text for on, text in shown if on]


def card(state: TableState, user: str, cid: str) -> Card:
    table = table_of(state)
    c = state.character(cid)
    owner = state.names().get(c.owner, c.owner)
    if not may_see_sheet(state, user, cid):
        shown = tuple(public_status(table.hero(cid), table.stakes))
        return Card(cid, c.name, owner, c.npc, True, False, False, flags=shown)
    stakes = table.stakes
    hero: Hero = table.hero(cid)
    sheet = hero.sheet
    stats: list[tuple[str, str]] = [("Base Power", _now_of(hero.rating_for(None, stakes).name, sheet.base.name))]
    stats += [(s.name, _now_of(hero.rating_for(s.name, stakes).name, s.rating.name)) for s in sheet.styles]
    stats += [("Karma", _now_of(hero.karma.name, sheet.karma.name))]
    stats += [("Heroism", _now_of(hero.heroism.name, sheet.heroism.name))]
    stats += [("Hero Points", str(sheet.hero_points))]
    if hero.losses:
        stats.append(
            ("Losses", ", ".join(f"{loss.levels} {loss.kind.value.replace('_', '-')}" for loss in hero.losses))
        )
    flags = [
        text
        for on, text in (
            (hero.is_defeated(stakes), f"defeated{': ' + hero.defeat if hero.defeat else ''}"),
            (hero.unconscious, "unconscious"),
            (hero.stunned, "stunned"),
            (hero.pushed, "pushing"),
            (hero.collapses_after_action, "collapses after this action"),
            (hero.try_again_tokens > 0, f"{hero.try_again_tokens} Try Again token(s)"),
            (hero.last_chance_used, "Last Chance used"),
            (hero.motivation_used, "Motivation re-roll used this scene"),
        )
        if on
    ]
    leave = table.leave(cid)
    if leave is not None:
        flags.append(f"Recovery: {'any number of' if leave.left is None else leave.left} tries left ({leave.scope})")
    if controls(state, user, cid):
        flags += [
            f"called for: {c.kind.replace('_', ' ')}" + (f" against {c.difficulty}" if c.difficulty else "")
            for c in table.calls
            if c.character == cid
        ]
    side = ""
    if table.conflict is not None and table.conflict.fights(cid):
        fighter = table.conflict.fighter(cid)
        side = fighter.side
        flags += ["acted this round"] * fighter.acted + ["gave up"] * fighter.gave_up
        flags.append(f"defends with {table.conflict.defence(cid) or 'base Power'}")
    return Card(cid, c.name, owner, c.npc, c.hidden, True, controls(state, user, cid), tuple(stats), tuple(flags), side)


def _throw_line(name: str, side: dict[str, Any] | None) -> str:
    if side is None:
        return f"{name}: not shown to you"
    rolls = " then ".join("+".join(str(f) for f in faces) for faces in side["rolls"]) or "not rolled"
    sources = f" (re-rolled: {', '.join(s.replace('_', ' ') for s in side['sources'])})" if side["sources"] else ""
    return f"{name} rolls {side['die']}: {rolls} → {side['total']}{sources}"


def task_lines(state: TableState, t: Task, *, actor: bool = True, opposition: bool = True) -> tuple[str, ...]:
    data = task_json(t, actor=actor, opposition=opposition)
    names = state.names()
    a = t.actor.who
    o = t.opposition.who
    lines = [_throw_line(names.get(a or "", "?"), data["actor"])]
    if data["difficulty"]:
        lines.append(_throw_line(f"Difficulty {data['difficulty']}", data["opposition"]))
    else:
        lines.append(_throw_line(names.get(o or "", "?"), data["opposition"]))
    if t.must_succeed:
        lines.append("must succeed")
    return tuple(lines)


def board(state: TableState, user: str) -> Board:
    table = table_of(state)
    names = state.names()
    gm = state.is_gm(user)
    cards = tuple(card(state, user, c.id) for c in state.characters if c.id in table.heroes)
    rolls: list[OpenRoll] = []
    for t in table.tasks:
        if not (gm or (controls(state, user, t.character) and not t.secret)):
            continue
        title = f"{names.get(t.character, t.character)}: {t.purpose.replace('_', ' ')}" + " (secret)" * t.secret
        if t.detail:
            title += f" — {t.detail}"
        rolls.append(OpenRoll(t.id, t.character, title, task_lines(state, t.task), True, False, (t.character,)))
    conflict = None
    c = table.conflict
    if c is not None:
        conflict = {
            "round": c.round,
            "stakes": c.stakes.value.replace("_", "-"),
            "order": [", ".join(names.get(f, f) for f in group) for group in c.order],
            "pending": [f"{names.get(p.target, p.target)} loses {p.levels} {p.kind.value}" for p in c.pending],
            "over": _rules_over(table),
            "winner": None,
        }
        from herotable.table.ltl.state import rules_conflict

        conflict["winner"] = rules_conflict(table).winner
        if c.open is not None:
            o = c.open
            target = names.get(o.target, o.target) if o.target else "a difficulty"
            title = f"Exchange: {names.get(o.actor, o.actor)} against {target}"
            sees_actor = _sees_side(state, user, o, "actor")
            sees_opposition = _sees_side(state, user, o, "opposition")
            mine = tuple(cid for cid in (o.actor, o.target) if cid and controls(state, user, cid))
            status = _waiting_words(state, user, o, names)
            if not (sees_actor or sees_opposition):
                rolls.append(OpenRoll(o.id, o.actor, title, ("being rolled…",), False, True, status=status))
            else:
                lines = task_lines(state, o.task, actor=sees_actor, opposition=sees_opposition)
                rolls.append(OpenRoll(o.id, o.actor, title, lines, controls(state, user, o.actor), False, mine, status))
    return Board(cards, tuple(rolls), conflict)
