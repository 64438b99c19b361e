"""The table service: loads a campaign's state, decides a command into facts, appends them with optimistic
concurrency, folds them, and reads each viewer's own stream. The one place that joins `table` and `store`."""

from __future__ import annotations

import base64
import binascii
import logging
import random
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import pairwise
from typing import Any

from herotable.dice import Rng, SystemRng
from herotable.errors import RulesError
from herotable.store.export import import_campaign
from herotable.store.memory import MemoryEventStore
from herotable.store.port import (
    CampaignRow,
    CatchUp,
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    InvalidExport,
    NewEvent,
    StoredEvent,
    StoreError,
    StreamCursor,
    StreamTops,
)
from herotable.table import campaign_settings, kinds  # noqa: F401  (kinds registers every command, fact and game)
from herotable.table.codec import CodecError
from herotable.table.commands import Command, InvalidCommand, command_from_json, command_to_json
from herotable.table.decide import decide
from herotable.table.facts import FactError, payload_of
from herotable.table.fold import (
    STATE_VERSION,
    FoldError,
    Recorded,
    UndoNeedsHistory,
    facts_of,
    fold,
    recorded_facts,
    snapshot_of,
    state_from_snapshot,
)
from herotable.table.game import LegalAction, game_for
from herotable.table.legal import legal_actions
from herotable.table.render import Seen
from herotable.table.state import Forbidden, Role, Ruleset, TableState
from herotable.table.structure import CreateCampaign
from herotable.table.views import view_for

SNAPSHOT_EVERY = 200
TOPS_KEPT = 1024  # stream tops kept by seq, across campaigns (a few dozen bytes each)
BATCHES_KEPT = 256  # the newest runs of events seen, across campaigns, for answers made without a read
BATCH_KEPT_MOST = 64  # a longer run (a campaign read from far back) is not kept
MAX_RETRIES = 20
RETRY_WAIT_S = 2.0  # at most this long retrying clashes with other writers before answering "busy"
CACHED_CAMPAIGNS = 256  # current states kept in memory, the most recently used
PAGE = 200

log = logging.getLogger(__name__)
# the facts that make a campaign's membership (membership changes are never undone: they are not actions)
MEMBERSHIP_FACTS = frozenset(
    {"campaign.created", "member.joined", "member.role_changed", "member.left", *campaign_settings.LISTED_FACTS}
)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class LegacyCampaign(StoreError):
    """A campaign recorded before events were facts: kept in the store, but this herotable cannot open it."""

    def __init__(self, row: CampaignRow) -> None:
        self.campaign_id = row.campaign_id
        super().__init__(
            f"the campaign {row.name!r} ({row.campaign_id}) was recorded by an older herotable (its events are "
            "version 1 command-events) and cannot be opened by this one. Tip: export and replay it with the "
            "herotable that recorded it"
        )


class BrokenLog(StoreError):
    """A stored log that cannot be folded: damaged, or changed by hand."""


@dataclass(frozen=True)
class Applied:
    """A command that took effect: its stored events and the campaign state after them. `repeated`: the command id
    was already in the log, so nothing was written and these are the events it recorded the first time."""

    events: list[StoredEvent]
    state: TableState
    repeated: bool = False


class CommandIdReused(StoreError):
    """A command id already in the log names another command, or another member's."""

    def __init__(self, command_id: str) -> None:
        super().__init__(
            f"command id {command_id!r} was already used for a different command. Tip: send a new id for a new "
            "command, and the same id only to retry the very same one"
        )


class TableBusy(ConcurrencyError):
    """Other commands kept landing first for the whole retry window."""

    def __init__(self, campaign_id: str, tries: int, waited_s: float) -> None:
        StoreError.__init__(
            self,
            f"campaign {campaign_id!r} is busy: {tries} tries over {waited_s:.1f} s each found another command "
            "recorded first; nothing was changed. Tip: send it again (with the same command id it can never land "
            "twice)",
        )
        self.campaign_id = campaign_id
        self.expected_seq = self.actual_seq = -1


@dataclass(eq=False)
class _Ticket:
    """A command waiting for its campaign's turn. The thread that gets the turn records every command waiting then
    (`_record_group`): `taken` once one has, `applied` or `error` once it is settled; a ticket taken but not settled
    is tried on its own."""

    cmd: Command
    user: str
    command_id: str
    fresh: bool
    taken: bool = False
    applied: Applied | None = None
    error: BaseException | None = None


class _Turn:
    """One campaign's turn in this process (its lock) and the commands queued for it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.waiting: list[_Ticket] = []


class _NothingLeft(Exception):
    """Every command of a group was refused once caught up with another process's: nothing to append."""


@dataclass(frozen=True)
class Page:
    """Part of one viewer's stream: the facts in order, and cursors just before the first and just after the last
    (opaque strings: pass `last` as `after` to catch up, `first` as `before` to page back)."""

    seen: list[Seen] = field(default_factory=list)
    first: str = ""
    last: str = ""


def encode_cursor(c: StreamCursor) -> str:
    return base64.urlsafe_b64encode(f"{c.public}.{c.own}".encode()).decode().rstrip("=")


_CURSOR_TEXT = re.compile(r"[0-9]{1,18}\.[0-9]{1,18}")


