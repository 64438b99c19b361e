"""Each viewer's own stream of the log: what they may see, numbered for them, read by opaque cursors; and, for the live
frames, what they see of a batch just appended, made without a read."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from herotable.service.common import PAGE, recorded
from herotable.service.memory import Memory
from herotable.service.states import States
from herotable.store.port import EventStore, StoredEvent, StreamCursor
from herotable.table.commands import InvalidCommand
from herotable.table.render import Seen
from herotable.table.state import Role, TableState


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


class Streams:
    def __init__(self, store: EventStore, states: States, memory: Memory) -> None:
        self.store = store
        self.states = states
        self.memory = memory

    def cursor_at(self, campaign_id: str, user: str, role: Role, seq: int) -> str | None:
        """The cursor of `user` (of `role`) in their stream when the log ends at `seq`, the end of a command this
        process appended or folded lately (no read); None when the stream tops there are not remembered."""
        if role is Role.GM:
            return encode_cursor(StreamCursor(seq, 0))
        tops = self.memory.tops_then(campaign_id, seq)
        if tops is None:
            return None
        return encode_cursor(StreamCursor(tops.get(("public", None), 0), tops.get(("owner", user), 0)))

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
        state = state or self.states.state(campaign_id)
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
        found = self.memory.tops_then(state.campaign_id, batch[-1].seq)  # where the streams stand after the batch
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

    def cursor_of(self, state: TableState, user: str) -> str | None:
        """The cursor just after the newest fact `user` may see in `state` itself, or None when that cannot be known
        without a read of the past (the log has moved on since, and the stream tops at `state` are forgotten). A page
        drawn from `state` hands it to its socket, which carries on from it: never a cursor ahead of the page."""
        if state.is_gm(user):
            return encode_cursor(StreamCursor(state.seq, 0))
        tops = self.states.stream_tops(state.campaign_id, state.seq)
        if tops is None:
            tops = self.memory.tops_then(state.campaign_id, state.seq)
        if tops is None:
            return None
        return encode_cursor(StreamCursor(tops.get(("public", None), 0), tops.get(("owner", user), 0)))

    def head_cursor(self, campaign_id: str, user: str, state: TableState | None = None) -> str:
        """The cursor just after the newest fact `user` may see (`state`: as `stream`'s)."""
        if state is not None and state.is_gm(user):  # the GM's cursor is the head of the state the caller read
            return encode_cursor(StreamCursor(state.seq, 0))
        tops = self.states.stream_tops(campaign_id, state.seq) if state is not None else None
        if tops is not None:
            return encode_cursor(StreamCursor(tops.get(("public", None), 0), tops.get(("owner", user), 0)))
        everything = (state or self.states.state(campaign_id)).is_gm(user)
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
