"""A critical success's reward is chosen by the winner's controller, whoever settles the exchange (R-LTL-8 amended)."""

from __future__ import annotations

import pytest

from herotable.errors import RulesError
from herotable.ltl.hero import NextRound
from herotable.ltl.task import CritBonus
from herotable.service import TableService
from herotable.table.legal import legal_actions
from herotable.table.ltl.commands import (
    Attack,
    Challenge,
    ChooseCritReward,
    DifficultyName,
    EndConflict,
    EndRound,
    Settle,
    StartConflict,
)
from herotable.table.state import Forbidden, TableError
from herotable.table.undo import Undo

from .helpers import accept_others, facts, hero, seen, text_seen
from .test_ltl_table import CID, setup


def _villain_attacks_and_comet_crits(service: TableService, dice) -> str:
    """Entropy attacks Comet with Decay (d12); Comet's standing defence is base Power (d10). Entropy rolls 1, Comet
    10: Comet wins with a critical success, and Entropy fails critically. The GM settles. The exchange's id."""
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [1, 10]
    opened = service.execute(CID, "gm", Attack("entropy", "comet", style="Decay"))
    accept_others(service, CID, "gm")  # Pat accepts first: the GM's Accept settles (R-LTL-3)
    service.execute(CID, "gm", Settle(crit_bonus=CritBonus.EXTRA_LEVEL))
    return opened.events[0].command_id


def _pending_levels(service: TableService, cid: str) -> int:
    c = service.state(CID).game.conflict
    return sum(p.levels for p in c.pending if p.target == cid)


def test_the_gm_settling_a_villain_s_attack_does_not_choose_the_hero_s_reward(service: TableService, dice):
    # R-LTL-8 (amended 2026-12-02): the winner's controller chooses; the GM's "extra level" on the settle is not a
    # choice for Pat's hero, and the exchange waits for Pat's choice
    roll = _villain_attacks_and_comet_crits(service, dice)
    assert _pending_levels(service, "entropy") == 1  # the exchange's level, no reward yet
    due = [p for kind, p in seen(service, CID, "pat") if kind == "ltl.crit_reward_due"]
    assert [(d["roll"], d["character"]) for d in due] == [(roll, "comet")]
    offered = [a for a in legal_actions(service.state(CID), "pat") if a.type == ChooseCritReward.type]
    assert [a.fixed["character"] for a in offered] == ["comet"]
    service.execute(CID, "pat", ChooseCritReward("comet", CritBonus.PLUS_ONE_NEXT))
    assert _pending_levels(service, "entropy") == 1
    service.execute(CID, "gm", EndRound())
    assert hero(service, CID, "comet").this_round == (NextRound.PLUS_ONE,)
    assert hero(service, CID, "entropy").this_round == (NextRound.MINUS_ONE,)  # its own critical failure


def test_the_hero_s_player_may_take_the_extra_level(service: TableService, dice):
    # R-LTL-8: the extra level of effect, within the cap, lands with the round's other losses
    _villain_attacks_and_comet_crits(service, dice)
    applied = service.execute(CID, "pat", ChooseCritReward("comet", CritBonus.EXTRA_LEVEL))
    assert [p["levels"] for kind, _, p in facts(applied) if kind == "ltl.loss_pending"] == [1]
    assert _pending_levels(service, "entropy") == 2


def test_a_player_settling_against_a_villain_leaves_the_villain_s_reward_to_the_gm(service: TableService, dice):
    # R-LTL-8 (amended): in the reverse case the villain's reward is the GM's choice, not a default
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [1, 10]  # Comet's Fisticuffs d12 rolls 1, Entropy's base d10 rolls 10
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    with pytest.raises(TableError) as refused:  # rules version 7: Comet's 1 can be no critical success of hers
        service.execute(CID, "pat", Settle(crit_bonus=CritBonus.OPPONENT_MINUS_ONE))
    assert refused.value.code == "ltl/no_critical"
    settle = next(a for a in legal_actions(service.state(CID), "pat") if a.type == Settle.type)
    assert settle.label == "Accept the roll" and not settle.fields  # one click: nothing to choose
    service.execute(CID, "pat", Settle())
    assert _pending_levels(service, "comet") == 1
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", ChooseCritReward("entropy", CritBonus.OPPONENT_MINUS_ONE))
    service.execute(CID, "gm", ChooseCritReward("entropy", CritBonus.EXTRA_LEVEL))
    assert _pending_levels(service, "comet") == 2


