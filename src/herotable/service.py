"""The table service: loads a campaign's state, runs a command through the rules, appends its event with
optimistic concurrency, and hands out per-viewer views. The one place that joins `table` and `store`."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from herotable.conviction.options import CampaignOptions
from herotable.dice import Rng, SystemRng
from herotable.ltl.options import LtlOptions
from herotable.store.export import import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import ConcurrencyError, EventStore, InvalidExport, NewEvent, StoredEvent
from herotable.table.campaign import CreateCampaign
from herotable.table.codec import decode_as, encode
from herotable.table.commands import Command, command_from_json, command_to_json
from herotable.table.fold import EVENT_VERSION, Recorded, ReplayMismatch, execute, replay
from herotable.table.model import Ruleset, TableState
from herotable.table.undo import UNDO_TYPE
from herotable.table.views import may_see_event, view_for

STATE_VERSION = 1  # bump when TableState's shape changes: older snapshots are then ignored, never misread
SNAPSHOT_EVERY = 200
MAX_RETRIES = 20


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def recorded(e: StoredEvent) -> Recorded:
    return Recorded(e.seq, e.command_id, e.actor or "", e.type, e.data)


@dataclass(frozen=True)
class Applied:
    """A command that took effect: its stored events and the campaign state after them."""

    events: list[StoredEvent]
    state: TableState


class TableService:
    """Runs commands against campaigns in `store`. Safe to share between threads; several processes may
    share one database, since every append is checked against the sequence it was computed from."""

    def __init__(
        self,
        store: EventStore,
        *,
        rng: Rng | None = None,
        clock: Callable[[], str] = utc_now,
        snapshot_every: int = SNAPSHOT_EVERY,
    ) -> None:
        self.store = store
        self.rng = rng or SystemRng()
        self.clock = clock
        self.snapshot_every = snapshot_every
        self._cache: dict[str, TableState] = {}
        self._lock = threading.Lock()
        self._listeners: list[Callable[[str, list[StoredEvent]], None]] = []

    def subscribe(self, listener: Callable[[str, list[StoredEvent]], None]) -> None:
        """Call `listener(campaign_id, events)` after every append made through this service."""
        self._listeners.append(listener)

    # --- reading ---

    def state(self, campaign_id: str) -> TableState:
        """The campaign's current state: the cached or snapshot state plus the newer events."""
        with self._lock:
            cached = self._cache.get(campaign_id)
        base = cached
        if base is None:
            snap = self.store.latest_snapshot(campaign_id, STATE_VERSION)
            base = decode_as(TableState, snap.state) if snap else None
        newer = self.store.load(campaign_id, base.seq if base else 0)
        if base is not None and any(e.type == UNDO_TYPE for e in newer):
            undone = {str(e.data["summary"]["undone"]) for e in newer if e.type == UNDO_TYPE}
            if not undone <= {e.command_id for e in newer}:
                base, newer = None, self.store.load(campaign_id)  # an undo reaches back past the base
        state = replay((recorded(e) for e in newer), base)
        with self._lock:
            current = self._cache.get(campaign_id)
            if current is None or current.seq < state.seq:
                self._cache[campaign_id] = state
        return state

    def view(self, campaign_id: str, user: str | None) -> dict[str, Any]:
        return view_for(self.state(campaign_id), user)

    def events_for(self, campaign_id: str, user: str | None, after_seq: int = 0) -> list[StoredEvent]:
        """The events `user` may see, in order. Undone events stay in the log, marked by the undo event."""
        state = self.state(campaign_id)
        return [e for e in self.store.load(campaign_id, after_seq) if may_see_event(state, user, e.visibility, e.owner)]

    # --- writing ---

    def create_campaign(
        self,
        user: str,
        display_name: str,
        title: str,
        ruleset: Ruleset,
        *,
        ltl_options: LtlOptions | None = None,
        cv_options: CampaignOptions | None = None,
        campaign_id: str | None = None,
    ) -> TableState:
        cid = campaign_id or uuid.uuid4().hex[:12]
        cmd = CreateCampaign(
            cid, title, ruleset, user, display_name, ltl_options or LtlOptions(), cv_options or CampaignOptions()
        )
        cmd_id = uuid.uuid4().hex
        executed = execute(TableState(cid, "", ruleset), cmd, user, self.rng, cmd_id)
        self.store.create_campaign(cid, executed.state.name, ruleset.value, self.clock())
        return self._append(
            cid, 0, cmd.name, executed.data, executed.visibility.value, executed.owner, user, executed.state, cmd_id
        ).state

    def execute(self, campaign_id: str, user: str, cmd: Command, *, command_id: str | None = None) -> Applied:
        """Run `cmd` for `user`. A clash with a concurrent command is retried on fresh state; a refusal by the
        rules raises RulesError and writes nothing."""
        cmd_id = command_id or uuid.uuid4().hex
        cmd = command_from_json(command_to_json(cmd))  # run exactly what replay will decode from the log
        for _ in range(MAX_RETRIES):
            state = self.state(campaign_id)
            executed = execute(state, cmd, user, self.rng, cmd_id)
            try:
                return self._append(
                    campaign_id,
                    state.seq,
                    executed.type,
                    executed.data,
                    executed.visibility.value,
                    executed.owner,
                    user,
                    executed.state,
                    cmd_id,
                )
            except ConcurrencyError:
                with self._lock:
                    self._cache.pop(campaign_id, None)
        raise ConcurrencyError(campaign_id, -1, -1)

    def _append(
        self,
        campaign_id: str,
        expected: int,
        kind: str,
        data: dict[str, Any],
        visibility: str,
        owner: str | None,
        user: str,
        after: TableState,
        command_id: str,
    ) -> Applied:
        event = NewEvent(
            kind, data, command_id, self.clock(), actor=user, visibility=visibility, owner=owner, version=EVENT_VERSION
        )
        stored = self.store.append(campaign_id, expected, [event])
        if kind == UNDO_TYPE:
            with self._lock:
                self._cache.pop(campaign_id, None)
            state = self.state(campaign_id)
        else:
            state = replace(after, seq=stored[-1].seq)
            with self._lock:
                self._cache[campaign_id] = state
        if state.seq % self.snapshot_every == 0:
            self.store.save_snapshot(campaign_id, state.seq, encode(state), STATE_VERSION)
        for listener in self._listeners:
            listener(campaign_id, stored)
        return Applied(stored, state)


def verified_import(store: EventStore, document: Any) -> TableState:
    """Import an exported campaign into `store` only if it is intact *and* every event replays to what it
    recorded. Raises InvalidExport with the reason; nothing is written then."""
    scratch = MemoryEventStore()
    row = import_campaign(scratch, document)
    try:
        state = replay_events(scratch.load(row.campaign_id))
    except ReplayMismatch as err:
        raise InvalidExport(str(err)) from None
    import_campaign(store, document)
    return state


def replay_events(events: Sequence[StoredEvent]) -> TableState:
    """Rebuild a state from a whole log (an export) without touching any store."""
    return replay(recorded(e) for e in events)
