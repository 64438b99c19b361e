"""What the table page shows: each character's current dice or Conviction, the open rolls the viewer may see,
and the live log in words. Presentation only: the numbers come from the rules' own values, and every secret
is filtered by `herotable.table.views` (the viewer's view decides which rolls and sheets appear).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herotable.conviction.checks import Check
from herotable.ltl.hero import Hero
from herotable.ltl.task import Task
from herotable.server.live import event_json
from herotable.store.port import StoredEvent
from herotable.table.codec import decode_as
from herotable.table.cv_play import check_json
from herotable.table.ltl_play import task_json
from herotable.table.model import OpenCheck, OpenRequest, OpenTask, Role, TableState
from herotable.table.undo import UNDO_TYPE

LOG_LENGTH = 150


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
    """An open roll the viewer may see: a challenge or Karma roll, the conflict's exchange, a pending check."""

    id: str  # the task or check id; "" for the conflict's open exchange
    character: str
    title: str
    lines: tuple[str, ...]
    mine: bool  # the viewer may act on it (its roller's player, or the GM)
    rolling: bool = False  # someone else's exchange: no dice shown
    characters: tuple[str, ...] = ()  # the viewer's characters rolling in it (who may re-roll)


@dataclass
class Board:
    party: list[Card] = field(default_factory=list)
    opponents: list[Card] = field(default_factory=list)
    rolls: list[OpenRoll] = field(default_factory=list)
    requests: list[OpenRequest] = field(default_factory=list)
    conflict: dict[str, Any] | None = None
    wits: list[dict[str, Any]] = field(default_factory=list)
    wit_uses: int = 0
    exit_bid: dict[str, Any] | None = None


def names(state: TableState) -> dict[str, str]:
    """Display names of members (by user id) and characters (by id); a hidden NPC's name is public."""
    out = {m.user: m.name for m in state.members}
    out.update({c.id: c.hero.name for c in state.characters})
    out.update({c.id: c.hero.name for c in state.cv_characters})
    return out


def may_see_sheet(state: TableState, user: str, owner: str, hidden: bool) -> bool:
    return not hidden or owner == user or state.is_gm(user)


def controls(state: TableState, user: str, owner: str) -> bool:
    role = state.role_of(user)
    return role is Role.GM or (role is Role.PLAYER and owner == user)


def _ltl_card(state: TableState, user: str, cid: str) -> Card:
    c = state.character(cid)
    who = names(state)
    owner = who.get(c.owner, c.owner)
    if not may_see_sheet(state, user, c.owner, c.hidden):
        return Card(cid, c.hero.name, owner, c.npc, True, False, False)
    stakes = state.conflict.stakes if state.conflict else None
    hero: Hero = state.hero(cid)
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
    side = ""
    if state.conflict is not None and any(f.id == cid for f in state.conflict.fighters):
        fighter = state.conflict.fighter(cid)
        side = fighter.side
        flags += ["acted this round"] * fighter.acted + ["gave up"] * fighter.gave_up
    return Card(
        cid, c.hero.name, owner, c.npc, c.hidden, True, controls(state, user, c.owner), tuple(stats), tuple(flags), side
    )


def _now_of(now: str, full: str) -> str:
    return now if now == full else f"{now} (sheet {full})"


def _cv_card(state: TableState, user: str, cid: str) -> Card:
    c = state.cv_character(cid)
    owner = names(state).get(c.owner, c.owner)
    if not may_see_sheet(state, user, c.owner, c.hidden):
        return Card(cid, c.hero.name, owner, c.npc, True, False, False)
    hero = c.hero
    sheet = hero.sheet
    turn = hero.turn
    stats = (
        ("Conviction", f"{hero.conviction} / {hero.conviction_max}"),
        ("Level", f"{sheet.level} ({', '.join(r.value for r in sheet.roles)})"),
        ("Toughness", f"{sheet.toughness:+d}"),
        ("Nature", f"{sheet.nature.virtue} / {sheet.nature.vice}"),
        ("Round", f"{turn.number}: spent {turn.spent}, standard {turn.standard_used}, move {turn.move_used}"),
    )
    flags = tuple(hero.conditions.names()) + tuple(f"{e.name} ({e.lasts.value})" for e in hero.effects)
    flags += ("regain check offered",) * hero.regain_check_due
    return Card(cid, hero.name, owner, c.npc, c.hidden, True, controls(state, user, c.owner), stats, flags)


def _throw_line(side: dict[str, Any]) -> str:
    rolls = " then ".join("+".join(str(f) for f in faces) for faces in side["rolls"]) or "not rolled"
    sources = f" (re-rolled: {', '.join(s.replace('_', ' ') for s in side['sources'])})" if side["sources"] else ""
    return f"{side['name']} rolls {side['die']}: {rolls} → {side['total']}{sources}"


def task_lines(state: TableState, task: Task) -> tuple[str, ...]:
    data = task_json(state, task)
    lines = [_throw_line(data["actor"]), _throw_line(data["opposition"])]
    if data["difficulty"]:
        lines[1] = f"Difficulty {data['difficulty']}: " + lines[1].split(": ", 1)[1]
    if task.must_succeed:
        lines.append("must succeed")
    return tuple(lines)


