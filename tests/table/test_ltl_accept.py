"""One Accept for each controller of an exchange (R-LTL-3, R-LTL-9, R-T-3; Larger Than Life rules version 8): an
exchange settles once everyone whose character rolled in it has accepted it as it stands, so neither side loses the
re-roll or Karma it meant to spend to the other side's quicker click; the GM may settle it for an absent player."""

from __future__ import annotations

import pytest

from herotable.ltl.task import CritBonus, RerollSource
from herotable.service import TableService
from herotable.table.ltl.commands import Attack, Reroll, Settle, StartConflict
from herotable.table.state import Forbidden, TableError
from herotable.table.undo import Undo

from .helpers import facts, seen_types
from .test_ltl_table import CID, setup


def _fight(service: TableService, dice, faces=(6, 4)) -> None:
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("nova", "heroes"), ("entropy", "villains"))))
    dice.faces = list(faces)
    service.execute(CID, "pat", Attack("comet", "entropy", style="Fisticuffs"))


def _kinds(service: TableService, user: str) -> list[tuple[str, str]]:
    return [(a.type, a.label) for a in service.legal_actions(CID, user) if a.type == "ltl.settle"]


def test_a_players_exchange_waits_for_the_gm_who_rolled_the_other_side(service, dice):
    _fight(service, dice)
    accepted = service.execute(CID, "pat", Settle())
    assert [t for t, _, _ in facts(accepted)] == ["ltl.roll_accepted"]
    assert facts(accepted)[0][2]["characters"] == ["comet"]
    open_ = service.state(CID).game.conflict.open
    assert open_ is not None and open_.accepted == ("comet",)
    # everyone reads whom the exchange waits for; the one who accepted is offered no second Accept
    view = service.view(CID, "sam")["game"]["conflict"]["open"]
    assert view["accepted"] == ["comet"] and view["waiting"] == ["entropy"]
    assert _kinds(service, "pat") == []
    assert ("ltl.settle", "Accept the roll") in _kinds(service, "gm")
    settled = service.execute(CID, "gm", Settle())
    assert "ltl.task_settled" in [t for t, _, _ in facts(settled)]
    assert service.state(CID).game.conflict.open is None
    assert "ltl.roll_accepted" in seen_types(service, CID, "sam")


def test_the_gm_accepting_first_leaves_the_player_their_re_roll(service, dice):
    _fight(service, dice, faces=(3, 7))
    service.execute(CID, "gm", Settle())
    assert service.state(CID).game.conflict.open is not None  # still the player's to answer
    dice.faces = [9]
    rerolled = service.execute(CID, "pat", Reroll("comet", RerollSource.MOTIVATION))
    # everyone reads that the exchange changed and is to be accepted again; the re-rolled die stays Pat's
    assert next((t, v) for t, v, _ in facts(rerolled)) == ("ltl.acceptances_lapsed", "public")
    assert "ltl.acceptances_lapsed" in seen_types(service, CID, "sam")
    # a re-roll changes the exchange: the GM, who accepted it before, may answer it again
    assert service.state(CID).game.conflict.open.accepted == ()
    assert ("ltl.settle", "Accept the roll") in _kinds(service, "gm")
    service.execute(CID, "pat", Settle())
    assert service.state(CID).game.conflict.open is not None
    service.execute(CID, "gm", Settle())
    assert service.state(CID).game.conflict.open is None


def test_accepting_twice_is_refused_naming_whom_it_waits_for_and_writes_nothing(service, dice):
    _fight(service, dice)
    service.execute(CID, "pat", Settle())
    head = service.store.head(CID)
    with pytest.raises(TableError) as err:
        service.execute(CID, "pat", Settle())
    assert err.value.code == "ltl/already_accepted" and "Doctor Entropy" in str(err.value)
    assert service.store.head(CID) == head
    with pytest.raises(Forbidden):  # a player with no character in the exchange accepts nothing
        service.execute(CID, "sam", Settle())


def test_the_gm_settles_for_an_absent_player_and_a_player_cannot(service, dice):
    _fight(service, dice)
    with pytest.raises(Forbidden):
        service.execute(CID, "pat", Settle(for_everyone=True))
    labels = [label for _, label in _kinds(service, "gm")]
    assert labels == ["Accept the roll", "Settle it for everyone now (waiting for Captain Comet)"]
    settled = service.execute(CID, "gm", Settle(for_everyone=True))
    assert "ltl.task_settled" in [t for t, _, _ in facts(settled)]


def test_a_critical_choice_waits_for_the_last_accept(service, dice):
    # R-LTL-8: a critical's reward is chosen when the exchange settles; an earlier Accept chooses nothing, and a
    # reward its winner could not choose then is asked of them after (CritRewardDue)
    _fight(service, dice, faces=(12, 1))
    assert not any("crit_bonus" in a.fields for a in service.legal_actions(CID, "pat") if a.type == "ltl.settle")
    with pytest.raises(TableError) as err:
        service.execute(CID, "pat", Settle(crit_bonus=CritBonus.PLUS_ONE_NEXT))
    assert err.value.code == "ltl/no_critical"
    service.execute(CID, "pat", Settle())
    settled = service.execute(CID, "gm", Settle())
    kinds = [t for t, _, _ in facts(settled)]
    assert "ltl.task_settled" in kinds and "ltl.crit_reward_due" in kinds


def test_one_controller_of_both_sides_accepts_once(service, dice):
    setup(service)
    service.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    dice.faces = [5, 5]
    service.execute(CID, "gm", Attack("entropy", "comet"))
    # the GM attacks with the villain; Pat's hero defends: Pat's Accept is needed too
    service.execute(CID, "gm", Settle())
    assert service.state(CID).game.conflict.open is not None
    assert ("ltl.settle", "Accept the roll") in _kinds(service, "pat")
    service.execute(CID, "pat", Settle())
    assert service.state(CID).game.conflict.open is None


def test_an_accept_is_undone_like_any_act(service, dice):
    _fight(service, dice)
    service.execute(CID, "pat", Settle())
    service.execute(CID, "pat", Undo())
    assert service.state(CID).game.conflict.open.accepted == ()
