"""`opening`: the first command answered on a campaign the process does not hold in memory, on a campaign of 100,000
events against one of 100, on SQLite and PostgreSQL, in one run (`make bench`, the `opening` key of
bench/results.json; alone: `python -m herotable.bench.opening`). Goal: at most 2 times the short campaign's.

Each figure is the median of several fresh openings, the long and the short campaign's in turn: a new `TableService`
(nothing in memory) answers a player's `table.roll` as `POST /api/v1/campaigns/{id}/commands` has it answered: the
state, the player's cursor, the command decided, appended and folded, the player's new events and view. Then, as an
informative figure, the same after a change of the state format: no snapshot in the service's format, so the first
opening folds the whole log (and keeps a snapshot), and the second is short again.

The long campaign (Conviction) is played by random members through the legal actions (`herotable.sampler`) for its
first and last events, and between them holds the table's everyday commands (free rolls, whispers, a GM's secret
roll, the chat's dice, every tenth round an undo by the GM), each decided once and recorded again with its dice:
playing 100,000 events through the legal actions would take minutes. Its facts that an earlier version of their
kind stands for are stored at that version (upcast when read). Its snapshots are those the writer keeps, one each
time the log passes a multiple of SNAPSHOT_EVERY, over its last events (only the newest is ever read); the newest
lies about 100 events behind its head, half the interval, as on average. The short campaign is 100 events of play,
with no snapshot.
"""

from __future__ import annotations

import gc
import json
import random
import statistics
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

from herotable.bench.campaigns import AT, Played, at_a_table, new_events, played
from herotable.bench.live import _database, _Unavailable
from herotable.dice import SeededRng
from herotable.sampler import Table, play
from herotable.service import SNAPSHOT_EVERY, TableService
from herotable.service import states as service_states
from herotable.store.port import EventStore, NewEvent
from herotable.store.sql import open_store
from herotable.table.commands import command_from_json
from herotable.table.decide import decide
from herotable.table.facts import FACT_TYPES
from herotable.table.fold import STATE_VERSION, Recorded, fold, snapshot_of
from herotable.table.state import Role, Ruleset, TableState
from herotable.table.views import view_for

GOAL = "at most 2: the first command on the long campaign against the short one's"
ROLL = command_from_json({"type": "table.roll", "expression": "1d20"})
LONG, SHORT = "long", "short"
# the table's everyday commands between the played stretches: every audience (public, a member's own, the GM's)
EVERYDAY: tuple[tuple[str, dict[str, Any]], ...] = (
    ("ana", {"type": "table.roll", "expression": "1d20"}),
    ("ben", {"type": "chat.say", "text": "Over here!", "to": "ana"}),
    ("gm", {"type": "table.roll", "expression": "1d6", "secret": True}),
    ("ben", {"type": "chat.roll", "expression": "2d6", "to": "gm"}),
    ("ana", {"type": "chat.say", "text": "On my way."}),
)


@dataclass(frozen=True)
class Size:
    """How much the bench does; the test runs a tiny one."""

    events: int = 100_000  # the long campaign
    short: int = 100  # the short one
    played: int = 2_000  # the long campaign's first events played through the legal actions (and its last few hundred)
    openings: int = 9  # fresh openings of each campaign, in turn, per database
    snapshot_every: int = SNAPSHOT_EVERY
    databases: tuple[str, ...] = ("sqlite", "postgresql")


def _ready_to_roll(table: Table) -> None:
    """Bring the sampler's table back to where the everyday commands are legal: out of the archive, and Ana and Ben
    players (random play may have made them spectators)."""
    if table.state.archived:
        table.run("gm", {"type": "campaign.archive", "archived": False})
    for user in ("ana", "ben"):
        if table.state.role_of(user) is not Role.PLAYER:
            table.run("gm", {"type": "member.set_role", "user": user, "role": "player"})


def _everyday(table: Table, until: int) -> None:
    """The everyday commands, in turn, until the table's log holds `until` facts: each decided once on the table as
    it is and recorded again under a new command id with the same dice (they depend on the state only through who
    may act); every tenth round, the GM undoes the last action."""
    rng = SeededRng(7)
    decided = [(user, body, decide(table.state, command_from_json(body), user, rng, "x")) for user, body in EVERYDAY]
    rounds = 0
    while len(table.log) < until:
        for user, body, decision in decided:
            command_id = f"{table.ids.getrandbits(64):016x}"
            seq = len(table.log)
            facts = [
                Recorded(seq + n, command_id, user, body["type"], e.fact, e.visibility, e.owner)
                for n, e in enumerate(decision.facts, start=1)
            ]
            table.state = fold(facts, table.state)
            table.log.extend(facts)
            table.commands.append((user, body, decision.dice, facts))
        rounds += 1
        if rounds % 10 == 0:
            table.run("gm", {"type": "table.undo"})


