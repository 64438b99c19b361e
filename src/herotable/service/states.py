"""A campaign's state: remembered, or read from its latest snapshot and the events after it, and carried on over
events another process appended; and the snapshots that make the next reading short."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from herotable.service.common import BrokenLog, LegacyCampaign, fold_log
from herotable.service.memory import Memory, Tops
from herotable.store.port import EventStore, StoredEvent, StoreError
from herotable.table.fold import STATE_VERSION, FoldError, UndoNeedsHistory, snapshot_of, state_from_snapshot
from herotable.table.state import TableState

log = logging.getLogger("herotable.service")


class States:
    def __init__(self, store: EventStore, memory: Memory, *, snapshot_every: int) -> None:
        self.store = store
        self.memory = memory
        self.snapshot_every = snapshot_every

    def state(self, campaign_id: str) -> TableState:
        """The campaign's current state: the remembered or snapshot state plus the newer events. Raises
        UnknownCampaign, LegacyCampaign, BrokenLog.

        A campaign read from the store that had to fold `snapshot_every` events or more (it has no snapshot in this
        herotable's state format, after an upgrade that changed it or an import; or an undo reached past its newest
        one) is snapshotted at once, at its head, so the next reading is short again."""
        base = self.memory.state(campaign_id, touch=True)
        read = base is None
        if base is None:
            row = self.store.campaign(campaign_id)
            if row.log_version < 2:
                raise LegacyCampaign(row)
            snap = self.store.latest_snapshot(campaign_id, STATE_VERSION)
            base = state_from_snapshot(snap.state, check=False) if snap else None
        elif self.store.head(campaign_id) == base.seq:  # nothing new (the common case): one cheap read
            return base
        start = base.seq if base else 0
        newer = self.store.load(campaign_id, start)
        try:
            state = fold_log(newer, base)
            self.memory.advance(campaign_id, start, newer)
        except UndoNeedsHistory:  # an undo reaching past the snapshot: from the start (a snapshot kept at the head
            start, state = 0, self._folded_from_start(campaign_id)  # spares the next reading that fold)
        except FoldError as err:
            raise BrokenLog(f"campaign {campaign_id!r} cannot be folded: {err}") from None
        self.memory.remember(campaign_id, state)
        if self.memory.tops(campaign_id, state.seq) is None:  # read from a snapshot: learn the tops once, and they
            self.stream_tops(campaign_id, state.seq)  # are carried on over every batch from now on (`advanced`)
        if read and state.seq - start >= self.snapshot_every:
            self.keep_snapshot(campaign_id, state)
        return state

    def with_history(self, campaign_id: str, state: TableState) -> TableState:
        """`state`, or the campaign's state folded from the log's start when `state` does not know what its newest
        action changed (that action was folded before the state was read from a snapshot, which keeps no earlier
        states): what an undo is decided on, so that it restores, and shows again, all the action took away
        (R-T-4). The state folded is remembered. Raises BrokenLog."""
        if not state.done or state.befores:
            return state
        full = self._folded_from_start(campaign_id)
        self.memory.remember(campaign_id, full)
        return full

    def keep_snapshot(self, campaign_id: str, state: TableState) -> None:
        """Save `state` as a snapshot of the campaign, in this herotable's state format. A snapshot is a shortcut:
        one that cannot be saved is logged, never an error of the command or the reading that made it."""
        try:
            self.store.save_snapshot(campaign_id, state.seq, snapshot_of(state), STATE_VERSION)
        except StoreError:
            log.exception("could not save a snapshot of campaign %s at %s", campaign_id, state.seq)

    def _folded_from_start(self, campaign_id: str) -> TableState:
        """The whole log folded (every earlier state of the undo stack known). Raises BrokenLog."""
        try:
            return fold_log(self.store.load(campaign_id))
        except FoldError as err:
            raise BrokenLog(f"campaign {campaign_id!r} cannot be folded: {err}") from None

    def recent(self, campaign_id: str) -> TableState:
        """The campaign's state in memory, without asking the store whether events landed since (another process's):
        for deciding a command, whose append refuses a stale state and is then decided again on a fresh one. Read
        when nothing is in memory."""
        cached = self.memory.state(campaign_id)
        return cached if cached is not None else self.state(campaign_id)

    def remembered(self, campaign_id: str, seq: int) -> TableState | None:
        """The campaign's state in memory, if it is at `seq` or later (no read: None otherwise)."""
        cached = self.memory.state(campaign_id)
        return cached if cached is not None and cached.seq >= seq else None

    def advanced(self, campaign_id: str, batch: Sequence[StoredEvent]) -> TableState | None:
        """The remembered state carried on over `batch` (events another process appended, read once for the live
        frames) when it ends right before it: remembered and given, with no read. None otherwise."""
        cached = self.memory.state(campaign_id)
        if cached is None or not batch or cached.seq != batch[0].seq - 1:
            return None
        try:
            state = fold_log(batch, cached)
        except (FoldError, BrokenLog):  # an undo reaching past what is remembered, say: `state` reads the store
            return None
        self.memory.remember(campaign_id, state)
        self.memory.advance(campaign_id, cached.seq, batch)
        return state

    def stream_tops(self, campaign_id: str, seq: int) -> Tops | None:
        """The top position of each audience's stream when the log ends at `seq` (public, each member's own, the
        GM's): remembered, else read once; None when the log has moved past `seq`."""
        tops = self.memory.tops(campaign_id, seq)
        if tops is not None:
            return tops
        head, tops = self.store.stream_tops(campaign_id)
        if head != seq:
            return None
        self.memory.learn_tops(campaign_id, head, tops)
        return tops