def test_the_round_waits_for_the_reward_and_the_gm_may_choose_for_an_absent_player(service: TableService, dice):
    # R-LTL-8 and R-T-3: the round cannot end while a reward is unchosen; the GM may act for any character, and the
    # log says so
    _villain_attacks_and_comet_crits(service, dice)
    offered = {a.type for a in legal_actions(service.state(CID), "gm")}
    assert EndRound.type not in offered and EndConflict.type not in offered
    head = service.store.head(CID)
    for cmd in (EndRound(), EndConflict()):
        with pytest.raises(TableError) as err:
            service.execute(CID, "gm", cmd)
        assert err.value.code == "ltl/crit_due" and "Captain Comet" in str(err.value)
    assert service.store.head(CID) == head
    chosen = service.execute(CID, "gm", ChooseCritReward("comet", CritBonus.REROLL_NEXT))
    assert [p["by_gm"] for kind, _, p in facts(chosen) if kind == "ltl.crit_reward_chosen"] == [True]
    assert "the GM chose for its player" in text_seen(service, CID, "pat")
    service.execute(CID, "gm", EndRound())
    assert hero(service, CID, "comet").this_round == (NextRound.REROLL,)


def test_a_choice_the_rules_refuse_says_why_and_changes_nothing(service: TableService, dice):
    # R-LTL-8 (amended): Entropy already carries one -1 from its own critical failure, so "opponent -1" adds nothing
    _villain_attacks_and_comet_crits(service, dice)
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", ChooseCritReward("comet", CritBonus.OPPONENT_MINUS_ONE))
    assert err.value.code == "critical/nothing_extra"
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", ChooseCritReward("entropy", CritBonus.EXTRA_LEVEL))
    assert err.value.code in ("table/not_your_character", "ltl/no_crit_due")
    assert service.store.head(CID) == head


def test_undoing_the_choice_gives_the_choice_back(service: TableService, dice):
    # R-T-4: the GM undoes the choice; the reward is due again and nothing of it stays
    _villain_attacks_and_comet_crits(service, dice)
    service.execute(CID, "pat", ChooseCritReward("comet", CritBonus.EXTRA_LEVEL))
    service.execute(CID, "gm", Undo())
    assert _pending_levels(service, "entropy") == 1
    assert [d.character for d in service.state(CID).game.crit_due] == ["comet"]


def test_the_settler_who_controls_the_winner_still_chooses_at_once(service: TableService, dice):
    # R-LTL-8: Pat settles Comet's own winning attack; the choice on the settle applies, nothing waits
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [12, 1]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle(crit_bonus=CritBonus.EXTRA_LEVEL))
    assert _pending_levels(service, "entropy") == 2
    assert service.state(CID).game.crit_due == ()


def test_a_reward_against_a_difficulty_offers_only_what_counts_there(service: TableService, dice):
    # R-LTL-8: against a difficulty there is no opponent to lose a level or roll -1: the GM settling Comet's
    # critical challenge leaves Pat a re-roll, +1 die type, or the GM's advantage
    setup(service)
    dice.faces = [12, 1]
    opened = service.execute(CID, "gm", Challenge("comet", DifficultyName.HARD, style="Fisticuffs"))
    service.execute(CID, "gm", Settle(opened.events[0].command_id))
    [offer] = [a for a in legal_actions(service.state(CID), "pat") if a.type == ChooseCritReward.type]
    assert set(offer.fields["bonus"].choices) == {"reroll_next", "plus_one_next", "other"}
    head = service.store.head(CID)
    with pytest.raises(RulesError) as err:
        service.execute(CID, "pat", ChooseCritReward("comet", CritBonus.EXTRA_LEVEL))
    assert err.value.code == "critical/no_opponent" and service.store.head(CID) == head


def test_a_critical_s_choices_are_offered_only_where_one_may_have_happened(service: TableService, dice):
    # R-LTL-8, issue 28: the settle asked for a reward and a mishap on every roll; a player is asked for a reward only
    # when their own die shows its highest face (what they cannot see stays unknown), the GM when the dice show one
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [5, 4]
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    for user in ("pat", "gm"):
        settle = next(a for a in legal_actions(service.state(CID), user) if a.type == Settle.type)
        assert not settle.fields
    accept_others(service, CID, "pat")
    service.execute(CID, "pat", Settle())
    service.execute(CID, "gm", EndRound())
    dice.faces = [12, 3]  # Comet's d12 shows 12: a critical is possible as far as her player can tell
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))
    accept_others(service, CID, "pat")  # the critical's choices belong to the Accept that settles
    settle = next(a for a in legal_actions(service.state(CID), "pat") if a.type == Settle.type)
    assert set(settle.fields) == {"crit_bonus"}
    gm_settle = next(a for a in legal_actions(service.state(CID), "gm") if a.type == Settle.type)
    assert not gm_settle.fields  # the GM sees Entropy's 3: no critical
