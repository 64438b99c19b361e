"""Commands become events; the state is a fold of the events (R-T-1).

An event records the command, every raw die face it rolled, and a summary of what happened. Replaying an
event runs the same handler with those faces scripted, so replay never rolls and always lands on the same
state; a summary that comes out different is a `ReplayMismatch`, never a silent drift.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from herotable.dice import RecordingRng, Rng, ScriptedRng, ScriptError
from herotable.errors import RulesError

# the command modules register their handlers on import
from herotable.table import campaign, cv_play, dice_roll, ltl_play, requests  # noqa: F401
from herotable.table.codec import encode
from herotable.table.commands import Command, Ctx, Outcome, command_from_json, command_to_json, run
from herotable.table.model import UNDO_DEPTH, Done, Forbidden, Role, Ruleset, TableError, TableState, Visibility
from herotable.table.undo import UNDO_TYPE, Undo

EVENT_VERSION = 1
EMPTY = TableState(campaign_id="", name="", ruleset=Ruleset.LTL)


class ReplayMismatch(Exception):
    """An event no longer replays to what it recorded: the log and the rules disagree."""


@dataclass(frozen=True)
class Recorded:
    """What the fold needs of a stored event."""

    seq: int
    command_id: str
    actor: str
    type: str
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Executed:
    """A command that ran: the event to store and the state after it."""

    type: str
    data: dict[str, Any]
    visibility: Visibility
    owner: str | None
    state: TableState


def _remember(state: TableState, cmd: Command, ctx: Ctx, rolled: bool) -> TableState:
    done = (*state.done, Done(ctx.command_id, ctx.user, cmd.name, rolled))[-UNDO_DEPTH:]
    return replace(state, done=done)


def execute(state: TableState, cmd: Command, user: str, rng: Rng, command_id: str) -> Executed:
    """Run a command live with real dice. Raises RulesError (nothing changes) when it is refused."""
    if isinstance(cmd, Undo):
        target = check_undo(state, cmd, user)
        summary = {"undone": target.command_id, "text": f"undo {target.name}"}
        payload = {"command": command_to_json(cmd), "faces": [], "summary": summary}
        return Executed(UNDO_TYPE, payload, Visibility.PUBLIC, None, state)
    rec = RecordingRng(rng)
    out: Outcome = run(state, cmd, Ctx(user, rec, command_id))
    new = _remember(out.state, cmd, Ctx(user, rec, command_id), bool(rec.rolled))
    data: dict[str, Any] = {
        "command": command_to_json(cmd),
        "faces": [list(f) for f in rec.rolled],
        "summary": encode(out.summary),
    }
    return Executed(cmd.name, data, out.visibility, out.owner, new)


def check_undo(state: TableState, cmd: Undo, user: str) -> Done:
    """Undo reaches only the most recent command still in effect. Players undo their own commands that
    rolled no dice; an announced roll is a commit point only the GM can pass (R-T-2)."""
    if not state.done:
        raise TableError("undo/nothing", "there is nothing to undo", fix="act first")
    last = state.done[-1]
    if cmd.target is not None and cmd.target != last.command_id:
        raise TableError(
            "undo/not_last",
            "only the most recent action can be undone",
            fix=f"undo {last.name} ({last.command_id}) first",
        )
    role = state.role_of(user)
    if role is Role.GM:
        return last
    if role is None or role is Role.SPECTATOR or last.user != user:
        raise Forbidden("undo/not_yours", "only the GM undoes other people's actions", fix="ask the GM")
    if last.rolled or last.name == "campaign.create":
        raise Forbidden(
            "undo/commit_point",
            "dice were rolled: that result stands unless the GM undoes it",
            fix="ask the GM",
        )
    return last


def replay(events: Iterable[Recorded], start: TableState | None = None) -> TableState:
    """Rebuild the state from events (after `start`, a snapshot's state) without rolling a die.
    Raises ReplayMismatch if an event does not reproduce what it recorded."""
    events = list(events)
    undone = {str(e.data["summary"]["undone"]) for e in events if e.type == UNDO_TYPE}
    state = start or EMPTY
    for e in events:
        if e.type == UNDO_TYPE or e.command_id in undone:
            state = replace(state, seq=e.seq)
            continue
        state = replace(_replay_one(state, e), seq=e.seq)
    return state


def _replay_one(state: TableState, e: Recorded) -> TableState:
    cmd = command_from_json(dict(e.data["command"]))
    faces = [tuple(f) for f in e.data["faces"]]
    script = ScriptedRng([(int(s), int(f)) for s, f in faces])
    ctx = Ctx(e.actor, script, e.command_id)
    try:
        out: Outcome = run(state, cmd, ctx)
        script.finish()
    except (RulesError, ScriptError) as err:
        raise ReplayMismatch(f"event {e.seq} ({e.type}) no longer replays: {err}") from err
    if encode(out.summary) != e.data["summary"]:
        raise ReplayMismatch(f"event {e.seq} ({e.type}) replays to a different result than it recorded")
    return _remember(out.state, cmd, ctx, bool(faces))
