"""A campaign read from its newest snapshot and the events after it is the campaign its whole log folds to, on every
backend: along long campaigns of both games played through the legal actions, with facts stored at older versions
(upcast when read), across a change of the state format, and for an undo or a log read that reaches back past the
snapshot."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

from herotable.bench.campaigns import Played, played, record
from herotable.sampler import RARE
from herotable.service import TableService, replay_events
from herotable.service import states as service_states
from herotable.store import EventStore
from herotable.table.audit import audit
from herotable.table.codec import encode, evolved
from herotable.table.commands import Command, command_from_json
from herotable.table.dice_roll import FreeRoll
from herotable.table.facts import FACT_TYPES
from herotable.table.fold import STATE_VERSION, snapshot_of, state_from_snapshot
from herotable.table.render import log_entries
from herotable.table.state import Role, Ruleset, Shelved, TableState
from herotable.table.undo import Undo

from .helpers import CREATED

GAMES = [Ruleset.LTL, Ruleset.CONVICTION]
EVERY = 40  # snapshot_every of the services here: a reading that folds this many events keeps a snapshot
CID = "c1"


def _staying(kind: str) -> float:
    """The sampler's own play, with every member staying and the GM keeping the table (so the GM can act last)."""
    return 0.0 if kind in ("member.remove", "campaign.hand_over") else RARE.get(kind, 1.0)


@functools.cache
def _commands(ruleset: Ruleset, events: int, seed: int) -> tuple[Played, ...]:
    """A campaign played through the legal actions (the same for every backend)."""
    return tuple(played(ruleset, CID, events, seed, prefer=_staying).commands)


def _new(store: EventStore, ruleset: Ruleset, commands: tuple[Played, ...] = ()) -> None:
    store.create_campaign(CID, "Snapshots", ruleset.value, CREATED)
    record(store, CID, ruleset, commands, older=True)


def _reads_after(store: EventStore) -> list[int]:
    """Where each of the store's `load` calls starts from here on (each call still runs)."""
    starts: list[int] = []
    real = store.load

    def load(campaign_id: str, after_seq: int = 0) -> Any:
        starts.append(after_seq)
        return real(campaign_id, after_seq)

    store.load = load  # type: ignore[method-assign]
    return starts


def _whole(store: EventStore) -> TableState:
    return replay_events(store.load(CID))


def _assert_same(state: TableState, other: TableState) -> None:
    """Every field a snapshot keeps, equal as JSON and as values; but a retired character's hero, which a state read
    from a snapshot holds as JSON until the character returns (`Shelved`), is compared as JSON."""
    assert snapshot_of(state) == snapshot_of(other)

    def shelved_as_json(s: TableState) -> TableState:
        return evolved(s, retired=tuple(Shelved(r.ref, encode(r.hero)) for r in s.retired))

    assert shelved_as_json(state) == shelved_as_json(other)


def _upcast(store: EventStore) -> int:
    return sum(e.version < FACT_TYPES[e.type].version for e in store.load(CID))


@pytest.mark.parametrize("ruleset", GAMES, ids=str)
def test_each_snapshot_with_the_events_after_it_is_the_whole_log_folded(store: EventStore, ruleset: Ruleset) -> None:
    commands = _commands(ruleset, 900, seed=11)
    _new(store, ruleset)
    snapshots: list[int] = []
    rng = random.Random(ruleset.value)
    done = 0
    while done < len(commands):
        upto = min(len(commands), done + rng.randint(30, 60))
        record(store, CID, ruleset, commands[done:upto], older=True)
        done = upto
        snap = store.latest_snapshot(CID, STATE_VERSION)
        reads = _reads_after(store)
        loaded = TableService(store, snapshot_every=EVERY).state(CID)  # nothing in memory: the snapshot, then after
        assert reads[0] == (snap.seq if snap else 0)
        assert reads[1:] in ([], [0])  # (from event 1 when an undo after the snapshot reached past it)
        _assert_same(loaded, _whole(store))
        if snap is None:
            continue
        snapshots.append(snap.seq)
        at = replay_events(store.load(CID)[: snap.seq])  # the state the snapshot holds, folded from event 1
        assert snap.seq < loaded.seq
        _assert_same(state_from_snapshot(snap.state, check=False), at)
        _assert_same(state_from_snapshot(snap.state), at)  # read as a restore checks it, every value's type too
        assert dict(snap.state) == snapshot_of(at)
    assert len(snapshots) >= 10, snapshots  # each reading kept one at its head, which the next one started from
    assert _upcast(store) > 0  # the fold after a snapshot and the whole fold ran the upcasters


