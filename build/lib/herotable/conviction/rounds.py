"""Rounds and scenes: the initiative order, the action budget, strenuous actions while disabled, and what expires
when (R-CV-5, R-CV-8, R-CV-14).

A round is six seconds of game time; the table starts one for every character whenever the GM moves time on,
in a conflict or outside one, so the one-point spending limit (R-CV-3) always has a round to count in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from herotable.conviction.checks import second_roll_counts
from herotable.conviction.conditions import Lethal, action_slots, next_round
from herotable.conviction.hero import Hero, Lasts, Turn
from herotable.conviction.options import CampaignOptions
from herotable.dice import D20, Rng
from herotable.errors import IllegalAction


class ActionKind(StrEnum):
    STANDARD = "standard"
    MOVE = "move"
    FULL_ROUND = "full-round"
    FREE = "free"
    REACTION = "reaction"


@dataclass(frozen=True)
class ActionsLeft:
    standard: int
    move: int
    full_round: bool


@dataclass(frozen=True)
class Initiative:
    """One character's initiative roll: d20 + Dexterity modifier (R-CV-14). `second` is the raw face of a Conviction
    re-roll made before the first turn, which counts +10 on 1–10, the better die kept (R-CV-4 amended)."""

    name: str
    face: int
    dexterity: int
    second: int | None = None

    @property
    def kept(self) -> int:
        return self.face if self.second is None else max(self.face, second_roll_counts(self.second))

    @property
    def total(self) -> int:
        return self.kept + self.dexterity


def roll_initiative(rng: Rng, heroes: Sequence[Hero]) -> tuple[Initiative, ...]:
    """Each hero rolls d20 + Dexterity modifier, one d20 each in the order given (R-CV-14)."""
    return tuple(Initiative(h.name, rng.roll(D20), h.sheet.abilities.dexterity) for h in heroes)


def initiative_order(rolls: Sequence[Initiative]) -> tuple[str, ...]:
    """The names from the highest total down; a tie goes to the higher Dexterity, then to the order the rolls are
    given in, which is the GM's (R-CV-14)."""
    ranked = sorted(range(len(rolls)), key=lambda i: (-rolls[i].total, -rolls[i].dexterity, i))
    return tuple(rolls[i].name for i in ranked)


def _slots(hero: Hero, options: CampaignOptions) -> tuple[int, int]:
    standard, move = action_slots(hero.conditions, options)
    c = hero.conditions
    if c.unconscious or c.dead or c.stunned or c.dazed:
        return (0, 0)
    return (standard + hero.turn.extra_standard, move + hero.turn.extra_move)


def _fits(slots: tuple[int, int], standard: int, move: int, full: int) -> bool:
    """A full-round action takes a standard action and one more (standard or move); a standard pays for a move."""
    s_slots, m_slots = slots
    return standard + full <= s_slots and standard + move + 2 * full <= s_slots + m_slots


def remaining_actions(hero: Hero, options: CampaignOptions | None = None) -> ActionsLeft:
    """What the hero can still do this round, given conditions and surges (R-CV-5, R-CV-8)."""
    opts = options or CampaignOptions()
    slots = _slots(hero, opts)
    t = hero.turn
    used_standard = t.standard_used + t.full_round_used
    standard = max(0, slots[0] - used_standard)
    total_left = slots[0] + slots[1] - (t.standard_used + t.move_used + 2 * t.full_round_used)
    return ActionsLeft(
        standard=min(standard, max(0, total_left)),
        move=max(0, total_left),
        full_round=_fits(slots, t.standard_used, t.move_used, t.full_round_used + 1),
    )


def start_round(hero: Hero) -> Hero:
    """A new round: fresh actions and spending limit; stun and daze count down; one-round feats end (R-CV-3)."""
    return replace(
        hero,
        turn=Turn(number=hero.turn.number + 1, recovery_pending=hero.turn.recovery_pending),
        conditions=next_round(hero.conditions),
        effects=tuple(
            replace(e, lasts=Lasts.ROUND) if e.lasts is Lasts.NEXT_ROUND else e
            for e in hero.effects
            if e.lasts is not Lasts.ROUND
        ),
    )


def end_round(hero: Hero) -> Hero:
    """The round ends without a new one starting (a scene, game session or adventure boundary): one-round feats and
    a surge's extra action end with it, and the round's spending is cleared (R-CV-3, R-CV-5). Conditions that count
    rounds are left to the next round the GM starts."""
    return replace(
        hero,
        turn=Turn(number=hero.turn.number),
        effects=tuple(e for e in hero.effects if e.lasts is Lasts.SCENE),
    )


def end_scene(hero: Hero, *, dramatic: bool = False) -> Hero:
    """The scene ends: its round ends with it (`end_round`), scene effects and unused Talent power uses expire.
    `dramatic` is the GM's call; after a dramatic scene the hero may try one Conviction regain check (R-CV-3,
    R-CV-13)."""
    return replace(end_round(hero), effects=(), regain_check_due=dramatic)


def take_action(
    hero: Hero, kind: ActionKind, options: CampaignOptions | None = None, *, strenuous: bool = False
) -> Hero:
    """Use an action from this round's budget (R-CV-5, R-CV-8).

    While disabled, a standard or full-round action is strenuous (the GM may call any action strenuous): the
    character drops to dying after it, unless a Conviction point was spent this round to prevent it (R-CV-9).
    Raises IllegalAction when the conditions or the budget do not allow the action.
    """
    opts = options or CampaignOptions()
    c = hero.conditions
    if kind is ActionKind.REACTION:
        if c.unconscious or c.dead:
            raise IllegalAction(
                "actions/cannot_react",
                f"{hero.name} is {c.names()[0]} and cannot react",
                ruling="R-CV-8",
                fix="only a conscious character takes reactions",
            )
        return hero
    slots = _slots(hero, opts)
    if slots == (0, 0):
        held = ", ".join(c.names()) or "unable to act"
        raise IllegalAction(
            "actions/cannot_act",
            f"{hero.name} can take no actions this round ({held})",
            ruling="R-CV-8",
            fix="wait for the condition to pass, or shake off a stun with Conviction (R-CV-9)",
        )
    turn = hero.turn
    if kind is not ActionKind.FREE:
        used = {
            ActionKind.STANDARD: replace(turn, standard_used=turn.standard_used + 1),
            ActionKind.MOVE: replace(turn, move_used=turn.move_used + 1),
            ActionKind.FULL_ROUND: replace(turn, full_round_used=turn.full_round_used + 1),
        }[kind]
        if not _fits(slots, used.standard_used, used.move_used, used.full_round_used):
            raise IllegalAction(
                "actions/none_left",
                f"{hero.name} has no {kind} action left this round",
                ruling="R-CV-8",
                fix="wait for the next round, or spend Conviction on a surge for one more action (R-CV-5)",
            )
        turn = used
    acted = replace(hero, turn=turn)
    strenuous = strenuous or kind in (ActionKind.STANDARD, ActionKind.FULL_ROUND)
    if c.disabled and strenuous and not turn.strenuous_guard:
        # dying is unconscious: knocked out by the strain, which gives a point, even above the maximum (R-CV-2)
        knocked_out = 0 if c.unconscious else 1
        dropped = acted.with_conviction(acted.conviction + knocked_out)
        return replace(dropped, conditions=replace(c, lethal=Lethal.DYING))
    return acted
