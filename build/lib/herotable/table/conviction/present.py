"""What a Conviction table shows one member: the masked state (`mask`) and the board (`board`).

A hidden NPC's sheet and Conviction are the GM's (its name and conditions are public); a pending check is seen by
its roller's player and the GM; a GM secret check by the GM alone.
"""

from __future__ import annotations

from typing import Any

from herotable.conviction.checks import Check
from herotable.conviction.damage import settled_save
from herotable.conviction.feats import Modelled, feat_bonuses
from herotable.conviction.hero import EffectKind, Hero, Turn
from herotable.table.codec import encode
from herotable.table.commands import controls
from herotable.table.conviction.decide import catalogue, side_of, table_of
from herotable.table.conviction.state import CvTable, OpenCheck
from herotable.table.game import Board, Card, OpenRoll
from herotable.table.state import TableState
from herotable.table.views import may_see_sheet


def _sees(state: TableState, user: str, opened: OpenCheck) -> bool:
    return state.is_gm(user) or (controls(state, user, opened.character) and not opened.secret)


def check_json(check: Check) -> dict[str, Any]:
    """A check with every raw face: the first d20, the Conviction re-roll and what it counts as (R-CV-4)."""
    return {
        "roller": check.roller,
        "label": check.label,
        "kind": check.kind.value,
        "d20": check.first,
        "reroll": check.second,
        "reroll_counts_as": check.second_counts,
        "kept": check.die,
        "modifier": check.modifier,
        "bonuses": [[b.source, b.amount] for b in check.bonuses],
        "total": check.total,
        "difficulty": check.difficulty,
        "margin": check.margin,
        "succeeded": check.succeeded,
        "lethal": check.lethal,
        "override": None
        if check.override is None
        else {"succeeded": check.override.succeeded, "by": check.override.by, "reason": check.override.reason},
    }


def mask(state: TableState, user: str) -> dict[str, Any]:
    table = table_of(state)
    heroes: dict[str, Any] = {}
    for cid, hero in table.heroes.items():
        if may_see_sheet(state, user, cid):
            heroes[cid] = encode(hero)
        else:
            heroes[cid] = {"name": hero.name, "hidden": True, "status": list(hero.conditions.names())}
    return {
        "options": encode(table.options),
        "heroes": heroes,
        "checks": [
            {
                "id": c.id,
                "character": c.character,
                "secret": c.secret,
                "revealed": c.id in state.revealed,
                **check_json(settled_save(table.hero(c.character), c.check)),
            }
            for c in table.checks
            if _sees(state, user, c)
        ],
        "wits": encode(table.wits),
        "exit_bid": encode(table.exit_bid),
        "left": list(table.left),
        "calls": [encode(c) for c in table.calls if controls(state, user, c.character)],  # R-T-3
        "absent": list(table.absent),
        "sides": {cid: side_of(state, table, cid) for cid in table.heroes},
        "order": order(state, table, user),
        # initiative pending until the first turn: each roller's own, and the GM's all (R-CV-4 amended)
        "initiative_pending": [
            {"character": cid, "face": r.face, "reroll": r.second, "total": r.total}
            for cid, r in table.initiative_rolls
            if state.is_gm(user) or (controls(state, user, cid) and may_see_sheet(state, user, cid))
        ],
    }


def order(state: TableState, table: CvTable, user: str) -> list[dict[str, Any]]:
    """The initiative order, first to act first, with the totals rolled: a hidden character's is the GM's
    (R-CV-14)."""
    return [
        {"character": cid, "total": table.initiative.get(cid) if may_see_sheet(state, user, cid) else None}
        for cid in table.order
    ]


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


def card(state: TableState, user: str, cid: str) -> Card:
    table = table_of(state)
    c = state.character(cid)
    owner = state.names().get(c.owner, c.owner)
    hero = table.hero(cid)
    if not may_see_sheet(state, user, cid):
        return Card(cid, c.name, owner, c.npc, True, False, False, flags=tuple(hero.conditions.names()))
    sheet = hero.sheet
    turn = hero.turn
    stats = (
        ("Conviction", f"{hero.conviction} / {hero.conviction_max}"),
        ("Level", f"{sheet.level} ({', '.join(r.value for r in sheet.roles)})"),
        ("Toughness", _toughness(hero)),
        ("Nature", f"{sheet.nature.virtue} / {sheet.nature.vice}"),
        *_round(turn),
        *_feats(hero),
    )
    flags = tuple(hero.conditions.names()) + tuple(f"{e.name} ({e.lasts.value})" for e in hero.effects)
    flags += ("regain check offered",) * hero.regain_check_due
    return Card(cid, c.name, owner, c.npc, c.hidden, True, controls(state, user, cid), stats, flags)


