"""A user's list of campaigns comes from the membership facts alone (revision 0006 indexes events by type), never
from loading whole logs: right after joins, role changes and removals, on every backend, and after the upgrade."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from herotable.dice import SeededRng
from herotable.service import TableService
from herotable.store import open_store
from herotable.store.engine import create_store_engine
from herotable.store.migrate import upgrade
from herotable.store.sql import SqlEventStore, parse_database_url
from herotable.table.state import Role, Ruleset
from herotable.table.structure import EndScene, Join, RemoveMember, SetRole, StartAdventure, StartScene, StartSession


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'members.db'}"
    made: str = request.getfixturevalue("postgres_schema")()
    return made


def _listed(table: TableService, user: str) -> list[tuple[str, str, int]]:
    return [(s.name, role.value, len(s.members)) for s, role in table.campaigns_of(user)]


def test_each_user_sees_the_campaigns_they_belong_to_with_their_role(url: str) -> None:
    table = TableService(open_store(url), rng=SeededRng(1))
    first = table.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    second = table.create_campaign("pat", "Pat", "Ninja Island", Ruleset.CONVICTION).campaign_id
    table.execute(first, "pat", Join("Pat"))
    table.execute(first, "sly", Join("Sly", Role.SPECTATOR))
    table.execute(second, "gwen", Join("Gwen"))
    table.execute(first, "gwen", StartAdventure())
    table.execute(first, "gwen", StartSession())
    for _ in range(10):  # play does not enter the listing
        table.execute(first, "gwen", StartScene())
        table.execute(first, "gwen", EndScene())
    assert _listed(table, "gwen") == [("Harbour Nights", "gm", 3), ("Ninja Island", "player", 2)]
    assert _listed(table, "pat") == [("Harbour Nights", "player", 3), ("Ninja Island", "gm", 2)]
    assert _listed(table, "sly") == [("Harbour Nights", "spectator", 3)]
    assert _listed(table, "nobody") == []
    table.execute(first, "gwen", SetRole("sly", Role.PLAYER))
    table.execute(second, "pat", RemoveMember("gwen"))
    assert _listed(table, "sly") == [("Harbour Nights", "player", 3)]
    assert _listed(table, "gwen") == [("Harbour Nights", "gm", 3)]
    table.execute(first, "sly", RemoveMember("sly"))
    assert _listed(table, "sly") == []


def test_a_database_at_revision_0005_lists_its_campaigns_after_the_upgrade(tmp_path: Path) -> None:
    # revision 0006 adds an index, nothing else: the campaigns recorded at 0005 list and load as before
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = create_store_engine(parse_database_url(url))
    upgrade(engine, "0005")
    old = TableService(SqlEventStore(engine), rng=SeededRng(2))
    cid = old.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    old.execute(cid, "pat", Join("Pat"))
    head = old.store.head(cid)
    engine.dispose()
    store = open_store(url)
    table = TableService(store)
    assert _listed(table, "pat") == [("Harbour Nights", "player", 2)]
    assert store.head(cid) == head
    with sa.create_engine(url).connect() as connection:
        indexes = {row[1] for row in connection.exec_driver_sql("PRAGMA index_list('events')")}
    assert "ix_events_type" in indexes
    store.close()
