"""A campaign's state: remembered, or read from its latest snapshot and the events after it, and carried on over
events another process appended."""

from __future__ import annotations

from collections.abc import Sequence

from herotable.service.common import BrokenLog, LegacyCampaign, fold_log
from herotable.service.memory import Memory, Tops
from herotable.store.port import EventStore, StoredEvent
from herotable.table.fold import STATE_VERSION, FoldError, UndoNeedsHistory, state_from_snapshot
from herotable.table.state import TableState


class States:
    def __init__(self, store: EventStore, memory: Memory) -> None:
        self.store = store
        self.memory = memory

    def state(self, campaign_id: str) -> TableState:
        """The campaign's current state: the remembered or snapshot state plus the newer events. Raises
        UnknownCampaign, LegacyCampaign, BrokenLog."""
        base = self.memory.state(campaign_id, touch=True)
        if base is None:
            row = self.store.campaign(campaign_id)
            if row.log_version < 2:
                raise LegacyCampaign(row)
            snap = self.store.latest_snapshot(campaign_id, STATE_VERSION)
            base = state_from_snapshot(snap.state, check=False) if snap else None
        elif self.store.head(campaign_id) == base.seq:  # nothing new (the common case): one cheap read
            return base
        newer = self.store.load(campaign_id, base.seq if base else 0)
        try:
            state = fold_log(newer, base)
            self.memory.advance(campaign_id, base.seq if base else 0, newer)
        except UndoNeedsHistory:
            state = fold_log(self.store.load(campaign_id))
        except FoldError as err:
            raise BrokenLog(f"campaign {campaign_id!r} cannot be folded: {err}") from None
        self.memory.remember(campaign_id, state)
        if self.memory.tops(campaign_id, state.seq) is None:  # read from a snapshot: learn the tops once, and they
            self.stream_tops(campaign_id, state.seq)  # are carried on over every batch from now on (`advanced`)
        return state

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