def _round(turn: Turn) -> tuple[tuple[str, str], ...]:
    """This round's actions used and Conviction spent, in words; nothing before the rounds begin or before the hero
    has used anything in them."""
    used = [
        f"{n} {what}"
        for n, what in (
            (turn.standard_used, "standard"),
            (turn.move_used, "move"),
            (turn.full_round_used, "full-round"),
        )
        if n
    ]
    words = ", ".join(used) + (" used" if used else "")
    if turn.spent:
        words += ("; " if words else "") + f"{turn.spent} Conviction spent"
    if not turn.number or not words:
        return ()
    return ((f"Round {turn.number}", words),)


def _toughness(hero: Hero) -> str:
    """The sheet's Toughness, and what it is in a save with the feats the table adds now (R-CV-6 amended)."""
    added = feat_bonuses(hero.feats_in_force(), catalogue(), Modelled.TOUGHNESS)
    shown = f"{hero.sheet.toughness:+d}"
    if added:
        total = hero.sheet.toughness + sum(b.amount for b in added)
        shown += f" ({total:+d} with {', '.join(b.source for b in added)})"
    return shown


def _feats(hero: Hero) -> tuple[tuple[str, str], ...]:
    """Each feat held, the sheet's and the heroic ones: its numbers and whether the table applies them or the sheet's
    values already count them; the benefits the table does not compute, as reminders for the GM (R-CV-6 amended)."""
    cat = catalogue()
    uncounted = {f.casefold() for f in hero.sheet.uncounted_feats}
    held = [(name, name.casefold() in uncounted, False) for name in dict.fromkeys(hero.sheet.feats)]
    held += [(e.name, True, True) for e in hero.effects if e.kind is EffectKind.FEAT]
    numbers: list[str] = []
    reminders: list[str] = []
    for name, applied, heroic in held:
        feat = cat.get(name)
        if feat is None:
            continue
        if feat.modifies:
            how = ("heroic feat, applied" if heroic else "applied by the table") if applied else "in the sheet's values"
            numbers.append(f"{feat.name}: {', '.join(str(n) for n in feat.modifies)} ({how})")
        else:
            reminders.append(f"{feat.name}: {feat.benefit}")
    out = []
    if numbers:
        out.append(("Feats", "; ".join(numbers)))
    if reminders:
        out.append(("Feat reminders", " ".join(reminders)))
    return tuple(out)


def board(state: TableState, user: str) -> Board:
    table = table_of(state)
    names = state.names()
    cards = tuple(card(state, user, c.id) for c in state.characters if c.id in table.heroes)
    rolls = []
    for oc in table.checks:
        if not _sees(state, user, oc):
            continue
        title = f"{names.get(oc.character, oc.character)}: {oc.check.label}" + " (secret)" * oc.secret
        lines = check_lines(settled_save(table.hero(oc.character), oc.check))  # as it would settle now (R-CV-8)
        rolls.append(OpenRoll(oc.id, oc.character, title, lines, True, False, (oc.character,)))
    extras: dict[str, Any] = {
        "order": [
            {"name": names.get(o["character"], o["character"]), "total": o["total"]} for o in order(state, table, user)
        ],
        "absent": [names.get(cid, cid) for cid in (*table.absent, *table.left)],
        "wits": [
            {
                "number": w.number,
                "text": w.text,
                "speaker": w.speaker,
                "heard_by": ", ".join(sorted(w.heard_by)),
                "used_by": w.used_by,
            }
            for w in table.wits.wits
        ],
        "wit_uses": table.wits.session_uses,
        "exit_bid": None
        if table.exit_bid is None
        else {
            "leaver": table.exit_bid.leaver,
            "exit_points": table.exit_bid.exit_points,
            "interfering_points": table.exit_bid.interfering_points,
        },
    }
    return Board(cards, tuple(rolls), None, extras)
