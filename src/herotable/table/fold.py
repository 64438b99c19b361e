"""The state is a fold of facts: `evolve` applies one fact, `fold` a stored log. No rule runs and no die is rolled.

The fold also keeps the undo stack (R-T-4): each action's first fact pushes an entry holding the state before it
(in memory only), and `action.undone` restores that state and marks the rolls it had revealed. Membership changes
are not actions: they clear the stack, since undoing past them would undo them too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from herotable.table import campaign_settings, journal, recap_notes, sheet_edits, travel
from herotable.table.codec import CodecError, decode_as, decoder, encode, evolved
from herotable.table.core import CORE_EVOLVE
from herotable.table.facts import FACT_TYPES, Emitted, Fact, FactError, Visibility, read_fact
from herotable.table.game import GAMES, game_for
from herotable.table.state import UNDO_DEPTH, Done, JournalEntry, Ruleset, TableState

UNDO_TYPE = "table.undo"
UNDONE_TYPE = "action.undone"
# membership changes, undo itself and chat (R-T-4) are not actions: no undo entry is kept for them
NOT_ACTIONS = frozenset(
    {"campaign.create", "member.join", "member.set_role", "member.remove", UNDO_TYPE, "chat.say", "chat.roll"}
    | sheet_edits.COMMANDS_OUTSIDE_UNDO  # sheet edits, retiring and deleting, and the campaign's settings: lines
    | campaign_settings.COMMANDS_OUTSIDE_UNDO  # undo does not cross, like membership changes
    | journal.COMMANDS_OUTSIDE_UNDO  # writing the journal and private notes: like chat, beside the actions
    | recap_notes.NOT_ACTIONS  # the GM's paragraph in a session's recap: kept out of undo, as chat is
    | travel.COMMANDS_OUTSIDE_UNDO  # characters brought from a file, approved or turned away
)
JOURNAL_BEFORE = 4  # where an undo entry's earlier state keeps the journal: (game, characters, structure, requests, …)
# the snapshot format; older snapshots are ignored, never misread (7: a Conviction turn's flags are booleans, where 6
# could hold 1 for true, which a restore's check of the snapshot refused)
STATE_VERSION = 7

check_decisions = False  # tests set it: every decision's fold is compared with the state the rules computed


class FoldError(ValueError):
    """A log that cannot be folded: it contradicts itself (an undo of something that is not the last action)."""


class UndoNeedsHistory(FoldError):
    """An undo reaches an action folded before this state was loaded from a snapshot: fold from the start."""


class Recorded(NamedTuple):
    """What the fold needs of a stored event."""

    seq: int
    command_id: str
    actor: str
    command_type: str
    fact: Fact
    visibility: Visibility = Visibility.PUBLIC
    owner: str | None = None


def evolve(state: TableState, f: Fact) -> TableState:
    """The state after one fact."""
    if f.inert:
        return state
    core = CORE_EVOLVE.get(f.type)
    if core is not None:
        return core(state, f)
    if f.type == UNDONE_TYPE:
        return _undo(state, f)
    return evolved(state, game=GAMES[state.ruleset].evolve(state.game, f))


def apply_facts(state: TableState, facts: Iterable[Emitted]) -> TableState:
    """The state after decided facts (no undo bookkeeping): what a decision leads to."""
    for e in facts:
        state = evolve(state, e.fact)
    return state


_new = object.__new__
_done = tuple.__new__  # a Done, made without its generated constructor (the fold's hot path)


def apply(state: TableState, e: Recorded) -> TableState:
    """The state after one stored event, with the undo stack kept."""
    return fold((e,), state)


def fold(events: Iterable[Recorded], start: TableState | None = None) -> TableState:
    """The state after `events` (following `start`, a snapshot's state). Raises FoldError.

    Each action gets one undo entry when its last fact is folded, saying whether it is a commit point, which rolls it
    revealed and who saw it, with what it can change as it was before it (the facts of one command may come in
    several calls). The loop keeps the state's parts in locals and builds a `TableState` only when a table fact
    needs the whole state, and at the end: the fold is the hot path of loading a campaign."""
    state = start or TableState("", "", Ruleset.LTL)
    game, done, befores = state.game, state.done, state.befores
    evolve_game = GAMES[state.ruleset].evolve
    last, seq = state.last_command, state.seq
    # the command being folded, when it is an action: its entry is made (or remade) when it ends
    open_action = False
    user = kind_of = ""
    before: tuple[Any, ...] | None = None
    reveals: tuple[str, ...] = ()
    also: tuple[str, ...] = ()
    commit, audience, owner = False, Visibility.GM, None
    if done and done[-1].command_id == last:  # the start state ends inside an action: carry on with it
        top = done[-1]
        open_action, user, kind_of = True, top.user, top.type
        commit, reveals, audience, owner = top.commit, top.reveals, top.audience, top.audience_owner
        also = top.audience_also
        done = done[:-1]
        before, befores = (befores[-1], befores[:-1]) if len(befores) == len(state.done) else (None, befores)
    public, gm = Visibility.PUBLIC, Visibility.GM
    pushed: list[Done] = []  # actions ended since `done` was last made whole (copying it per action is the cost)
    pushed_befores: list[tuple[Any, ...]] = []
    plans = _PLANS
    for seq, command_id, actor, command_type, f, visibility, fact_owner in events:  # noqa: B007 (the last seq)
        inert, core, commits, reveals_field = plans[f.__class__]
        if command_id != last:
            if open_action:
                entry = _done(Done, (last, user, kind_of, commit, reveals, audience, owner, also))
                if before is None:
                    done, befores = _push(*_flush(done, befores, pushed, pushed_befores), entry, None)
                else:
                    pushed.append(entry)
                    pushed_befores.append(before)
            last = command_id
            open_action = command_type not in NOT_ACTIONS and core is not _undo
            if open_action:
                user, kind_of = actor, command_type
                before = (game, state.characters, state.structure, state.requests, state.journal)  # see _undo
                commit, reveals, audience, owner, also = False, (), gm, None, ()
        if inert:
            pass
        elif core is not None:
            if pushed:
                done, befores = _flush(done, befores, pushed, pushed_befores)
            if game is not state.game or done is not state.done or befores is not state.befores:
                state = evolved(state, game=game, done=done, befores=befores)
            state = core(state, f)
            game, done, befores = state.game, state.done, state.befores
            evolve_game = GAMES[state.ruleset].evolve
        else:
            game = evolve_game(game, f)
        if not open_action:
            continue
        if commits:
            commit = True
        if reveals_field is not None and visibility is not gm:
            roll = getattr(f, reveals_field)
            if roll not in reveals:
                reveals = (*reveals, roll)
        if audience is not public and visibility is not gm:
            if visibility is public:
                audience, owner = public, None
            elif audience is gm:
                audience, owner = Visibility.OWNER, fact_owner
            elif fact_owner is not None and fact_owner != owner and fact_owner not in also:
                also = (*also, fact_owner)
    if open_action:
        entry = _done(Done, (last, user, kind_of, commit, reveals, audience, owner, also))
        done, befores = _push(*_flush(done, befores, pushed, pushed_befores), entry, before)
    elif pushed:
        done, befores = _flush(done, befores, pushed, pushed_befores)
    new: TableState = _new(TableState)
    fields = new.__dict__
    fields.update(state.__dict__)
    fields["game"], fields["done"], fields["befores"] = game, done, befores
    fields["seq"], fields["last_command"] = seq, last
    return new


def _push(
    done: tuple[Done, ...], befores: tuple[Any, ...], entry: Done, before: tuple[Any, ...] | None
) -> tuple[tuple[Done, ...], tuple[Any, ...]]:
    """The undo stack with one more action, at most UNDO_DEPTH deep; `befores` stays aligned with its end (an action
    whose earlier state is not known, folded from a snapshot, ends the run of known ones)."""
    if before is None:
        return ((*done[-UNDO_DEPTH + 1 :], entry) if len(done) >= UNDO_DEPTH else (*done, entry)), ()
    if len(done) >= UNDO_DEPTH:
        return (*done[-UNDO_DEPTH + 1 :], entry), (*befores[-UNDO_DEPTH + 1 :], before)
    return (*done, entry), (*befores, before)


def _flush(
    done: tuple[Done, ...], befores: tuple[Any, ...], pushed: list[Done], pushed_befores: list[tuple[Any, ...]]
) -> tuple[tuple[Done, ...], tuple[Any, ...]]:
    """The undo stack with the actions pushed since it was last made whole (each with its earlier state), emptying
    the lists: what `_push` would have made of them one by one."""
    if not pushed:
        return done, befores
    done, befores = (*done, *pushed)[-UNDO_DEPTH:], (*befores, *pushed_befores)[-UNDO_DEPTH:]
    pushed.clear()
    pushed_befores.clear()
    return done, befores


class _Plans(dict[type[Fact], tuple[bool, Any, bool, str | None]]):
    """What the fold does with a fact of each class, looked up once per fact rather than read off it attribute by
    attribute: whether it is inert, the table step it takes (None for a game's fact), whether it commits the action,
    and the field naming the roll it reveals."""

    def __missing__(self, cls: type[Fact]) -> tuple[bool, Any, bool, str | None]:
        core = _undo if cls.type == UNDONE_TYPE else CORE_EVOLVE.get(cls.type)
        plan = self[cls] = (cls.inert, core, cls.commit, cls.reveals)
        return plan


def journal_before(state: TableState) -> tuple[JournalEntry, ...] | None:
    """The journal as it stood before the last action still in effect, as the undo stack keeps it (None: not known,
    for a state loaded from a snapshot)."""
    before = state.befores[-1] if state.befores else None
    return None if before is None else before[JOURNAL_BEFORE]


def _undo(state: TableState, f: Any) -> TableState:
    if not state.done or state.done[-1].command_id != f.command_id:
        raise FoldError(f"the log undoes {f.command_id!r}, which is not the last action still in effect")
    before = state.befores[-1] if state.befores else None  # `befores` ends aligned with `done`
    if before is None:
        raise UndoNeedsHistory(f"undoing {f.command_id!r} needs the state before it: fold the log from its start")
    game, characters, structure, requests, entries = before
    state = journal.restore_audiences(state, journal.audiences_of(entries))
    return evolved(
        state,
        game=game,
        characters=characters,
        structure=structure,
        requests=requests,
        done=state.done[:-1],
        befores=state.befores[:-1],
        undone=state.undone | {f.command_id},
        revealed=state.revealed | set(f.revealed),  # kept whatever older state an undo restores (R-T-4)
    )


# --- snapshots ---


def snapshot_of(state: TableState) -> dict[str, Any]:
    """The state as JSON (the undo stack's earlier states are not kept: see `UndoNeedsHistory`)."""
    data: dict[str, Any] = encode(state)
    return data


def state_from_snapshot(data: Mapping[str, Any], *, check: bool = True) -> TableState:
    """The state a snapshot holds. Raises CodecError for anything that is not one.

    With `check` (a snapshot from outside, a backup being restored) every value is checked against its type and an
    error names its path. Without it (the service's own snapshots, read whenever a campaign is opened) the compiled
    decoders read it, about ten times faster: they check its shape (each object's fields) but not each value's type,
    as the fold reads its own facts."""
    if not isinstance(data, Mapping):
        raise CodecError(f"$: expected an object, got {type(data).__name__}")
    rest = {k: v for k, v in data.items() if k != "game"}
    core = decode_as(TableState, rest) if check else decoder(TableState)(rest)
    game = data.get("game")
    if not isinstance(game, Mapping):
        raise CodecError(
            "$.game: missing" if game is None else f"$.game: expected an object, got {type(game).__name__}"
        )
    return evolved(core, game=game_for(core.ruleset).decode_state(game, check=check))


_VISIBILITY = {v.value: v for v in Visibility}
_record = tuple.__new__


def recorded_facts(events: Sequence[Any]) -> list[Recorded]:
    """Stored events (anything with the `StoredEvent` fields) as facts to fold, upcast to current versions. The
    command's type is on its first event; its other events carry on with it."""
    return list(facts_of(events))


def facts_of(events: Iterable[Any], *, skim: bool = False) -> Iterator[Recorded]:
    """`recorded_facts`, one at a time: what `fold` reads straight from a store's events.

    With `skim` (for a fold, which reads only an inert fact's kind), a current inert fact that reveals nothing is
    not decoded: it comes as a blank fact of its kind, with no fields. Never show a skimmed fact."""
    command_id, command_type = "", ""
    readers = _SKIMMING if skim else _READERS
    visibilities = _VISIBILITY
    for e in events:
        if e.command_id != command_id:
            command_id = e.command_id
            body = (e.command or {}).get("body") or {}
            command_type = str(body.get("type", ""))
        reader = readers[e.type]
        if reader is not None and e.version == reader[0]:
            f = reader[1]
            if f is None:
                try:
                    f = reader[2](e.data)
                except CodecError as err:
                    raise FactError(f"{e.type!r} version {e.version}: {err}") from None
        else:
            f = read_fact(e.type, e.version, e.data)
        seen_by = visibilities[e.visibility]
        yield _record(Recorded, (e.seq, command_id, e.actor or "", command_type, f, seen_by, e.owner))


class _Readers(dict[str, tuple[int, Fact | None, Any] | None]):
    """How to read a fact kind at its current version, one lookup per event: the version, a blank fact when `skim`
    passes it by (an inert kind that reveals nothing), else None, and its decoder. None for a kind not (yet) known,
    which `read_fact` answers; such answers are not kept, so a kind registered later is found."""

    def __init__(self, skim: bool) -> None:
        super().__init__()
        self.skim = skim

    def __missing__(self, kind: str) -> tuple[int, Fact | None, Any] | None:
        cls = FACT_TYPES.get(kind)
        if cls is None:
            return None
        reader = self[kind] = (cls.version, _BLANKS[cls] if self.skim else None, decoder(cls))
        return reader


class _Blanks(dict[type[Fact], Fact | None]):
    """A blank fact per inert kind that reveals nothing (None for every other kind), made when first asked for."""

    def __missing__(self, cls: type[Fact]) -> Fact | None:
        blank = _new(cls) if cls.inert and cls.reveals is None else None
        self[cls] = blank
        return blank


_BLANKS = _Blanks()
_PLANS = _Plans()
_READERS = _Readers(skim=False)
_SKIMMING = _Readers(skim=True)
