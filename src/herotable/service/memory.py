"""What the table service remembers of recent campaigns, in one place with one lock: their current states, the tops
of each audience's stream, the runs of events lately appended or folded and the hash each command ended on. Nothing
here reads the store; everything is a shortcut that a read replaces when it is gone.

Eviction, in `_evict`: states are kept for the most recently used `cached` campaigns (CACHED_CAMPAIGNS unless told;
a campaign's current stream tops go with its state); the tops and hashes at the end of each command for the newest
TOPS_KEPT commands, and the runs of events from each for the newest BATCHES_KEPT, across campaigns."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from itertools import pairwise

from herotable.service.common import BATCH_KEPT_MOST, BATCHES_KEPT, CACHED_CAMPAIGNS, TOPS_KEPT
from herotable.store.port import StoredEvent
from herotable.table.state import TableState

Tops = dict[tuple[str, str | None], int]


class Memory:
    def __init__(self, cached: int | None = None) -> None:
        self.cached = CACHED_CAMPAIGNS if cached is None else cached
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, TableState] = OrderedDict()
        # per remembered campaign, the top position of each audience's stream (see `Streams.tops`) at a seq
        self._tops: dict[str, tuple[int, Tops]] = {}
        # the newest few of them by (campaign, seq), for live frames made a little after later commands landed
        self._tops_then: OrderedDict[tuple[str, int], Tops] = OrderedDict()
        # the newest runs of events carried over, by (campaign, first seq): a command's answer holds what landed
        # between the state its member read and the command itself
        self._batches: OrderedDict[tuple[str, int], Sequence[StoredEvent]] = OrderedDict()
        # the hash the log had at the end of each of those commands, by (campaign, seq)
        self._hash_then: OrderedDict[tuple[str, int], str] = OrderedDict()
        # campaigns whose last append here caught up with another process's commands (see `head_hash`)
        self._contended: set[str] = set()

    # --- states ---

    def state(self, campaign_id: str, touch: bool = False) -> TableState | None:
        """The remembered current state, if any; `touch`: as one just used (the last to be evicted)."""
        with self._lock:
            found = self._cache.get(campaign_id)
            if found is not None and touch:
                self._cache.move_to_end(campaign_id)
            return found

    def remember(self, campaign_id: str, state: TableState) -> None:
        """Keep `state` as the campaign's current one, unless a newer one is kept already."""
        with self._lock:
            current = self._cache.get(campaign_id)
            if current is None or current.seq <= state.seq:
                self._cache[campaign_id] = state
                self._cache.move_to_end(campaign_id)
                self._evict()

    def forget(self, campaign_id: str) -> None:
        """Drop all that is remembered of the campaign: its state, stream tops and recent events."""
        with self._lock:
            self._cache.pop(campaign_id, None)
            self._tops.pop(campaign_id, None)
            for kept in (self._tops_then, self._batches, self._hash_then):
                for key in [key for key in kept if key[0] == campaign_id]:
                    del kept[key]
            self._contended.discard(campaign_id)

    # --- stream tops and recent runs ---

    def advance(self, campaign_id: str, seq: int, events: Sequence[StoredEvent]) -> None:
        """Carry the remembered stream tops at `seq` on over `events` (those right after it), when they are known
        there (always at the start of the log) or at one of `events` (then from there), keeping them as they stand
        after each command among `events` too: a live frame for any one of those batches is then made from the batch
        (see `Streams.following`). The hash each of those commands ends on is kept too, to know the batch that
        follows on (`continues`)."""
        with self._lock:
            last = len(events) - 1
            for i, e in enumerate(events):
                if i == last or events[i + 1].command_id != e.command_id:
                    self._hash_then[(campaign_id, e.seq)] = e.hash
            at, tops = self._tops.get(campaign_id, (0, {}))
            if at != seq:  # known further on already (from another batch folded meanwhile): carry on from there
                events = [e for e in events if e.seq > at] if seq < at else []
                last = len(events) - 1
            if events:
                tops = dict(tops)
                for i, e in enumerate(events):
                    tops[(e.visibility, e.owner)] = e.stream_pos
                    if i == last or events[i + 1].command_id != e.command_id:
                        self._tops_then[(campaign_id, e.seq)] = tops
                        tops = dict(tops)
                self._tops[campaign_id] = (events[-1].seq, tops)
                if len(events) <= BATCH_KEPT_MOST:  # from each command on: an answer may start at any of them
                    for i, e in enumerate(events):
                        if i == 0 or events[i - 1].command_id != e.command_id:
                            self._batches[(campaign_id, e.seq)] = events[i:]
            self._evict()

    def tops(self, campaign_id: str, seq: int) -> Tops | None:
        """The campaign's current stream tops when they are remembered at `seq`."""
        with self._lock:
            at, tops = self._tops.get(campaign_id, (-1, {}))
        return tops if at == seq else None

    def learn_tops(self, campaign_id: str, seq: int, tops: Tops) -> None:
        """The stream tops read at `seq`, kept while the campaign's state is."""
        with self._lock:
            if campaign_id in self._cache:
                self._tops[campaign_id] = (seq, tops)

    def tops_then(self, campaign_id: str, seq: int) -> Tops | None:
        """The stream tops at the end of a command appended or folded lately, ending at `seq`."""
        with self._lock:
            return self._tops_then.get((campaign_id, seq))

    def events_between(self, campaign_id: str, after_seq: int, upto_seq: int) -> list[StoredEvent] | None:
        """The events after `after_seq` up to `upto_seq`, when every one of them is remembered; None otherwise."""
        found: list[StoredEvent] = []
        seq = after_seq
        with self._lock:
            while seq < upto_seq:
                run = self._batches.get((campaign_id, seq + 1))
                if run is None:
                    return None
                found.extend(e for e in run if e.seq <= upto_seq)
                seq = found[-1].seq
        return found

    def continues(self, campaign_id: str, batch: Sequence[StoredEvent]) -> bool:
        """Whether `batch` (events another process announced) follows on, by the hash chain, from the event right
        before it as remembered here, each of its events naming the one before. False when that event is not
        remembered: the batch is then read from the store rather than taken on trust."""
        if not batch:
            return False
        with self._lock:
            before = self._hash_then.get((campaign_id, batch[0].seq - 1))
        if before is None or batch[0].prev_hash != before:
            return False
        return all(b.prev_hash == a.hash and b.seq == a.seq + 1 for a, b in pairwise(batch))

    # --- contention ---

    def head_hash(self, campaign_id: str, seq: int) -> str | None:
        """What an append at `seq` tells the store of the hash there, so that it moves the head without reading it:
        the hash of the campaign's event at `seq` when remembered (the end of a command seen lately). None when
        another process's commands are landing in between (the last append here had to catch up): that append
        would find the head moved, and read it anyway."""
        with self._lock:
            if campaign_id in self._contended:
                return None
            return self._hash_then.get((campaign_id, seq))

    def contention(self, campaign_id: str, caught_up: bool) -> None:
        """Remember whether the campaign's last append here had to catch up with another process's commands."""
        with self._lock:
            if caught_up:
                self._contended.add(campaign_id)
            else:
                self._contended.discard(campaign_id)

    def _evict(self) -> None:
        """The one eviction rule (see the module's doc); the lock is held."""
        while len(self._cache) > self.cached:
            gone, _ = self._cache.popitem(last=False)
            self._tops.pop(gone, None)
        while len(self._hash_then) > TOPS_KEPT:
            self._hash_then.popitem(last=False)
        while len(self._tops_then) > TOPS_KEPT:
            self._tops_then.popitem(last=False)
        while len(self._batches) > BATCHES_KEPT:
            self._batches.popitem(last=False)