def check_lines(check: Check) -> tuple[str, ...]:
    data = check_json(check)
    first = f"d20 {data['d20']}"
    if data["reroll"] is not None:
        first += f", Conviction re-roll {data['reroll']} (counts as {data['reroll_counts_as']}), keeps {data['kept']}"
    bonuses = "".join(f" {amount:+d} {source}" for source, amount in data["bonuses"])
    line = f"{first} {data['modifier']:+d}{bonuses} = {data['total']} against {data['difficulty']}"
    verdict = "success" if data["succeeded"] else "failure"
    if data["override"]:
        verdict += f" (GM override: {data['override']['reason']})"
    return (line, verdict)


def build(state: TableState, view: dict[str, Any], user: str) -> Board:
    """The board for `user`, from the state and their filtered view (which decides the rolls they see)."""
    board = Board()
    who = names(state)
    gm = state.is_gm(user)
    cards = [_ltl_card(state, user, c.id) for c in state.characters] + [
        _cv_card(state, user, c.id) for c in state.cv_characters
    ]
    board.party.extend(c for c in cards if not c.npc)
    board.opponents.extend(c for c in cards if c.npc)
    for raw in view.get("tasks", []):
        t = decode_as(OpenTask, raw)
        title = f"{who.get(t.character, t.character)}: {t.purpose.replace('_', ' ')}" + " (secret)" * t.secret
        mine = controls(state, user, t.owner)
        board.rolls.append(OpenRoll(t.id, t.character, title, task_lines(state, t.task), mine, False, (t.character,)))
    for raw in view.get("checks", []):
        oc = decode_as(OpenCheck, raw)
        title = f"{who.get(oc.character, oc.character)}: {oc.check.label}" + " (secret)" * oc.secret
        mine = controls(state, user, oc.owner)
        board.rolls.append(OpenRoll(oc.id, oc.character, title, check_lines(oc.check), mine, False, (oc.character,)))
    board.requests.extend(decode_as(OpenRequest, r) for r in view.get("requests", []))
    if state.conflict is not None:
        c = state.conflict
        shown = view["conflict"]["open"]
        board.conflict = {
            "round": c.round,
            "stakes": c.stakes.value.replace("_", "-"),
            "order": [", ".join(who.get(f, f) for f in group) for group in c.order],
            "pending": [f"{who.get(p.target, p.target)} loses {p.levels} {p.kind.value}" for p in c.pending],
            "over": c.over,
            "winner": c.winner,
        }
        if c.open is not None:
            act = c.open
            target = who.get(act.target, act.target) if act.target else "a difficulty"
            title = f"Exchange: {who.get(act.actor, act.actor)} against {target}"
            if shown.get("rolling"):
                board.rolls.append(OpenRoll("", act.actor, title, ("being rolled…",), False, True))
            else:
                mine_ids = tuple(f for f in (act.actor, act.target) if f and (gm or state.character(f).owner == user))
                actor_mine = controls(state, user, state.character(act.actor).owner)
                board.rolls.append(
                    OpenRoll("", act.actor, title, task_lines(state, act.task), actor_mine, False, mine_ids)
                )
    for wit in state.wits.wits:
        board.wits.append(
            {
                "number": wit.number,
                "text": wit.text,
                "speaker": wit.speaker,
                "heard_by": ", ".join(sorted(wit.heard_by)),
                "used_by": wit.used_by,
            }
        )
    board.wit_uses = state.wits.session_uses
    if state.exit_bid is not None:
        bid = state.exit_bid
        board.exit_bid = {
            "leaver": bid.leaver,
            "exit_points": bid.exit_points,
            "interfering_points": bid.interfering_points,
        }
    return board


# --- the log ---

TITLES = {
    "campaign.create": "Campaign created",
    "member.join": "Joined",
    "member.remove": "Left",
    "character.create_ltl": "New character",
    "character.create_cv": "New character",
    "ltl.challenge": "Challenge rolled",
    "ltl.reroll": "Re-roll",
    "ltl.buy_success": "Automatic Success bought",
    "ltl.settle": "Settled",
    "ltl.attack": "Exchange rolled",
    "ltl.attempt": "Attempt rolled",
    "ltl.conflict.start": "Conflict",
    "ltl.conflict.end_round": "End of round",
    "ltl.conflict.end": "Conflict over",
    "ltl.karma.try_again": "Karma: Try Again",
    "ltl.karma.fortune": "Karma burned",
    "ltl.karma.roll": "Karma roll",
    "ltl.karma.last_chance": "Last Chance",
    "ltl.heroism.push": "Heroism: Push",
    "ltl.heroism.recover": "Heroism: Recovery",
    "ltl.heal": "Healing",
    "cv.check": "Check rolled",
    "cv.reroll": "Conviction re-roll",
    "cv.announce": "Announced",
    "cv.wit.use": "Quotable Wit used",
    "cv.wit.designate": "Quotable Wit",
    "cv.surge": "Surge",
    "cv.toughness_save": "Toughness save rolled",
    "table.roll": "Dice",
    "request.ask": "Request to the GM",
    "request.answer": "The GM answers",
    UNDO_TYPE: "Undo",
}