@pytest.mark.parametrize("ruleset", GAMES, ids=str)
def test_after_the_state_format_changes_the_first_reading_folds_the_whole_log_and_keeps_a_snapshot(
    store: EventStore, ruleset: Ruleset, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands = _commands(ruleset, 900, seed=11)
    _new(store, ruleset, commands[:150])
    before = TableService(store, snapshot_every=EVERY).state(CID)  # kept a snapshot of today's format at its head
    assert store.latest_snapshot(CID, STATE_VERSION) is not None
    record(store, CID, ruleset, commands[150:], older=True)
    store.save_snapshot(CID, store.head(CID), {"an older": "format"}, STATE_VERSION - 1)  # never read again
    monkeypatch.setattr(service_states, "STATE_VERSION", STATE_VERSION + 1)  # an upgrade changed the format
    reads = _reads_after(store)
    loaded = TableService(store, snapshot_every=EVERY).state(CID)
    assert reads == [0]  # no snapshot in its format: the whole log, upcast where older
    _assert_same(loaded, _whole(store))
    assert loaded.seq > before.seq
    kept = store.latest_snapshot(CID, STATE_VERSION + 1)
    assert kept is not None and kept.seq == loaded.seq  # kept at once, at the head: not 200 events later
    _assert_same(state_from_snapshot(kept.state), loaded)
    old = store.latest_snapshot(CID, STATE_VERSION)
    assert old is not None and old.seq == before.seq  # the older formats' snapshots are left as they were
    del reads[:]
    again = TableService(store, snapshot_every=EVERY).state(CID)
    assert reads == [loaded.seq]  # the next reading starts from it, with nothing to fold
    _assert_same(again, loaded)
    assert _upcast(store) > 0


def _hiding_a_handout(state: TableState) -> list[tuple[str, Command]]:
    """The GM's commands that show a new journal entry to a player, then hide it again: the last action."""
    gm, entry = state.gm, f"e{state.journal_made + 1}"
    reader = next(m.user for m in state.members if m.role is Role.PLAYER)
    bodies = [{"type": "campaign.archive", "archived": False}] if state.archived else []
    bodies += [
        {"type": "journal.write", "title": "The map"},
        {"type": "journal.show", "entry": entry, "readers": [reader]},
        {"type": "journal.show", "entry": entry},
    ]
    return [(gm, command_from_json(body)) for body in bodies]


@pytest.mark.parametrize("ruleset", GAMES, ids=str)
def test_an_undo_right_after_a_snapshot_reaches_back_and_shows_again_what_the_action_hid(
    store: EventStore, ruleset: Ruleset
) -> None:
    # R-T-4: the undo restores the state before the action, kept in memory only; a state read from a snapshot
    # does not have it, so the undo is decided on the log folded from its start
    commands = _commands(ruleset, 400, seed=5)
    _new(store, ruleset, commands)
    writer = TableService(store)
    for user, cmd in _hiding_a_handout(writer.state(CID)):
        writer.execute(CID, user, cmd)
    hidden = _whole(store)
    entry = hidden.journal[-1]
    assert entry.readers == ()
    reader = next(m.user for m in hidden.members if m.role is Role.PLAYER)
    store.save_snapshot(CID, hidden.seq, snapshot_of(hidden), STATE_VERSION)
    fresh = TableService(store)
    assert fresh.state(CID).befores == ()  # read from the snapshot: no earlier state known
    applied = fresh.execute(CID, hidden.gm, Undo())
    _assert_same(applied.state, _whole(store))
    assert applied.state.journal[-1].readers == (reader,)
    told = [(e.type, e.visibility, e.owner) for e in applied.events]
    assert told[1:] == [("journal.shown", "owner", reader)]  # the reader's own stream holds the entry again
    assert applied.state.undone - hidden.undone == {applied.events[0].data["command_id"]}


def test_a_campaign_read_from_a_snapshot_reads_and_audits_its_log_back_to_event_1(store: EventStore) -> None:
    commands = _commands(Ruleset.LTL, 900, seed=11)
    _new(store, Ruleset.LTL, commands)
    TableService(store, snapshot_every=EVERY).state(CID)  # keeps a snapshot at the head
    fresh = TableService(store)
    state = fresh.state(CID)
    assert state.befores == () and state.undone  # read from the snapshot alone; the log holds undone actions
    whole = _whole(store)
    pages = []
    page = fresh.stream(CID, state.gm, limit=97)
    while page.seen:
        pages.append(page.seen)
        page = fresh.stream(CID, state.gm, before=page.first, limit=97)
    seen = [s for p in reversed(pages) for s in p]
    assert [s.position for s in seen] == list(range(1, state.seq + 1))  # the GM pages back to event 1
    assert log_entries(state, seen) == log_entries(whole, seen)  # drawn alike: what was undone, by whom
    assert any(entry.undone for entry in log_entries(state, seen))
    assert audit(store.load(CID)).clean  # every command decides again as recorded, older facts upcast
    member = next(m.user for m in state.members if m.role is Role.PLAYER)
    _assert_same(fresh.execute(CID, member, FreeRoll("1d20")).state, _whole(store))
