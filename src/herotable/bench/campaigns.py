"""Long campaigns for the bench and the snapshot tests: random members play through the legal actions
(`herotable.sampler`), and what they played is kept in a store exactly as the service would have recorded it,
optionally with some facts at an older version of their kind, as an older herotable recorded them (reading the log
then runs the upcasters)."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from herotable.dice import SeededRng
from herotable.sampler import RARE, Table, new_table, play
from herotable.store.port import EventStore, NewEvent
from herotable.table.facts import FACT_TYPES, payload_of, read_fact
from herotable.table.fold import Recorded
from herotable.table.game import game_for
from herotable.table.state import Ruleset

AT = "2026-12-01T00:00:00+00:00"
Played = tuple[str, dict[str, Any], list[tuple[int, int]], list[Recorded]]  # a `Table.commands` entry

_CLOSING = {"ltl.settle": 6.0, "cv.announce": 6.0, "request.answer": 4.0, "cv.exit.pass": 3.0}
_STAYING = {"member.remove": 0.0, "campaign.hand_over": 0.0}  # the bench's tables keep their members to the end


def at_a_table(kind: str) -> float:
    """How much likelier a kind of action is in the bench's campaigns than chance: rolls are settled and requests
    answered soon after they open, as at a table; sheets and campaigns are rarely edited, retired or archived (as
    in the sampler's own play); nobody is removed and the GM keeps the table, so each campaign plays on until it
    holds its share of the log."""
    return _CLOSING.get(kind, _STAYING.get(kind, RARE.get(kind, 1.0)))


def played(
    ruleset: Ruleset, campaign_id: str, events: int, seed: int, prefer: Callable[[str], float] = at_a_table
) -> Table:
    """A campaign played by random members through legal actions, with random choices and dice, until it holds
    `events` facts (decided and folded in memory: keep it in a store with `record`)."""
    table = new_table(SeededRng(seed), ruleset, campaign_id)
    play(table, random.Random(seed), until_events=events, prefer=prefer)
    return table


# payloads as the version before the current one recorded them, for kinds whose upcaster gives the same fact back
# from them: the earlier version, and the payload made from the current one's
_EARLIER: Mapping[str, tuple[int, Callable[[dict[str, Any]], dict[str, Any]]]] = {
    "cv.check_rolled": (2, lambda data: {("face" if k == "first" else k): v for k, v in data.items()}),
    "ltl.task_settled": (3, lambda data: {k: v for k, v in data.items() if k != "label"}),
    "ltl.conflict_started": (3, lambda data: {k: v for k, v in data.items() if k != "initiative_power"}),
}


def _as_recorded(kind: str, version: int, data: dict[str, Any], older: bool) -> tuple[int, dict[str, Any]]:
    """A fact's version and payload as stored: with `older`, at its kind's earlier version when reading that gives
    this very fact back (a settle kept no label before version 4, say: one whose label is empty)."""
    earlier = _EARLIER.get(kind) if older else None
    if earlier is not None and version == FACT_TYPES[kind].version:
        then, made = earlier[0], earlier[1](data)
        if read_fact(kind, then, made) == read_fact(kind, version, data):
            return then, made
    return version, data


def new_events(ruleset: Ruleset, commands: Sequence[Played], *, older: bool = False) -> list[NewEvent]:
    """Played `commands` (a `Table`'s, or some of them in order) as the service would have recorded them: each with
    its command and dice on its first event. With `older`, each fact that its kind's earlier version can stand for
    is stored at that version."""
    rules_version = game_for(ruleset).rules_version
    new = []
    for user, data, dice, facts in commands:
        for i, r in enumerate(facts):
            version, payload = _as_recorded(r.fact.type, r.fact.version, payload_of(r.fact), older)
            new.append(
                NewEvent(
                    r.fact.type,
                    payload,
                    r.command_id,
                    AT,
                    actor=user,
                    visibility=r.visibility.value,
                    owner=r.owner,
                    version=version,
                    rules_version=rules_version,
                    command={"body": data, "dice": [list(d) for d in dice]} if i == 0 else None,
                )
            )
    return new


def record(
    store: EventStore, campaign_id: str, ruleset: Ruleset, commands: Sequence[Played], *, older: bool = False
) -> None:
    """Append played `commands` to the campaign in `store`, after its head, in one append (as a group of commands
    is), as `new_events` records them."""
    new = new_events(ruleset, commands, older=older)
    if new:
        store.append(campaign_id, store.head(campaign_id), new)
