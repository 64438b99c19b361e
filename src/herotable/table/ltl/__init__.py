"""Larger Than Life at the table: its state, commands, facts, fold, legal actions, masking and log wording,
behind the one `Game` interface (`herotable.table.game`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from herotable.ltl.advancement import award_hero_points
from herotable.ltl.hero import end_adventure, end_scene
from herotable.ltl.options import Initiative, LtlOptions, QuickTies, RerollMode
from herotable.table.commands import Decision
from herotable.table.facts import Emitted
from herotable.table.game import (
    Boundary,
    Choice,
    Flag,
    IntRange,
    KeyedValues,
    LegalAction,
    OptionSpec,
    PackagedGame,
    register,
)
from herotable.table.ltl import charts, contests, decide, evolve, legal, present, recap, render, teamwork
from herotable.table.ltl.commands import AWARD
from herotable.table.ltl.facts import CritRewardLapsed, FailuresForgotten
from herotable.table.ltl.state import LtlTable
from herotable.table.state import Ruleset, TableError, TableState
from herotable.table.structure import EndAdventure

RULES_VERSION = (
    8  # bump when a rules correction changes what a command decides (see `herotable audit`); 8: one Accept each
)


ROLL_NAMES = {"challenge": "challenge", "karma": "Karma roll", "stunt": "Power Stunt", "last_chance": "Last Chance"}


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "initiative",
        "Initiative",
        "Who acts first in a conflict's round: everyone at once, in any order (the rules' way), or by an initiative "
        "roll each round or once a conflict (Power, or Karma with the GM's leave; ties act together).",
        Choice(
            tuple(Initiative),
            ("Everyone at once", "Initiative rolled each round", "Initiative rolled once a conflict"),
        ),
        rule="R-LTL-12",
    ),
    OptionSpec(
        "reroll_mode",
        "Re-rolls",
        "What a re-roll (Try Again, a Specialty, Motivation) keeps: the better of the two results, or the new one.",
        Choice(tuple(RerollMode), ("Keep the better result", "The new result stands")),
        rule="R-LTL-9",
    ),
    OptionSpec(
        "effect_cap",
        "Most levels one exchange deals",
        "Going For Broke adds levels of effect to a win, up to this many in one exchange (3 by the rules).",
        IntRange(1, 6),
        rule="R-LTL-7",
    ),
    OptionSpec(
        "exploding",
        "Exploding dice",
        "A die showing its maximum is rolled again and added, as long as it keeps showing its maximum.",
        Flag(),
        rule="R-LTL-18",
    ),
    OptionSpec(
        "stun_on_damage",
        "Stun on physical damage",
        "After losing physical levels a hero rolls Heroism against the levels lost; a failure stuns for a round.",
        Flag(),
        rule="R-LTL-18",
    ),
    OptionSpec(
        "quick_ties",
        "Ties in a quick contest",
        "A tie for first in a quick contest is rolled again among the tied, or they share the win.",
        Choice(tuple(QuickTies), ("Rolled again", "Shared")),
        rule="R-LTL-13",
    ),
    OptionSpec(
        "hidden_odds",
        "Odds against hidden characters",
        "Players see their odds against a character whose sheet you hide; the odds tell something of its dice.",
        Flag(),
        rule="R-T-2",
    ),
)


class LtlGame(PackagedGame):
    """Larger Than Life (seed 001), by the rulings R-LTL-1 … R-LTL-19."""

    ruleset = Ruleset.LTL
    title = "Larger Than Life"
    rules_version = RULES_VERSION
    options_type = LtlOptions
    option_specs = OPTIONS
    table_type = LtlTable
    titles: Mapping[str, str] = render.TITLES
    command_titles: Mapping[str, str] = render.COMMAND_TITLES
    evolve = staticmethod(evolve.evolve)  # the fold's hot path: no wrapper call

    def legal_actions(self, state: TableState, user: str) -> list[LegalAction]:
        return (
            legal.legal_actions(state, user)
            + contests.contest_actions(state, user)
            + teamwork.team_actions(state, user)
        )

    mask = staticmethod(present.mask)
    board = staticmethod(present.board)
    render = staticmethod(render.render)
    throw_part = staticmethod(charts.part_of)
    charts = staticmethod(charts.charts)
    recap = staticmethod(recap.recap)

    def busy(self, state: TableState) -> str | None:
        """What is still open, by name: the GM finds it on the table and settles, ends or undoes it."""
        table = decide.table_of(state)
        named = {c.id: c.name for c in state.characters}
        held = [f"the conflict is in round {table.conflict.round}"] if table.conflict is not None else []
        for t in table.tasks:
            kind = ROLL_NAMES.get(t.purpose, t.purpose.replace("_", " "))
            label = f" {t.detail!r}" if t.detail else ""
            held.append(f"{named.get(t.character, t.character)}'s {kind}{label} is not settled")
        if table.contest is not None:
            held.append(f"the contest{f' {table.contest.label!r}' if table.contest.label else ''} is not settled")
        if table.team is not None:
            held.append(f"the team task{f' {table.team.label!r}' if table.team.label else ''} is not rolled")
        return "; ".join(held) or None

    def on_boundary(self, state: TableState, boundary: Boundary, detail: Mapping[str, Any]) -> Decision:
        """End of scene: non-damaging losses recover, Motivation's re-roll returns, failed must-succeed tasks are
        forgotten, calls lapse, the GM's leave to try Recovery ends (R-LTL-6, R-LTL-17, R-T-3, R-LTL-11). End of
        adventure: burned Karma and Heroism come back, Last Chance and Try Again tokens reset, Hero Points are awarded
        (R-LTL-10, R-LTL-11, R-LTL-16)."""
        table = decide.table_of(state)
        awards: Mapping[str, int] = detail.get("awards", {})
        for cid in awards:
            table.hero(cid)
        if boundary is Boundary.SCENE_END:
            after = table.with_heroes({cid: end_scene(h) for cid, h in table.heroes.items()})
            facts = decide.changes(state, table, after, "end_of_scene")
            if table.failed:
                facts.append(Emitted(FailuresForgotten()))
            # calls not rolled and the GM's leave to try Recovery end with the scene (R-T-3, R-LTL-11 amended)
            # a critical reward never chosen lapses with the advantages it could give (R-LTL-8 amended)
            facts += [Emitted(CritRewardLapsed(d.roll, d.character)) for d in table.crit_due]
            calls = decide.calls_lapsed(state, replace(after, failed=(), crit_due=()))
            leave = decide.leave_lapsed(state, calls.expected)
            return Decision([*facts, *calls.facts, *leave.facts], leave.expected)
        if boundary is Boundary.ADVENTURE_END:
            after = table.with_heroes(
                {
                    cid: award_hero_points(end_adventure(end_scene(h)), awards.get(cid, 0))
                    for cid, h in table.heroes.items()
                }
            )
            facts = decide.changes(state, table, after, "new_adventure", causes={"tokens": "adventure_over"})
            return Decision(facts, after)
        if awards:
            raise TableError("structure/awards", "awards come at the end of an adventure", fix="award them then")
        return Decision([], table)

    def end_adventure_action(self, state: TableState) -> LegalAction:
        ids = tuple(decide.table_of(state).heroes)
        names = tuple(state.character(cid).name for cid in ids)
        return LegalAction(
            EndAdventure.type,
            "End the adventure (and award Hero Points)",
            fields={"awards": KeyedValues(ids, IntRange(AWARD.lo, AWARD.hi), names)},
            group="Structure",
            rule="R-T-1, R-LTL-16",
        )


GAME = register(LtlGame())
