"""A campaign of each game played through scenes, a conflict or a dramatic scene and an adventure boundary,
undone, exported and restored into an empty database, on SQLite and PostgreSQL (R-T-1)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from herotable.conviction import Abilities, Nature
from herotable.conviction import Role as CvRole
from herotable.dice import SeededRng
from herotable.service import TableService, replay_events, verified_import
from herotable.store import export_campaign, open_store
from herotable.table.conviction.commands import (
    Announce,
    BeginTurns,
    CallCheck,
    CreateCvCharacter,
    CvSheet,
    DesignateWit,
    Reroll,
    RollCheck,
    StartRound,
)
from herotable.table.state import Ruleset
from herotable.table.structure import (
    EndAdventure,
    EndScene,
    EndSession,
    Join,
    MarkDramatic,
    StartAdventure,
    StartScene,
    StartSession,
)
from herotable.table.undo import Undo

from .test_export_cli import played_campaign


@pytest.fixture(params=["sqlite", "postgresql"])
def new_url(request: pytest.FixtureRequest, tmp_path) -> Callable[[], str]:
    if request.param == "sqlite":
        names = iter(range(100))
        return lambda: f"sqlite:///{tmp_path / f'db{next(names)}.db'}"
    schema = request.getfixturevalue("postgres_schema")
    return schema  # type: ignore[no-any-return]


def restore_and_compare(service: TableService, campaign_id: str, target_url: str) -> None:
    document = export_campaign(service.store, campaign_id)
    target = open_store(target_url)
    assert target.campaigns() == []
    restored = verified_import(target, document)
    assert restored == service.state(campaign_id) == TableService(target).state(campaign_id)
    assert replay_events(target.load(campaign_id)) == restored
    target.close()


def test_larger_than_life_campaign_round_trip(new_url):
    service = played_campaign(new_url())  # scenes, a conflict, an undo, the end of an adventure
    state = service.state("hn")
    assert state.structure.adventure == 1 and not state.structure.in_adventure
    assert any(e.type == "action.undone" for e in service.store.load("hn"))
    restore_and_compare(service, "hn", new_url())


def test_conviction_campaign_round_trip(new_url):
    service = TableService(open_store(new_url()), rng=SeededRng(5))
    service.create_campaign("gm", "Gwen", "Ninja Island", Ruleset.CONVICTION, campaign_id="ni")
    service.execute("ni", "ana", Join("Ana"))
    hero = CvSheet(
        name="Kestrel",
        level=3,
        roles=(CvRole.WARRIOR,),
        toughness=2,
        nature=Nature("Loyal", "Reckless"),
        abilities=Abilities(strength=2, dexterity=1, constitution=1, intelligence=0, wisdom=1, charisma=2),
        combat_bonus=2,
        skills=(("Notice", 4),),
    )
    service.execute("ni", "ana", CreateCvCharacter("kes", hero))
    for cmd in (StartAdventure(), StartSession(), StartScene(), StartRound(), BeginTurns()):
        service.execute("ni", "gm", cmd)
    call = service.execute("ni", "gm", CallCheck("kes", 25, label="climb the mast")).events[0].command_id
    check = service.execute("ni", "ana", RollCheck("kes", call=call)).events[-1].command_id  # R-T-3
    service.execute("ni", "ana", Reroll(check))  # R-CV-4: a Conviction re-roll while pending
    service.execute("ni", "ana", Announce(check))
    service.execute("ni", "gm", StartRound())  # R-CV-3: one spend a round
    service.execute("ni", "ana", DesignateWit("kes", "Dinosaurs can't swim. Pirates can.", "kes", ("kes",)))
    service.execute("ni", "gm", Undo())
    assert service.state("ni").game.hero("kes").conviction == 3  # level 3 maximum 4, one spent on the re-roll
    service.execute("ni", "gm", MarkDramatic())
    for cmd in (EndScene(), EndSession(), EndAdventure()):
        service.execute("ni", "gm", cmd)
    restore_and_compare(service, "ni", new_url())
