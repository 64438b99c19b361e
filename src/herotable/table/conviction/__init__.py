"""Conviction (DPoNI on True20) at the table: its state, commands, facts, fold, legal actions, masking and log
wording, behind the one `Game` interface (`herotable.table.game`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from herotable.conviction.options import CampaignOptions, DisabledActions
from herotable.conviction.rounds import end_round, end_scene
from herotable.table.commands import Decision
from herotable.table.conviction import charts, decide, evolve, legal, present, recap, render
from herotable.table.conviction.facts import InitiativeOrder, PresenceSet, WitsRefreshed
from herotable.table.conviction.state import CvTable
from herotable.table.facts import Emitted
from herotable.table.game import Boundary, Choice, LegalAction, OptionSpec, PackagedGame, register
from herotable.table.state import Ruleset, TableError, TableState
from herotable.table.structure import EndAdventure

_CAUSES = {
    Boundary.SCENE_START: "new_scene",
    Boundary.SESSION_END: "end_of_session",
    Boundary.ADVENTURE_END: "end_of_adventure",
}
# bump when a rules correction changes what a command decides (see `herotable audit`). 2: the GM sets Difficulties
# and damage, players roll what the GM calls for (R-T-3); rounds end with scenes (R-CV-3); pending dying checks are
# voided (R-CV-10); saves count injuries when settled (R-CV-8); exits only inside a scene (R-CV-11); rounds roll
# initiative, only characters in the scene act, and the GM's sides decide who is an enemy (R-CV-14). 3: a seen re-roll
# counts as revealed (R-T-4). 4: a feat's numbers apply (R-CV-6); initiative stays pending until the first turn,
# and Conviction may re-roll it (R-CV-4). 5: the GM's situational modifier is a bonus named by its reason, on saves
# too (R-T-2)
RULES_VERSION = 6  # 6: a skill a typo away from the sheet's is refused (R-CV-1)


def _rounds_over(table: CvTable, facts: list[Emitted]) -> Decision:
    """The rounds end with their scene, and their initiative order with them (R-CV-3, R-CV-14)."""
    if not table.order and not table.initiative_rolls:
        return Decision(facts, table)
    facts.append(Emitted(InitiativeOrder((), "ended")))
    return Decision(facts, evolve.evolve(table, facts[-1].fact))


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "disabled_actions",
        "What a Disabled character may do",
        "Each round, a Disabled character takes one move action (Dino-Pirates), or one standard or one move action, "
        "a standard one being strenuous (core True20).",
        Choice(tuple(DisabledActions), ("One move action", "One standard or one move action")),
        rule="R-CV-8",
    ),
)


class ConvictionGame(PackagedGame):
    """The Conviction rules of Dino-Pirates of Ninja Island (seed 000), by the rulings R-CV-1 … R-CV-14."""

    ruleset = Ruleset.CONVICTION
    title = "Conviction"
    rules_version = RULES_VERSION
    options_type = CampaignOptions
    option_specs = OPTIONS
    table_type = CvTable
    titles: Mapping[str, str] = render.TITLES
    command_titles: Mapping[str, str] = render.COMMAND_TITLES
    evolve = staticmethod(evolve.evolve)  # the fold's hot path: no wrapper call
    legal_actions = staticmethod(legal.legal_actions)
    mask = staticmethod(present.mask)
    board = staticmethod(present.board)
    render = staticmethod(render.render)
    throw_part = staticmethod(charts.part_of)
    charts = staticmethod(charts.charts)
    recap = staticmethod(recap.recap)

    def busy(self, state: TableState) -> str | None:
        """What is still open, by name: the GM finds it on the table and announces, voids or undoes it."""
        table = decide.table_of(state)
        named = {c.id: c.name for c in state.characters}
        held = [
            f"{named.get(c.character, c.character)}'s {c.check.label or 'check'} is not announced" for c in table.checks
        ]
        if table.exit_bid is not None:
            held.append(f"{named.get(table.exit_bid.leaver, table.exit_bid.leaver)}'s exit is being bid on")
        return "; ".join(held) or None

    def on_boundary(self, state: TableState, boundary: Boundary, detail: Mapping[str, Any]) -> Decision:
        """End of scene: scene effects end; after a dramatic scene the regain check is offered (R-CV-13); everyone is
        in the next scene, and the rounds' initiative order ends (R-CV-14). A game session's start or end: three more
        Quotable Wit uses (R-CV-12)."""
        table = decide.table_of(state)
        if detail.get("awards"):
            raise TableError("structure/awards", "Conviction has no Hero Points to award", fix="leave the awards out")
        if boundary is Boundary.SCENE_END:
            dramatic = bool(detail.get("dramatic"))
            after = table.with_heroes(
                {
                    cid: end_scene(h, dramatic=dramatic and not h.conditions.dead and h.conviction < h.conviction_max)
                    for cid, h in table.heroes.items()
                }
            )
            back = decide.exits_cleared(after)
            lapsed = decide.calls_lapsed(state, back.expected)
            ended = [*decide.changes(state, table, after, "end_of_scene"), *back.facts, *lapsed.facts]
            after = lapsed.expected
            if after.absent:  # everyone is in the next scene until the GM says otherwise (R-CV-14)
                ended.append(Emitted(PresenceSet((), "end_of_scene")))
                after = evolve.evolve(after, ended[-1].fact)
            return _rounds_over(after, ended)
        facts: list[Emitted] = []
        after = table
        if boundary in (Boundary.SCENE_START, Boundary.SESSION_END, Boundary.ADVENTURE_END):
            # a round never reaches past these: what was spent or bought for it ends (R-CV-3)
            after = table.with_heroes({cid: end_round(h) for cid, h in table.heroes.items()})
            if boundary is Boundary.SCENE_START:  # the last dramatic scene's regain check lapses (R-CV-13)
                after = after.with_heroes({cid: replace(h, regain_check_due=False) for cid, h in after.heroes.items()})
            facts += decide.changes(state, table, after, _CAUSES[boundary])
            after = _rounds_over(after, facts).expected
        if boundary in (Boundary.SESSION_START, Boundary.SESSION_END) and after.wits.session_uses:
            after = evolve.evolve(after, WitsRefreshed())
            facts.append(Emitted(WitsRefreshed()))
        return Decision(facts, after)

    def end_adventure_action(self, state: TableState) -> LegalAction:
        return LegalAction(EndAdventure.type, "End the adventure", group="Structure", rule="R-T-1")


GAME = register(ConvictionGame())
