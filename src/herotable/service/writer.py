"""The writer: a command's path from the state it is decided on to the events that record it and the listeners
told of them. Commands of this process on one campaign take turns and go in groups (one append for the commands
queued together); another process's commands that landed first are handed over by the store inside its
transaction, through the `CatchUp` port of `herotable.store.port`, and the commands are decided again on them."""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from herotable.dice import Rng
from herotable.errors import RulesError
from herotable.service.common import MAX_RETRIES, RETRY_WAIT_S, Applied, BrokenLog, fold_log
from herotable.service.memory import Memory
from herotable.service.states import States
from herotable.store.port import (
    CatchUp,
    ConcurrencyError,
    DuplicateCommand,
    EventStore,
    NewEvent,
    StoredEvent,
    StoreError,
    StreamTops,
)
from herotable.table.commands import Command, command_from_json, command_to_json
from herotable.table.decide import decide
from herotable.table.facts import payload_of
from herotable.table.fold import UNDO_TYPE, FoldError, Recorded, UndoNeedsHistory, fold
from herotable.table.game import game_for
from herotable.table.state import Ruleset, TableState

log = logging.getLogger("herotable.service")
Listener = Callable[[str, list[StoredEvent]], None]


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


class Writer:
    def __init__(
        self,
        store: EventStore,
        states: States,
        memory: Memory,
        *,
        rng: Rng,
        clock: Callable[[], str],
        snapshot_every: int,
    ) -> None:
        self.store = store
        self.states = states
        self.memory = memory
        self.rng = rng
        self.clock = clock
        self.snapshot_every = snapshot_every
        self.listeners: list[Listener] = []
        self._jitter = random.Random()  # spreads the retries of clashing writers
        self._lock = threading.Lock()
        self._writers: dict[str, _Turn] = {}  # one per campaign: this process's commands take turns

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
        ticket = _Ticket(cmd, user, command_id or uuid.uuid4().hex, fresh)
        self._in_turn(campaign_id, ticket)  # load, decide, append with the commands queued beside it; announce
        if ticket.error is not None:
            raise ticket.error
        if ticket.applied is not None:
            return ticket.applied
        return self._alone(campaign_id, ticket, state)  # one the group left out: the same path, on its own

    def begin(self, campaign_id: str, empty: TableState, cmd: Command, user: str) -> Applied:
        """Record a new campaign's first command, decided on its `empty` state, and announce it."""
        command_id = uuid.uuid4().hex
        decided = decide(empty, cmd, user, self.rng, command_id)
        applied = self._append(campaign_id, empty, cmd, user, decided.facts, decided.dice, command_id)
        return self._landed(campaign_id, empty, applied)

    def _in_turn(self, campaign_id: str, ticket: _Ticket) -> None:
        """Queue `ticket` for the campaign's turn; the thread that gets the turn records every command queued then,
        in one append (`_record_group`), and announces them once the turn is given up."""
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
                led = self._record_group(campaign_id, group, turn)
        if led is not None:
            self._landed(campaign_id, *led)

    def _alone(self, campaign_id: str, ticket: _Ticket, state: TableState | None) -> Applied:
        """Record `ticket` on its own, trying again on a fresh read after a short random wait when it clashes with
        another process's command, for at most RETRY_WAIT_S (then TableBusy); announce it."""
        turn = self._turn(campaign_id)
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
            state = self.states.state(campaign_id)
        else:  # one of this process's commands may have landed while this one waited its turn
            state = self.states.remembered(campaign_id, state.seq + 1) or state
        if t.cmd.type == UNDO_TYPE:  # decided on what the action undone changed: a snapshot's state does not know it
            state = self.states.with_history(campaign_id, state)
        try:
            decided = decide(state, t.cmd, t.user, self.rng, t.command_id)
        except RulesError:
            if read:
                raise
            state = self.states.state(campaign_id)  # refuse only on what the log holds now
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
                self.memory.forget(campaign_id)  # (deleted and imported again, on another process)
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
            start = self.states.recent(campaign_id)
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
            return events_of(planned), self.memory.tops(campaign_id, caught.seq)

        try:
            tops = self.states.stream_tops(campaign_id, start.seq)
        except Exception:  # a read that failed: nothing written, each tries on its own
            return None
        try:
            stored = self._appended(campaign_id, start.seq, events_of(planned), fresh_ids, tops, catch_up)
        except (ConcurrencyError, DuplicateCommand, _NothingLeft) as clash:  # nothing written: each on its own
            if isinstance(clash, ConcurrencyError) and 0 <= clash.actual_seq < start.seq:
                self.memory.forget(campaign_id)
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
        self.memory.remember(campaign_id, final)
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
        return Applied(events, self.states.state(campaign_id), repeated=True)

    def _caught_up(self, campaign_id: str, state: TableState, newer: Sequence[StoredEvent]) -> TableState:
        """`state` carried on over `newer`, the events of another process's commands an append handed over, and
        remembered. Raises ConcurrencyError when they cannot be folded there (an undo reaching past what `state`
        remembers), which the append passes on with nothing written."""
        try:
            caught = fold_log(newer, state)
        except (FoldError, BrokenLog):
            raise ConcurrencyError(campaign_id, state.seq, newer[-1].seq if newer else state.seq) from None
        self.memory.advance(campaign_id, state.seq, newer)
        self.memory.remember(campaign_id, caught)
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
            return events_of(again.facts, again.dice), self.memory.tops(campaign_id, caught.seq)

        tops = self.states.stream_tops(campaign_id, state.seq)
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
        self.memory.remember(campaign_id, new)
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
            head_hash=self.memory.head_hash(campaign_id, seq),
        )
        self.memory.contention(campaign_id, handed)
        self.memory.advance(campaign_id, stored[0].seq - 1, stored)
        return stored

    def _landed(self, campaign_id: str, before: TableState, applied: Applied) -> Applied:
        """What follows a recorded command, once the campaign's turn is given up (a slow Redis or a snapshot must not
        hold the next command): a snapshot when one is due, and the listeners (live updates)."""
        new = applied.state
        if new.seq // self.snapshot_every > before.seq // self.snapshot_every:
            self.states.keep_snapshot(campaign_id, new)  # (the command is recorded whatever becomes of it)
        for listener in self.listeners:
            try:
                listener(campaign_id, applied.events)
            except Exception:  # the command is recorded: a listener that fails (live updates) must not undo that
                log.exception("a listener failed after campaign %s recorded %s", campaign_id, new.last_command)
        return applied