def _long_campaign(size: Size) -> tuple[list[Played], list[tuple[int, dict[str, Any]]]]:
    """The long campaign's commands, and the snapshots the writer keeps over its last events (seq, state)."""
    table = played(Ruleset.CONVICTION, LONG, size.played, seed=1)
    _ready_to_roll(table)
    _everyday(table, size.events - size.played // 10)
    play(table, random.Random(2), until_events=size.events + size.snapshot_every // 2, prefer=at_a_table)
    _ready_to_roll(table)
    snapshots: list[tuple[int, dict[str, Any]]] = []
    state: TableState | None = None
    kept_from = size.events - 5 * size.snapshot_every
    for _, _, _, facts in table.commands:  # as the writer keeps them: when a command's events pass a multiple
        before = state.seq if state else 0
        state = fold(facts, state)
        if state.seq // size.snapshot_every > before // size.snapshot_every and state.seq >= kept_from:
            snapshots.append((state.seq, snapshot_of(state)))
    return table.commands, snapshots


def _first_command(store: EventStore, campaign_id: str, user: str) -> float:
    """Seconds for a fresh service (nothing in memory) to answer `user`'s roll as the command route has it answered:
    the state, the user's cursor, the command decided, appended and folded, the user's new events and view."""
    service = TableService(store)
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        before = service.recent_state(campaign_id)
        cursor = service.head_cursor(campaign_id, user, before)
        applied = service.execute(campaign_id, user, ROLL, command_id=uuid.uuid4().hex, fresh=True, state=before)
        between = service.events_between(campaign_id, before.seq, applied.events[0].seq - 1)
        batch = [*between, *applied.events] if between is not None else []
        page = service.following(applied.state, user, cursor, batch) if batch else None
        if page is None:
            service.stream(campaign_id, user, after=cursor, limit=500, state=applied.state)
        view_for(applied.state, user)
        return time.perf_counter() - started
    finally:
        gc.enable()


def _ms(seconds: list[float]) -> float:
    return round(statistics.median(seconds) * 1000, 2)


def _database_run(
    kind: str, size: Size, tmp: Path, logs: dict[str, list[NewEvent]], snapshots: list[tuple[int, dict[str, Any]]]
) -> dict[str, Any]:
    with _database(kind, tmp) as (url, _):
        store = open_store(url)
        try:
            started = time.perf_counter()
            for campaign_id, events in logs.items():
                store.create_campaign(campaign_id, campaign_id.title(), Ruleset.CONVICTION.value, AT)
                store.append(campaign_id, 0, events, fresh_ids=True)
            for seq, state in snapshots:
                store.save_snapshot(LONG, seq, state, STATE_VERSION)
            stored = time.perf_counter() - started
            snapshot = store.latest_snapshot(LONG, STATE_VERSION)
            assert snapshot is not None
            times: dict[str, list[float]] = {LONG: [], SHORT: []}
            for campaign_id in (LONG, SHORT):  # not counted: the process's first statements are compiled here
                _first_command(store, campaign_id, "ana")
            for _ in range(size.openings):
                for campaign_id in (LONG, SHORT):
                    times[campaign_id].append(_first_command(store, campaign_id, "ana"))
            head = store.head(LONG)
            # an upgrade to a herotable whose state format is one newer: every snapshot there is of an older format
            with mock.patch.object(service_states, "STATE_VERSION", STATE_VERSION + 1):
                changed = [_first_command(store, LONG, "ana") for _ in range(2)]
            kept = store.latest_snapshot(LONG, STATE_VERSION + 1)
            return {
                "long_events": head,
                "long_snapshot_seq": snapshot.seq,
                "long_snapshot_bytes": len(json.dumps(snapshot.state, separators=(",", ":"))),
                "short_events": store.head(SHORT),
                "store_s": round(stored, 1),
                "first_command_ms": {"long": _ms(times[LONG]), "short": _ms(times[SHORT])},
                "each_ms": {
                    name: [round(t * 1000, 2) for t in times[cid]] for name, cid in (("long", LONG), ("short", SHORT))
                },
                "long_over_short": round(statistics.median(times[LONG]) / statistics.median(times[SHORT]), 2),
                "after_a_format_change_ms": {
                    "first": round(changed[0] * 1000, 1),
                    "second": round(changed[1] * 1000, 2),
                    "snapshot_kept_at": kept.seq if kept else None,
                },
            }
        finally:
            store.close()


def opening(size: Size | None = None) -> dict[str, Any]:
    """The opening figures on each database of `size`, with the goal, in one run."""
    size = size or Size()
    started = time.perf_counter()
    commands, snapshots = _long_campaign(size)
    short = played(Ruleset.CONVICTION, SHORT, size.short, seed=3)
    _ready_to_roll(short)
    logs = {
        LONG: new_events(Ruleset.CONVICTION, commands, older=True),
        SHORT: new_events(Ruleset.CONVICTION, short.commands, older=True),
    }
    del commands, short
    results: dict[str, Any] = {
        "goal": GOAL,
        "size": {"events": size.events, "short": size.short, "played": size.played, "openings": size.openings},
        "build_s": round(time.perf_counter() - started, 1),
        "upcast_events": sum(e.version < FACT_TYPES[e.type].version for e in logs[LONG]),
    }
    gc.collect()
    gc.freeze()  # the campaigns built are kept out of the collections the openings make
    try:
        with tempfile.TemporaryDirectory(prefix="herotable-bench-opening-") as tmp:
            for kind in size.databases:
                try:
                    results[kind] = _database_run(kind, size, Path(tmp), logs, snapshots)
                except _Unavailable as why:
                    results[kind] = {"skipped": str(why)}
    finally:
        gc.unfreeze()
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


if __name__ == "__main__":
    print(json.dumps(opening(), indent=2))
