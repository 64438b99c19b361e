"""Deciding a command: permissions and rules turn (state, command, dice) into facts, or a RulesError.

Nothing here writes: the service appends the facts and folds them. Every die rolled is recorded, in order, so
`herotable audit` can decide the command again from the same faces.
"""

from __future__ import annotations

from dataclasses import dataclass

from herotable.dice import RecordingRng, Rng
from herotable.table import fold
from herotable.table.campaign_settings import refuse_if_archived
from herotable.table.commands import COMMANDS, Command, Ctx
from herotable.table.facts import Emitted, Visibility
from herotable.table.game import game_for
from herotable.table.state import TableError, TableState


@dataclass(frozen=True)
class Decided:
    """The facts a command decided, and every die it rolled as (sides, face)."""

    facts: list[Emitted]
    dice: list[tuple[int, int]]


class FoldMismatch(AssertionError):
    """The facts of a decision fold to another state than the rules computed: a bug in a game's facts."""


def decide(state: TableState, cmd: Command, user: str, rng: Rng, command_id: str) -> Decided:
    """Decide `cmd` for `user` with real (or scripted) dice. Raises RulesError (nothing is decided)."""
    spec = COMMANDS[cmd.type]
    if spec.game is not None and state.members and spec.game != state.ruleset:
        title = game_for(state.ruleset).title
        raise TableError(
            "table/other_game",
            f"{cmd.type} is a {game_for(spec.game).title} command and this campaign plays {title}",
            fix=f"use the {title} commands",
        )
    refuse_if_archived(state, cmd.type)
    recording = RecordingRng(rng)
    decision = spec.handler(state, cmd, Ctx(user, recording, command_id))
    if not decision.facts:
        raise AssertionError(f"{cmd.type} decided no facts")
    for e in decision.facts:
        if (e.visibility is Visibility.OWNER) is (e.owner is None):
            raise AssertionError(f"{e.fact.type}: an owner fact names its owner, and only an owner fact does")
    if fold.check_decisions and decision.expected is not None:
        after = fold.apply_facts(state, decision.facts).game
        if after != decision.expected:
            raise FoldMismatch(f"{cmd.type}: the facts fold to {after!r}\nbut the rules computed {decision.expected!r}")
    return Decided(decision.facts, recording.rolled)
