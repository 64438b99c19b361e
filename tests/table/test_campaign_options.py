"""A game's campaign options, chosen when the campaign is made and changed in play by the GM as a fact (R-T-1,
R-LTL-12, R-CV-8): each checked against what the game lists, changed only while nothing is open, and refused in
words otherwise."""

from __future__ import annotations

import pytest

from herotable.ltl.options import Initiative
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService, replay_events
from herotable.store import MemoryEventStore
from herotable.table.campaign_settings import ChangeOptions
from herotable.table.commands import InvalidCommand
from herotable.table.game import GAMES, OptionSpec, checked_options
from herotable.table.ltl.commands import CreateLtlCharacter, StartConflict
from herotable.table.render import render
from herotable.table.state import Forbidden, Ruleset, TableError
from herotable.table.structure import Join, StartAdventure, StartScene, StartSession
from herotable.table.undo import Undo

CID = "harbour"


@pytest.fixture
def svc() -> TableService:
    service = TableService(MemoryEventStore())
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id=CID, options={"exploding": True})
    service.execute(CID, "pat", Join("Pat"))
    service.execute(CID, "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute(CID, "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True))
    for cmd in (StartAdventure(), StartSession(), StartScene()):
        service.execute(CID, "gm", cmd)
    return service


def test_the_gm_changes_an_option_between_scenes_and_everyone_reads_it(svc):
    assert svc.state(CID).game.options.exploding is True  # chosen when the campaign was made
    changed = svc.execute(CID, "gm", ChangeOptions({"initiative": "each_round", "exploding": True}))
    [event] = changed.events
    assert event.type == "campaign.options_changed"
    assert dict(event.data) == {"options": {"initiative": "each_round", "exploding": True}}
    assert svc.state(CID).game.options.initiative is Initiative.EACH_ROUND
    assert svc.view(CID, "pat")["game"]["options"]["initiative"] == "each_round"
    said = render(svc.state(CID), svc.stream(CID, "pat", limit=100).seen[-1].fact)
    assert said is not None and "Initiative: Initiative rolled each round; Exploding dice: on" in said
    assert replay_events(svc.store.load(CID)) == svc.state(CID)
    with pytest.raises(TableError):  # a line undo does not cross, like the campaign's other settings
        svc.execute(CID, "gm", Undo())
    assert svc.state(CID).game.options.initiative is Initiative.EACH_ROUND


def test_options_are_refused_in_words_and_nothing_changes(svc):
    head = svc.store.head(CID)
    for cmd, error, words in (
        (
            ChangeOptions({"initiative": "sometimes"}),
            InvalidCommand,
            "one of: simultaneous (Everyone at once), each_round (Initiative rolled each round), once",
        ),
        (ChangeOptions({"effect_cap": 9}), InvalidCommand, "from 1 to 6"),
        (ChangeOptions({"exploding": "yes"}), InvalidCommand, "true or false"),
        (ChangeOptions({"weather": "rain"}), InvalidCommand, "choose among: initiative"),
        (ChangeOptions({}), InvalidCommand, "at least one option"),
    ):
        with pytest.raises(error) as refused:
            svc.execute(CID, "gm", cmd)
        assert words in refused.value.fix or words in refused.value.reason, refused.value
    with pytest.raises(Forbidden):
        svc.execute(CID, "pat", ChangeOptions({"initiative": "once"}))
    assert svc.store.head(CID) == head  # nothing was written
    svc.execute(CID, "gm", StartConflict((("comet", "heroes"), ("entropy", "villains"))))
    with pytest.raises(TableError) as busy:  # from the next round or scene: never in the middle of one
        svc.execute(CID, "gm", ChangeOptions({"initiative": "once"}))
    assert "the conflict is in round 1" in busy.value.reason
    assert svc.state(CID).game.options.initiative is Initiative.SIMULTANEOUS


def test_each_game_lists_its_options_with_words_and_an_option_may_be_fixed_once_made():
    for game in GAMES.values():
        for spec in game.option_specs:
            assert spec.title and spec.about.endswith(".") and spec.rule.startswith("R-")
            assert spec.name in game.default_options()
    fixed = (OptionSpec("dice", "Dice", "Which dice.", GAMES[Ruleset.LTL].option_specs[0].domain, changeable=False),)
    assert checked_options(fixed, {"dice": "once"}) == {"dice": "once"}
    with pytest.raises(TableError) as refused:
        checked_options(fixed, {"dice": "once"}, changing=True)
    assert "cannot change in play" in refused.value.reason