@dataclass(frozen=True)
class LogEntry:
    seq: int
    who: str
    title: str
    lines: tuple[str, ...]
    faces: str
    private: str  # "", "owner" or "gm": who else sees this entry
    undone: bool


def _summary_lines(kind: str, s: dict[str, Any], who: dict[str, str]) -> list[str]:
    lines: list[str] = []
    if isinstance(s.get("actor"), dict) and isinstance(s.get("opposition"), dict):
        lines.append(_throw_line(s["actor"]))
        opp = _throw_line(s["opposition"])
        lines.append(f"Difficulty {s['difficulty']}: " + opp.split(": ", 1)[1] if s.get("difficulty") else opp)
    if "outcome" in s:
        result = f"→ {s['outcome']}"
        if s.get("winner"):
            result += f": {who.get(s['winner'], s['winner'])} wins"
        if s.get("loser") and s.get("effect"):
            result += f", {who.get(s['loser'], s['loser'])} loses {s['effect']} level(s) at the end of the round"
        if s.get("automatic"):
            result += " (Automatic Success)"
        for crit in ("actor_critical", "opposition_critical"):
            if s.get(crit) not in (None, "none"):
                result += f"; {crit.split('_')[0]} critical {s[crit]}"
        lines.append(result)
    if "d20" in s and "total" in s:
        c = s
        first = f"d20 {c['d20']}"
        if c.get("reroll") is not None:
            first += f", re-roll {c['reroll']} (counts as {c['reroll_counts_as']}), keeps {c['kept']}"
        bonuses = "".join(f" {a:+d} {src}" for src, a in c.get("bonuses", []))
        lines.append(
            f"{c.get('label', 'check')}: {first} {c['modifier']:+d}{bonuses} = {c['total']} vs {c['difficulty']}"
        )
        lines.append("→ success" if c.get("succeeded") else "→ failure")
    if isinstance(s.get("rolls"), dict):
        r = s["rolls"]
        lines.append(f"Heroism rolled {r['heroism']} against {r['difficulty']} {r['against']}")
    if "succeeded" in s and "d20" not in s:
        lines.append("→ succeeded" if s["succeeded"] else "→ failed")
    if "losses" in s:
        for loss in s["losses"]:
            lines.append(f"{who.get(loss['character'], loss['character'])} loses {loss['levels']} {loss['kind']}")
        for cid in s.get("stunned", []):
            lines.append(f"{who.get(cid, cid)} is stunned")
        for cid in s.get("defeated", []):
            lines.append(f"{who.get(cid, cid)} is defeated")
        if s.get("over"):
            lines.append(f"The conflict is over: {s.get('winner') or 'no side'} wins")
    if s.get("order"):
        order = " · ".join(", ".join(who.get(f, f) for f in group) for group in s.get("order", []))
        lines.append(f"Initiative: {order}")
    if "conviction" in s and "name" in s:
        lines.append(f"{s['name']}: Conviction {s['conviction']}")
    if s.get("conditions"):
        lines.append("Conditions: " + ", ".join(s["conditions"]))
    if kind == "request.ask":
        lines.append(
            f"{s['kind'].replace('_', ' ')}"
            + (f" for {who.get(s['character'], s['character'])}" if s.get("character") else "")
        )
    if kind == "request.answer":
        lines.append(("granted" if s["granted"] else "refused") + f" ({s['kind'].replace('_', ' ')}: {s['asked']})")
    text = s.get("text")
    if isinstance(text, str) and text:
        lines.insert(0, text)
    if kind == "ltl.heal":
        lines.append(f"healed {s['levels']} level(s)" if s.get("healed") else "the healing fails")
    if kind == "table.roll":
        lines.append((f"{s['label']}: " if s.get("label") else "") + f"total {s['total']}")
    return lines


def log_entries(state: TableState, events: list[StoredEvent]) -> list[LogEntry]:
    """The newest events first, in words, with every raw face and what each changed."""
    who = names(state)
    undone = {str(e.data["summary"].get("undone")) for e in events if e.type == UNDO_TYPE}
    out = []
    for e in events[-LOG_LENGTH:]:
        j = event_json(e)
        faces = ", ".join(f"d{sides}:{face}" for sides, face in j["faces"])
        private = "" if e.visibility == "public" else e.visibility
        out.append(
            LogEntry(
                e.seq,
                who.get(e.actor or "", e.actor or ""),
                TITLES.get(e.type, e.type.split(".", 1)[-1].replace("_", " ").replace(".", " ").capitalize()),
                tuple(_summary_lines(e.type, j["summary"], who)),
                faces,
                private,
                e.command_id in undone,
            )
        )
    return list(reversed(out))