def decode_cursor(text: str, field: str = "cursor") -> StreamCursor:
    """A cursor from its opaque form. Raises InvalidCommand (naming `field`) for anything this service did not hand
    out: it must decode to two whole numbers written as `encode_cursor` writes them."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raw = ""
    if not _CURSOR_TEXT.fullmatch(raw):
        raise InvalidCommand(
            "table/bad_cursor",
            f"{field}: that cursor was not handed out here",
            fix="use a cursor from an earlier page or live frame",
            field=field,
        )
    public, own = raw.split(".")
    cursor = StreamCursor(int(public), int(own))
    if encode_cursor(cursor) != text:
        raise InvalidCommand(
            "table/bad_cursor",
            f"{field}: that cursor was not handed out here",
            fix="use a cursor from an earlier page or live frame",
            field=field,
        )
    return cursor


def recorded(stored: Sequence[StoredEvent]) -> list[Recorded]:
    """Stored events as facts to fold. Raises BrokenLog for an event that cannot be read."""
    try:
        return recorded_facts(stored)
    except (FactError, CodecError) as err:
        raise BrokenLog(f"the log cannot be read: {err}") from None


def fold_log(stored: Iterable[StoredEvent], start: TableState | None = None) -> TableState:
    """The state after stored events, each read (decoded, upcast) as it is folded, so a long log never holds all
    its facts at once. Raises BrokenLog for an event that cannot be read, FoldError for a log that contradicts
    itself (UndoNeedsHistory when `start` lacks the history an undo needs)."""
    try:
        return fold(facts_of(stored, skim=True), start)
    except (FactError, CodecError) as err:
        raise BrokenLog(f"the log cannot be read: {err}") from None


class TableService:
    """Runs commands against campaigns in `store`. Safe to share between threads; several processes may share one
    database, since every append is checked against the sequence it was computed from."""

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
        self._cache: OrderedDict[str, TableState] = OrderedDict()
        self._jitter = random.Random()  # spreads the retries of clashing writers
        self._lock = threading.Lock()
        self._writers: dict[str, _Turn] = {}  # one per campaign: this process's commands take turns
        # per remembered campaign, the top position of each audience's stream (see `stream_tops`) at a seq
        self._tops: dict[str, tuple[int, dict[tuple[str, str | None], int]]] = {}
        # the newest few of them by (campaign, seq), for live frames made a little after later commands landed
        self._tops_then: OrderedDict[tuple[str, int], dict[tuple[str, str | None], int]] = OrderedDict()
        # the newest runs of events carried over, by (campaign, first seq): a command's answer holds what landed
        # between the state its member read and the command itself
        self._batches: OrderedDict[tuple[str, int], Sequence[StoredEvent]] = OrderedDict()
        # the hash the log had at the end of each of those commands, by (campaign, seq)
        self._hash_then: OrderedDict[tuple[str, int], str] = OrderedDict()
        self._listeners: list[Callable[[str, list[StoredEvent]], None]] = []
        # campaigns whose last append here caught up with another process's commands (see `_head_hash`)
        self._contended: set[str] = set()

    def subscribe(self, listener: Callable[[str, list[StoredEvent]], None]) -> None:
        """Call `listener(campaign_id, events)` after every append made through this service."""
        self._listeners.append(listener)

    # --- reading ---

    def legacy_campaigns(self) -> list[CampaignRow]:
        """Campaigns recorded before events were facts: kept, never opened."""
        return [row for row in self.store.campaigns() if row.log_version < 2]

    def state(self, campaign_id: str) -> TableState:
        """The campaign's current state: the cached or snapshot state plus the newer events. Raises
        UnknownCampaign, LegacyCampaign, BrokenLog."""
        with self._lock:
            base = self._cache.get(campaign_id)
            if base is not None:
                self._cache.move_to_end(campaign_id)
        if base is None:
            row = self.store.campaign(campaign_id)
            if row.log_version < 2:
                raise LegacyCampaign(row)
            snap = self.store.latest_snapshot(campaign_id, STATE_VERSION)
            base = state_from_snapshot(snap.state) if snap else None
        elif self.store.head(campaign_id) == base.seq:  # nothing new (the common case): one cheap read
            return base
        newer = self.store.load(campaign_id, base.seq if base else 0)
        try:
            state = fold_log(newer, base)
            self._advance_tops(campaign_id, base.seq if base else 0, newer)
        except UndoNeedsHistory:
            state = fold_log(self.store.load(campaign_id))
        except FoldError as err:
            raise BrokenLog(f"campaign {campaign_id!r} cannot be folded: {err}") from None
        self._remember(campaign_id, state)
        if self._known_tops(campaign_id, state.seq) is None:  # read from a snapshot: learn the tops once, and they
            self.stream_tops(campaign_id, state.seq)  # are carried on over every batch from now on (`advanced`)
        return state

    def _remember(self, campaign_id: str, state: TableState) -> None:
        with self._lock:
            current = self._cache.get(campaign_id)
            if current is None or current.seq <= state.seq:
                self._cache[campaign_id] = state
                self._cache.move_to_end(campaign_id)
                while len(self._cache) > CACHED_CAMPAIGNS:
                    gone, _ = self._cache.popitem(last=False)
                    self._tops.pop(gone, None)

    def _advance_tops(self, campaign_id: str, seq: int, events: Sequence[StoredEvent]) -> None:
        """Carry the remembered stream tops at `seq` on over `events` (those right after it), when they are known
        there (always at the start of the log) or at one of `events` (then from there), keeping them as they stand
        after each command among `events` too: a live frame for any one of those batches is then made from the batch
        (see `following`). The hash each of those commands ends on is kept too, to know the batch that follows on
        (`continues`)."""
        with self._lock:
            last = len(events) - 1
            for i, e in enumerate(events):
                if i == last or events[i + 1].command_id != e.command_id:
                    self._hash_then[(campaign_id, e.seq)] = e.hash
            while len(self._hash_then) > TOPS_KEPT:
                self._hash_then.popitem(last=False)
            at, tops = self._tops.get(campaign_id, (0, {}))
            if at != seq:  # known further on already (from another batch folded meanwhile): carry on from there
                events = [e for e in events if e.seq > at] if seq < at else []
                last = len(events) - 1
            if not events:
                return
            tops = dict(tops)
            for i, e in enumerate(events):
                tops[(e.visibility, e.owner)] = e.stream_pos
                if i == last or events[i + 1].command_id != e.command_id:
                    self._tops_then[(campaign_id, e.seq)] = tops
                    tops = dict(tops)
            self._tops[campaign_id] = (events[-1].seq, tops)
            while len(self._tops_then) > TOPS_KEPT:
                self._tops_then.popitem(last=False)
            if len(events) <= BATCH_KEPT_MOST:  # from each command on: an answer may start at any of them
                for i, e in enumerate(events):
                    if i == 0 or events[i - 1].command_id != e.command_id:
                        self._batches[(campaign_id, e.seq)] = events[i:]
                while len(self._batches) > BATCHES_KEPT:
                    self._batches.popitem(last=False)

    def continues(self, campaign_id: str, batch: Sequence[StoredEvent]) -> bool:
        """Whether `batch` (events another process announced) follows on, by the hash chain, from the event right
        before it as this process knows it, each of its events naming the one before. False when that event is not
        known here: the batch is then read from the store rather than taken on trust."""
        if not batch:
            return False
        with self._lock:
            before = self._hash_then.get((campaign_id, batch[0].seq - 1))
        if before is None or batch[0].prev_hash != before:
            return False
        return all(b.prev_hash == a.hash and b.seq == a.seq + 1 for a, b in pairwise(batch))

    def _head_hash(self, campaign_id: str, seq: int) -> str | None:
        """What an append at `seq` tells the store of the hash there, so that it moves the head without reading it:
        the hash of the campaign's event at `seq` when remembered (the end of a command seen lately). None when
        another process's commands are landing in between (the last append here had to catch up): that append
        would find the head moved, and read it anyway."""
        with self._lock:
            if campaign_id in self._contended:
                return None
            return self._hash_then.get((campaign_id, seq))

    def _contention(self, campaign_id: str, caught_up: bool) -> None:
        """Remember whether the campaign's last append here had to catch up with another process's commands."""
        with self._lock:
            if caught_up:
                self._contended.add(campaign_id)
            else:
                self._contended.discard(campaign_id)

    def events_between(self, campaign_id: str, after_seq: int, upto_seq: int) -> list[StoredEvent] | None:
        """The events after `after_seq` up to `upto_seq`, when this process still remembers every one of them (it
        appended or folded them lately); None otherwise (no read)."""
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

    def _known_tops(self, campaign_id: str, seq: int) -> dict[tuple[str, str | None], int] | None:
        """The stream tops at `seq` when they are remembered (no read)."""
        with self._lock:
            at, tops = self._tops.get(campaign_id, (-1, {}))
        return tops if at == seq else None

    def cursor_at(self, campaign_id: str, user: str, role: Role, seq: int) -> str | None:
        """The cursor of `user` (of `role`) in their stream when the log ends at `seq`, the end of a command this
        process appended or folded lately (no read); None when the stream tops there are not remembered."""
        if role is Role.GM:
            return encode_cursor(StreamCursor(seq, 0))
        with self._lock:
            tops = self._tops_then.get((campaign_id, seq))
        if tops is None:
            return None
        return encode_cursor(StreamCursor(tops.get(("public", None), 0), tops.get(("owner", user), 0)))

    def stream_tops(self, campaign_id: str, seq: int) -> dict[tuple[str, str | None], int] | None:
        """The top position of each audience's stream when the log ends at `seq` (public, each member's own, the
        GM's): remembered, else read once; None when the log has moved past `seq`."""
        tops = self._known_tops(campaign_id, seq)
        if tops is not None:
            return tops
        head, tops = self.store.stream_tops(campaign_id)
        if head != seq:
            return None
        with self._lock:
            if campaign_id in self._cache:
                self._tops[campaign_id] = (head, tops)
        return tops

    def recent_state(self, campaign_id: str) -> TableState:
        """The campaign's state in memory, without asking the store whether events landed since (another process's):
        for deciding a command, whose append refuses a stale state and is then decided again on a fresh one. Read
        when nothing is in memory."""
        with self._lock:
            cached = self._cache.get(campaign_id)
        return cached if cached is not None else self.state(campaign_id)

    def advanced(self, campaign_id: str, batch: Sequence[StoredEvent]) -> TableState | None:
        """The remembered state carried on over `batch` (events another process appended, read once for the live
        frames) when it ends right before it: remembered and given, with no read. None otherwise."""
        with self._lock:
            cached = self._cache.get(campaign_id)
        if cached is None or not batch or cached.seq != batch[0].seq - 1:
            return None
        try:
            state = fold_log(batch, cached)
        except (FoldError, BrokenLog):  # an undo reaching past what is remembered, say: `state` reads the store
            return None
        self._remember(campaign_id, state)
        self._advance_tops(campaign_id, cached.seq, batch)
        return state

    def remembered(self, campaign_id: str, seq: int) -> TableState | None:
        """The campaign's state in memory, if it is at `seq` or later (no read: None otherwise)."""
        with self._lock:
            cached = self._cache.get(campaign_id)
        return cached if cached is not None and cached.seq >= seq else None

    def campaigns_of(self, user: str) -> list[tuple[TableState, Role]]:
        """The campaigns `user` belongs to, with their role, oldest first: found in the store's membership read model
        (the user's rows alone), then each folded from its own membership facts, never from a whole log. What it
        reads grows with the user's campaigns, never with anyone else's. Each state holds the campaign's name, game,
        members and whether it is archived, and nothing of its play."""
        rows = self.store.memberships_of(user)
        by_campaign: dict[str, list[StoredEvent]] = {}
        for e in self.store.events_of_types(MEMBERSHIP_FACTS, [row.campaign_id for row in rows]):
            by_campaign.setdefault(e.campaign_id, []).append(e)
        out = []
        for row in rows:
            events = by_campaign.get(row.campaign_id)
            if not events:  # deleted since its row was read
                continue
            members = fold_log(events)
            role = members.role_of(user)
            if role is not None:
                out.append((members, role))
        return out

    def view(self, campaign_id: str, user: str | None) -> dict[str, Any]:
        return view_for(self.state(campaign_id), user)

    def legal_actions(self, campaign_id: str, user: str) -> list[LegalAction]:
        return legal_actions(self.state(campaign_id), user)

    def stream(
        self,
        campaign_id: str,
        user: str | None,
        *,
        after: str | None = None,
        before: str | None = None,
        limit: int = PAGE,
        untrusted: bool = False,
        state: TableState | None = None,
    ) -> Page:
        """What `user` may see of the log, numbered in their own stream: after a cursor (catching up), or the newest
        before one (paging back); with neither, the newest page. Non-members see nothing. Cursors from a client
        (`untrusted`) are checked against the end of the viewer's stream; the live path's own are not, which saves
        a query a frame. `state` is the campaign's state when the caller has just read or made it (a command's
        answer), which saves a read. Raises InvalidCommand for a cursor that is not one of ours."""
        known = state is not None
        state = state or self.state(campaign_id)
        role = state.role_of(user)
        if role is None:
            return Page()
        everything = role is Role.GM
        if after is not None and before is not None:
            raise InvalidCommand(
                "table/two_cursors",
                "give a cursor to read after, or one to read before, not both",
                fix="catch up with after, or page back with before",
                field="before",
            )
        start = decode_cursor(after, "after") if after is not None else None
        end = decode_cursor(before, "before") if before is not None else None
        if untrusted or (start is None and end is None):
            head = self.store.stream_head(campaign_id, user, everything=everything, known=known)
            for name, cursor in (("after", start), ("before", end)):
                if cursor is not None and (cursor.public > head.public or cursor.own > head.own):
                    raise InvalidCommand(
                        "table/bad_cursor",
                        f"{name}: that cursor is past the end of your stream",
                        fix="use a cursor from an earlier page or live frame",
                        field=name,
                    )
            if start is None and end is None:
                end = head
        if start is not None:
            events = self.store.read_stream(
                campaign_id, user, everything=everything, after=start, limit=limit, known=known
            )
            return self._forward(events, start, everything)
        assert end is not None
        events = self.store.read_stream(campaign_id, user, everything=everything, before=end, limit=limit, known=known)
        return self._backward(events, end, everything)

    def following(self, state: TableState, user: str, cursor: str, batch: Sequence[StoredEvent]) -> Page | None:
        """What `user` (at `cursor` in their stream) sees of `batch`, events just appended in one go, without reading
        the store: the page `stream(after=cursor)` would read, or None when the batch does not follow straight on from
        the cursor on both of the viewer's streams (the viewer is behind), or when the remembered stream tops are not
        those right after the batch: then read the store. An empty page when the viewer is past the batch already.
        `state`: the campaign's, at the batch or later."""
        role = state.role_of(user)
        if role is None or not batch:
            return None
        everything = role is Role.GM
        start = decode_cursor(cursor)
        if everything:
            if batch[-1].seq <= start.public:  # an announcement that comes late: the viewer has it all already
                return Page([], cursor, cursor)
            return self._forward(batch, start, True) if batch[0].seq == start.public + 1 else None
        with self._lock:  # the tops after the batch, to know where a stream the batch leaves alone stands
            found = self._tops_then.get((state.campaign_id, batch[-1].seq))
        if found is None:
            return None
        tops = found
        if tops.get(("public", None), 0) <= start.public and tops.get(("owner", user), 0) <= start.own:
            return Page([], cursor, cursor)  # late: the viewer is past the batch on both of its streams
        seen = [e for e in batch if e.visibility == "public" or (e.visibility == "owner" and e.owner == user)]
        first_public = next((e.stream_pos for e in seen if e.visibility == "public"), None)
        first_own = next((e.stream_pos for e in seen if e.visibility != "public"), None)
        public = tops.get(("public", None), 0) if first_public is None else first_public - 1
        own = tops.get(("owner", user), 0) if first_own is None else first_own - 1
        if (public, own) != (start.public, start.own):  # the viewer is behind (or ahead) on one of its streams
            return None
        return self._forward(seen, start, False)

    def head_cursor(self, campaign_id: str, user: str, state: TableState | None = None) -> str:
        """The cursor just after the newest fact `user` may see (`state`: as `stream`'s)."""
        if state is not None and state.is_gm(user):  # the GM's cursor is the head of the state the caller read
            return encode_cursor(StreamCursor(state.seq, 0))
        tops = self.stream_tops(campaign_id, state.seq) if state is not None else None
        if tops is not None:
            return encode_cursor(StreamCursor(tops.get(("public", None), 0), tops.get(("owner", user), 0)))
        everything = (state or self.state(campaign_id)).is_gm(user)
        return encode_cursor(self.store.stream_head(campaign_id, user, everything=everything, known=state is not None))

    @staticmethod
    def _seen(events: Sequence[StoredEvent], positions: Sequence[int]) -> list[Seen]:
        return [
            Seen(pos, r.command_id, e.actor, e.at, e.visibility, r.fact, r.command_type)
            for e, r, pos in zip(events, recorded(events), positions, strict=True)
        ]

    def _forward(self, events: Sequence[StoredEvent], start: StreamCursor, everything: bool) -> Page:
        public, own = start.public, start.own
        positions = []
        for e in events:
            if everything:
                public = e.seq
            elif e.visibility == "public":
                public = e.stream_pos
            else:
                own = e.stream_pos
            positions.append(public + own)
        return Page(self._seen(events, positions), encode_cursor(start), encode_cursor(StreamCursor(public, own)))

    def _backward(self, events: Sequence[StoredEvent], end: StreamCursor, everything: bool) -> Page:
        public, own = end.public, end.own
        positions: list[int] = []
        for e in reversed(events):
            if everything:
                positions.append(e.seq)
                public = e.seq - 1
                continue
            positions.append(public + own)
            if e.visibility == "public":
                public = e.stream_pos - 1
            else:
                own = e.stream_pos - 1
        last = end if not events or not everything else StreamCursor(events[-1].seq, 0)
        return Page(self._seen(events, positions[::-1]), encode_cursor(StreamCursor(public, own)), encode_cursor(last))

    # --- writing ---

    def create_campaign(
        self,
        user: str,
        display_name: str,
        title: str,
        ruleset: Ruleset,
        *,
        options: dict[str, Any] | None = None,
        campaign_id: str | None = None,
    ) -> TableState:
        cid = campaign_id or uuid.uuid4().hex[:12]
        cmd = command_from_json(
            command_to_json(CreateCampaign(cid, title, ruleset, user, display_name, dict(options or {})))
        )
        empty = TableState(cid, "", ruleset)
        command_id = uuid.uuid4().hex
        decided = decide(empty, cmd, user, self.rng, command_id)
        self.store.create_campaign(cid, title.strip() or cid, ruleset.value, self.clock())
        return self._landed(
            cid, empty, self._append(cid, empty, cmd, user, decided.facts, decided.dice, command_id)
        ).state

    def delete_campaign(self, campaign_id: str, user: str) -> None:
        """Delete the campaign for good, its log, snapshots and invitations with it: the GM's alone, and not a fact,
        since nothing is left to hold one (the GM may export it first). Listeners are told, with no events. Raises
        Forbidden, UnknownCampaign."""
        if not self.state(campaign_id).is_gm(user):
            raise Forbidden(
                "campaign/not_gm", "only the GM deletes the campaign", fix="ask the GM", ruling=campaign_settings.RULE
            )
        self.store.delete_campaign(campaign_id)
        self._forget(campaign_id)
        for listener in self._listeners:  # told with no events: live viewers learn that the campaign is gone
            try:
                listener(campaign_id, [])
            except Exception:  # the campaign is deleted: a listener that fails must not hide that
                log.exception("a listener failed after campaign %s was deleted", campaign_id)

    def _forget(self, campaign_id: str) -> None:
        """Drop all that is remembered of the campaign: its state, stream tops and recent events."""
        with self._lock:
            self._cache.pop(campaign_id, None)
            self._tops.pop(campaign_id, None)
            for key in [key for key in self._tops_then if key[0] == campaign_id]:
                del self._tops_then[key]
            for key in [key for key in self._batches if key[0] == campaign_id]:
                del self._batches[key]
            for key in [key for key in self._hash_then if key[0] == campaign_id]:
                del self._hash_then[key]
            self._contended.discard(campaign_id)

    def execute(
        self,
        campaign_id: str,
        user: str,
        cmd: Command,
        *,
        command_id: str | None = None,
        fresh: bool = False,
        state: TableState | None = None,
    ) -> Applied:
        """Run `cmd` for `user`. A command of another process that landed first is folded in and `cmd` decided again
        within the append, with the campaign held (see `_append`); when that cannot be done, it is retried on fresh
        state after a short random wait, for at most RETRY_WAIT_S (then TableBusy). A refusal by the rules raises
        RulesError and writes nothing.

        A `command_id` already in the log makes this a retry: when it names the same command by the same member,
        nothing is written and the first result is returned (`repeated`); otherwise CommandIdReused. `fresh`: the
        caller made `command_id` itself just now, so no earlier landing is looked for. The first try is with the
        commands queued beside it (`_record_group`), on the state this process remembers; one that group leaves out
        is tried on its own. `state`: the campaign's state as the caller knows it (`recent_state`), decided on first
        then instead of reading it again: a stale one costs a retry when it clashes, and a refusal on it is checked
        on a fresh read before it is given."""
        cmd = command_from_json(command_to_json(cmd))  # decide exactly what the log will record
        if command_id is not None and not fresh:
            first = self._recorded(campaign_id, user, cmd, command_id)
            if first is not None:
                return first
        command_id = command_id or uuid.uuid4().hex
        ticket = _Ticket(cmd, user, command_id, fresh)
        turn = self._turn(campaign_id)
        with self._lock:
            turn.waiting.append(ticket)
        led: tuple[TableState, Applied] | None = None
        with turn.lock:  # a command of this process never clashes with another of this process: they take turns
            if not ticket.taken:
                with self._lock:
                    group, turn.waiting = turn.waiting, []
                for t in group:
                    t.taken = True
                # with the commands that queued while the one before them was recorded: one append
                led = self._record_group(campaign_id, group, turn)
        if led is not None:
            self._landed(campaign_id, *led)
        if ticket.error is not None:
            raise ticket.error
        if ticket.applied is not None:
            return ticket.applied
        started = time.monotonic()
        for attempt in range(1, MAX_RETRIES + 1):
            with turn.lock:
                applied, state = self._attempt(campaign_id, ticket, None if attempt > 1 else state)
            if applied is not None:
                return applied if applied.repeated else self._landed(campaign_id, state, applied)
            waited = time.monotonic() - started
            if waited >= RETRY_WAIT_S:
                raise TableBusy(campaign_id, attempt, waited)
            # full jitter: a random wait up to a doubling cap, so clashing writers spread out
            time.sleep(min(RETRY_WAIT_S - waited, self._jitter.uniform(0, 0.005 * 2**attempt)))
        raise TableBusy(campaign_id, MAX_RETRIES, time.monotonic() - started)

    def _attempt(self, campaign_id: str, t: _Ticket, state: TableState | None) -> tuple[Applied | None, TableState]:
        """One try at recording `t` on its own, the campaign's turn held: decided on `state` (or a newer one this
        process remembers; read when None) and appended. Gives None when it clashed with another process's command
        in a way the append could not catch up with (try again on a fresh read), with the state it was decided on."""
        read = state is None
        if state is None:
            state = self.state(campaign_id)
        else:  # one of this process's commands may have landed while this one waited its turn
            state = self.remembered(campaign_id, state.seq + 1) or state
        try:
            decided = decide(state, t.cmd, t.user, self.rng, t.command_id)
        except RulesError:
            if read:
                raise
            state = self.state(campaign_id)  # refuse only on what the log holds now
            decided = decide(state, t.cmd, t.user, self.rng, t.command_id)
        try:
            applied = self._append(
                campaign_id, state, t.cmd, t.user, decided.facts, decided.dice, t.command_id, fresh_ids=t.fresh
            )
        except DuplicateCommand:  # the same retry landed meanwhile, from another request
            first = self._recorded(campaign_id, t.user, t.cmd, t.command_id)
            if first is None:
                raise
            return first, state
        except ConcurrencyError as clash:  # could not be decided again in the append: on a fresh read
            if clash.actual_seq < state.seq:  # the log is behind what is remembered: it was replaced
                self._forget(campaign_id)  # (deleted and imported again, on another process)
            return None, state
        return applied, state

    def _record_group(self, campaign_id: str, group: list[_Ticket], turn: _Turn) -> tuple[TableState, Applied] | None:
        """Record the commands of `group`, in the order they queued, in one append (group commit: one transaction
        and one durable commit for them all). Each is decided on the state the ones before it lead to. When the
        append finds another process's commands landed first, the commands of this process that queued for the
        campaign's `turn` meanwhile (while the other process held it) join the group (`_joining`). One the rules
        refuse, or that cannot be decided, is left to be tried on its own (`execute`), as is every one when the
        append clashes in a way it cannot catch up with; an error of the store is every one's error. Sets each
        recorded ticket's `applied`, and gives the state before and everything recorded (for `_landed`)."""
        try:
            start = self.recent_state(campaign_id)
        except Exception:  # each finds out on its own (an unknown campaign, say)
            return None
        planned = self._plan(start, group)
        if not planned:
            return None
        ruleset = start.ruleset

        def events_of(plan: list[tuple[_Ticket, Any, TableState]]) -> list[NewEvent]:
            return [
                e
                for t, decided, _ in plan
                for e in self._new_events(ruleset, t.cmd, t.user, t.command_id, decided.facts, decided.dice)
            ]

        fresh_ids = all(t.fresh for t, _, _ in planned)

        def catch_up(newer: Sequence[StoredEvent]) -> tuple[list[NewEvent], StreamTops | None]:
            nonlocal start, planned
            caught = self._caught_up(campaign_id, start, newer)  # (when it cannot be: each on its own)
            tickets = [t for t, _, _ in planned] + self._joining(turn, fresh_ids)
            start, planned = caught, self._plan(caught, tickets)
            if not planned:
                raise _NothingLeft
            return events_of(planned), self._known_tops(campaign_id, caught.seq)

        try:
            tops = self.stream_tops(campaign_id, start.seq)
        except Exception:  # a read that failed: nothing written, each tries on its own
            return None
        try:
            stored = self._appended(campaign_id, start.seq, events_of(planned), fresh_ids, tops, catch_up)
        except (ConcurrencyError, DuplicateCommand, _NothingLeft) as clash:  # nothing written: each on its own
            if isinstance(clash, ConcurrencyError) and 0 <= clash.actual_seq < start.seq:
                self._forget(campaign_id)
            return None
        except Exception as error:  # nothing written, or not known to be: no command may be tried again
            for t, _, _ in planned:
                t.error = error
            return None
        offset = 0
        for t, decided, after in planned:  # decided on the seqs they were stored at: the states are the folds
            t.applied = Applied(stored[offset : offset + len(decided.facts)], after)
            offset += len(decided.facts)
        final = planned[-1][2]
        self._remember(campaign_id, final)
        return start, Applied(stored, final)

    def _joining(self, turn: _Turn, fresh_ids: bool) -> list[_Ticket]:
        """The commands queued for `turn` now, taken to join the group being recorded: under contention they queue
        while another process holds the campaign, and would otherwise each wait for an append of its own. With
        `fresh_ids` (the append looks for no earlier landing of its command ids) only those whose id is fresh too."""
        joining: list[_Ticket] = []
        staying: list[_Ticket] = []
        with self._lock:
            for t in turn.waiting:
                (joining if t.fresh or not fresh_ids else staying).append(t)
            turn.waiting = staying
        for t in joining:
            t.taken = True
        return joining

    def _plan(self, state: TableState, tickets: Sequence[_Ticket]) -> list[tuple[_Ticket, Any, TableState]]:
        """Each of `tickets` decided on the state the ones before it lead to, with that state after it, as if
        appended right after `state`; one that cannot be (refused, say) is left out, as is one whose command id an
        earlier one has (the same command sent again before the first landed)."""
        planned: list[tuple[_Ticket, Any, TableState]] = []
        ids: set[str] = set()
        for t in tickets:
            if t.command_id in ids:  # a retry queued beside its first try: answered alone, as a repeat (or refused)
                continue
            try:
                decided = decide(state, t.cmd, t.user, self.rng, t.command_id)
                after = fold(
                    (
                        Recorded(state.seq + n, t.command_id, t.user, t.cmd.type, e.fact, e.visibility, e.owner)
                        for n, e in enumerate(decided.facts, start=1)
                    ),
                    state,
                )
            except Exception:  # refused, or an undo that needs history: tried on its own, where it is answered
                continue
            if decided.facts:
                planned.append((t, decided, after))
                ids.add(t.command_id)
                state = after
        return planned

    def _turn(self, campaign_id: str) -> _Turn:
        """The lock this process's commands on the campaign take in turn: they queue rather than clash."""
        with self._lock:
            found = self._writers.get(campaign_id)
            if found is None:
                found = self._writers[campaign_id] = _Turn()
            return found

    def _recorded(self, campaign_id: str, user: str, cmd: Command, command_id: str) -> Applied | None:
        """The first result of a command id already in the log, if it names this command by this member."""
        events = self.store.command_events(campaign_id, command_id)
        if not events:
            return None
        body = (events[0].command or {}).get("body")
        if events[0].actor != user or body != command_to_json(cmd):
            raise CommandIdReused(command_id)
        return Applied(events, self.state(campaign_id), repeated=True)

    def _caught_up(self, campaign_id: str, state: TableState, newer: Sequence[StoredEvent]) -> TableState:
        """`state` carried on over `newer`, the events of another process's commands an append handed over, and
        remembered. Raises ConcurrencyError when they cannot be folded there (an undo reaching past what `state`
        remembers), which the append passes on with nothing written."""
        try:
            caught = fold_log(newer, state)
        except (FoldError, BrokenLog):
            raise ConcurrencyError(campaign_id, state.seq, newer[-1].seq if newer else state.seq) from None
        self._advance_tops(campaign_id, state.seq, newer)
        self._remember(campaign_id, caught)
        return caught

    def _new_events(
        self,
        ruleset: Ruleset,
        cmd: Command,
        user: str,
        command_id: str,
        facts: Sequence[Any],
        dice: list[tuple[int, int]],
    ) -> list[NewEvent]:
        """The events that record `facts`, decided for `cmd` with `dice`: the command and its dice on the first."""
        at = self.clock()  # when decided: a command decided again after another's lands after it in time too
        record = {"body": command_to_json(cmd), "dice": [list(d) for d in dice]}
        rules_version = game_for(ruleset).rules_version
        return [
            NewEvent(
                e.fact.type,
                payload_of(e.fact),
                command_id,
                at,
                actor=user,
                visibility=e.visibility.value,
                owner=e.owner,
                version=e.fact.version,
                rules_version=rules_version,
                command=record if i == 0 else None,
            )
            for i, e in enumerate(facts)
        ]

    def _append(
        self,
        campaign_id: str,
        state: TableState,
        cmd: Command,
        user: str,
        facts: Sequence[Any],
        dice: list[tuple[int, int]],
        command_id: str,
        *,
        fresh_ids: bool = False,
    ) -> Applied:
        """Record the facts `cmd` decided on `state`. When another process's command landed meanwhile, the store
        hands its events over with the campaign held: they are folded onto `state` and `cmd` is decided again on what
        they lead to (a refusal then raises RulesError, with nothing written), so writers queue instead of retrying.
        Raises ConcurrencyError when that cannot be done from `state` (an undo reaching past it, say)."""

        def events_of(facts: Sequence[Any], dice: list[tuple[int, int]]) -> list[NewEvent]:
            return self._new_events(state.ruleset, cmd, user, command_id, facts, dice)

        def catch_up(newer: Sequence[StoredEvent]) -> tuple[list[NewEvent], StreamTops | None]:
            nonlocal state, facts
            caught = self._caught_up(campaign_id, state, newer)  # (when it cannot be: decided again on a read)
            again = decide(caught, cmd, user, self.rng, command_id)
            state, facts = caught, again.facts
            return events_of(again.facts, again.dice), self._known_tops(campaign_id, caught.seq)

        tops = self.stream_tops(campaign_id, state.seq)
        stored = self._appended(campaign_id, state.seq, events_of(facts, dice), fresh_ids, tops, catch_up)
        try:
            new = fold(
                (
                    Recorded(s.seq, command_id, user, cmd.type, e.fact, e.visibility, e.owner)
                    for s, e in zip(stored, facts, strict=True)
                ),
                state,
            )
        except UndoNeedsHistory:  # the state came from a snapshot, which keeps no earlier states
            new = fold_log(self.store.load(campaign_id))
        self._remember(campaign_id, new)
        return Applied(stored, new)

    def _appended(
        self,
        campaign_id: str,
        seq: int,
        events: list[NewEvent],
        fresh_ids: bool,
        tops: StreamTops | None,
        catch_up: CatchUp,
    ) -> list[StoredEvent]:
        """`events` appended after `seq`, the stream `tops` there given: moved from the head's hash when this process
        knows it, and `catch_up` called by the store when another process's commands landed first. Remembers whether
        they did (`_contention`) and carries the stream tops on over what was stored."""
        handed = False

        def caught(newer: Sequence[StoredEvent]) -> tuple[Sequence[NewEvent], StreamTops | None]:
            nonlocal handed
            handed = True
            return catch_up(newer)

        stored = self.store.append(
            campaign_id,
            seq,
            events,
            fresh_ids=fresh_ids,
            stream_tops=tops,
            catch_up=caught,
            head_hash=self._head_hash(campaign_id, seq),
        )
        self._contention(campaign_id, handed)
        self._advance_tops(campaign_id, stored[0].seq - 1, stored)
        return stored

    def _landed(self, campaign_id: str, before: TableState, applied: Applied) -> Applied:
        """What follows a recorded command, once the campaign's turn is given up (a slow Redis or a snapshot must not
        hold the next command): a snapshot when one is due, and the listeners (live updates)."""
        new = applied.state
        if new.seq // self.snapshot_every > before.seq // self.snapshot_every:
            try:
                self.store.save_snapshot(campaign_id, new.seq, snapshot_of(new), STATE_VERSION)
            except StoreError:  # a snapshot is a shortcut: the command is recorded whatever becomes of it
                log.exception("could not save a snapshot of campaign %s at %s", campaign_id, new.seq)
        for listener in self._listeners:
            try:
                listener(campaign_id, applied.events)
            except Exception:  # the command is recorded: a listener that fails (live updates) must not undo that
                log.exception("a listener failed after campaign %s recorded %s", campaign_id, new.last_command)
        return applied


def replay_events(events: Sequence[StoredEvent]) -> TableState:
    """Fold a whole log (an export) without touching any store. Raises BrokenLog."""
    try:
        return fold_log(events)
    except FoldError as err:
        raise BrokenLog(f"the log cannot be folded: {err}") from None


def verified_import(store: EventStore, document: Any) -> TableState:
    """Import an exported campaign into `store` only if it is intact: its digest and hash chain hold, and every
    event folds. Raises InvalidExport with the reason; nothing is written then."""
    scratch = MemoryEventStore()
    row = import_campaign(scratch, document)
    try:
        state = replay_events(scratch.load(row.campaign_id))
    except BrokenLog as err:
        raise InvalidExport(err.reason) from None
    import_campaign(store, document)
    return state
