"""A user's list of campaigns comes from the membership read model (the `memberships` table, revision 0008): the store
keeps it from the membership facts in the transaction that writes them, on every backend, for appends, imports and
restored backups alike; the listing reads the user's rows and those campaigns' listing facts alone, so it does the
same work with 1 or 1,000 other users' campaigns in the store, or with much play in the user's own; a database at
revision 0007 gets the table filled from its logs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import sqlalchemy as sa

from herotable.backup import backup, restore
from herotable.dice import SeededRng
from herotable.service import MEMBERSHIP_FACTS, TableService, fold_log
from herotable.store import EventStore, InvalidExport, MemoryEventStore, StoreError, open_store
from herotable.store.chain import hash_of
from herotable.store.engine import create_store_engine
from herotable.store.export import digest, export_campaign, import_campaign
from herotable.store.migrate import current_revision, head_revision, upgrade
from herotable.store.port import Membership, NewEvent
from herotable.store.sql import SqlEventStore, parse_database_url
from herotable.table.campaign_settings import ArchiveCampaign, HandOver, RenameCampaign
from herotable.table.state import Role, Ruleset
from herotable.table.structure import EndScene, Join, RemoveMember, SetRole, StartAdventure, StartScene, StartSession

from .helpers import AT, CREATED, counted_work, write_at_old_revision
from .helpers import event as plain


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'members.db'}"
    made: str = request.getfixturevalue("postgres_schema")()
    return made


@pytest.fixture(params=["sqlite", "postgresql"])
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'members.db'}"
    made: str = request.getfixturevalue("postgres_schema")()
    return made


Listed = list[tuple[str, str, str, str, tuple[tuple[str, str], ...], bool]]


def listed(table: TableService, user: str) -> Listed:
    """What the listing says of each campaign: id, name, game, the user's role, its members with theirs, archived."""
    return [
        (
            s.campaign_id,
            s.name,
            s.ruleset.value,
            role.value,
            tuple((m.user, m.role.value) for m in s.members),
            s.archived,
        )
        for s, role in table.campaigns_of(user)
    ]


def folded_whole(store: EventStore, user: str) -> Listed:
    """The same, worked out the slow way the listing must agree with: every campaign's whole log folded."""
    out = []
    for row in store.campaigns():
        s = fold_log(store.load(row.campaign_id))
        role = s.role_of(user)
        if role is not None:
            members = tuple((m.user, m.role.value) for m in s.members)
            out.append((s.campaign_id, s.name, s.ruleset.value, role.value, members, s.archived))
    return out


def rows_match_the_fold(store: EventStore) -> None:
    """Every campaign's rows in the read model are its folded members, role for role."""
    for row in store.campaigns():
        s = fold_log(store.load(row.campaign_id))
        want = [Membership(row.campaign_id, m.user, m.role.value) for m in sorted(s.members, key=lambda m: m.user)]
        assert store.members(row.campaign_id) == want, row.campaign_id


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
    assert [(s, r) for s, _, _, r, _, _ in listed(table, "gwen")] == [(first, "gm"), (second, "player")]
    assert listed(table, "pat")[0][1:4] == ("Harbour Nights", "ltl", "player")
    assert listed(table, "pat")[1][1:5] == ("Ninja Island", "conviction", "gm", (("pat", "gm"), ("gwen", "player")))
    assert [r for _, _, _, r, _, _ in listed(table, "sly")] == ["spectator"]
    assert listed(table, "nobody") == []
    table.execute(first, "gwen", SetRole("sly", Role.PLAYER))
    table.execute(second, "pat", RemoveMember("gwen"))
    assert [r for _, _, _, r, _, _ in listed(table, "sly")] == ["player"]
    assert [c for c, *_ in listed(table, "gwen")] == [first]
    table.execute(first, "gwen", RenameCampaign("Harbour Days"))
    table.execute(first, "gwen", HandOver("pat"))  # gwen plays on; pat is the GM now
    table.execute(first, "pat", ArchiveCampaign())
    assert listed(table, "gwen") == [
        (first, "Harbour Days", "ltl", "player", (("gwen", "player"), ("pat", "gm"), ("sly", "player")), True)
    ]
    table.execute(first, "sly", RemoveMember("sly"))
    assert listed(table, "sly") == []
    for user in ("gwen", "pat", "sly", "nobody"):
        assert listed(table, user) == folded_whole(table.store, user), user
    rows_match_the_fold(table.store)
    assert table.store.memberships_of("pat") == [Membership(first, "pat", "gm"), Membership(second, "pat", "gm")]
    table.delete_campaign(first, "pat")
    assert table.store.memberships_of("pat") == [Membership(second, "pat", "gm")]
    assert table.store.memberships_of("gwen") == []
    table.store.close()


def test_an_imported_campaign_is_listed_for_its_members(url: str) -> None:
    source = TableService(MemoryEventStore(), rng=SeededRng(2))
    cid = source.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    source.execute(cid, "pat", Join("Pat"))
    source.execute(cid, "sly", Join("Sly", Role.SPECTATOR))
    source.execute(cid, "gwen", SetRole("sly", Role.PLAYER))
    source.execute(cid, "gwen", RemoveMember("pat"))
    document = export_campaign(source.store, cid)
    store = open_store(url)
    try:
        import_campaign(store, document)
        table = TableService(store)
        assert listed(table, "sly") == listed(source, "sly") == folded_whole(store, "sly")
        assert store.memberships_of("gwen") == [Membership(cid, "gwen", "gm")]
        assert store.memberships_of("pat") == []
        rows_match_the_fold(store)
    finally:
        store.close()


def test_a_membership_fact_that_cannot_be_read_writes_nothing(url: str) -> None:
    table = TableService(open_store(url), rng=SeededRng(3))
    cid = table.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    head = table.store.head(cid)
    bad = [
        NewEvent("member.joined", {"user": "pat", "name": "Pat", "role": "overlord"}, "k-bad", AT, version=2),
        NewEvent("member.joined", {"user": "pat", "role": "player"}, "k-bad", AT, version=2),
        NewEvent("member.role_changed", {"user": "gwen", "role": "player"}, "k-bad", AT, version=9),
    ]
    for event in bad:
        with pytest.raises(StoreError):
            table.store.append(cid, head, [plain("k-bad"), event])
        assert table.store.head(cid) == head
        assert table.store.members(cid) == [Membership(cid, "gwen", "gm")]
        assert table.store.memberships_of("pat") == []
    table.store.close()


def _with_members(count: int) -> list[tuple[str, str]]:
    return [(f"u{n}", f"User {n}") for n in range(count)]


def _fill(store: EventStore, first: int, last: int) -> None:
    """Other users' campaigns, numbered first..last-1, each with its GM and, every third, a player: recorded in
    memory, then imported (one transaction each, the membership rows with it)."""
    made = TableService(MemoryEventStore(), rng=SeededRng(first))
    for n in range(first, last):
        cid = made.create_campaign(
            f"gm{n}", f"GM {n}", f"Other {n}", Ruleset.LTL, campaign_id=f"other{n:04}"
        ).campaign_id
        if n % 3 == 0:
            made.execute(cid, f"pl{n}", Join(f"Player {n}"))
        store.import_events(made.store.campaign(cid), made.store.load(cid))


def listing_work(table: TableService, user: str, on_postgres: Callable[[], None]) -> tuple[Listed, list[int]]:
    on_postgres()
    with counted_work(table.store) as counts:
        out = listed(table, user)
    return out, counts


def test_listing_a_user_s_campaigns_does_the_same_work_with_1_or_1000_other_campaigns(sql_url: str) -> None:
    # listing one user's campaigns does not grow with other users' campaigns (1 vs 1,000)
    store = open_store(sql_url)
    table = TableService(store, rng=SeededRng(4))
    mine = table.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    _fill(store, 0, 1)
    theirs = table.create_campaign("pat", "Pat", "Ninja Island", Ruleset.CONVICTION).campaign_id
    table.execute(theirs, "gwen", Join("Gwen", Role.SPECTATOR))
    table.execute(mine, "pat", Join("Pat"))

    def analyze() -> None:  # PostgreSQL plans by its statistics: give it true ones
        if isinstance(store, SqlEventStore) and store.engine.dialect.name == "postgresql":
            with store.engine.begin() as connection:
                connection.exec_driver_sql("ANALYZE")

    small, small_work = listing_work(table, "gwen", analyze)
    assert small == folded_whole(store, "gwen")  # what listings said before the read model
    _fill(store, 1, 1000)
    assert len(store.campaigns()) == 1002
    big, big_work = listing_work(table, "gwen", analyze)
    assert big == small
    assert [(c, r) for c, _, _, r, _, _ in big] == [(mine, "gm"), (theirs, "spectator")]
    assert listed(table, "pl999") == [
        ("other0999", "Other 999", "ltl", "player", (("gm999", "gm"), ("pl999", "player")), False)
    ]
    assert big_work[0] == small_work[0]  # the same statements
    assert big_work[1] <= small_work[1] * 1.1, (small_work, big_work)  # and the same rows visited
    store.close()


def test_the_old_way_of_listing_would_fail_the_work_check(tmp_path: Path) -> None:
    # the check above can fail: reading every campaign's membership facts (as listings did before 0008) visits
    # rows in proportion to the store's campaigns
    store = open_store(f"sqlite:///{tmp_path / 'old-way.db'}")
    _fill(store, 0, 1)
    with counted_work(store) as small:
        store.events_of_types(MEMBERSHIP_FACTS, [row.campaign_id for row in store.campaigns()])
    _fill(store, 1, 300)
    with counted_work(store) as big:
        store.events_of_types(MEMBERSHIP_FACTS, [row.campaign_id for row in store.campaigns()])
    assert big[1] > small[1] * 100
    store.close()


def test_a_database_at_revision_0007_lists_its_campaigns_after_the_upgrade(sql_url: str) -> None:
    # revision 0008 fills the membership table from the logs already stored: every campaign survives the upgrade
    # with its members listed, as the fold of its whole log says; a campaign recorded before facts stays unlisted
    engine = create_store_engine(parse_database_url(sql_url))
    upgrade(engine, "0007")
    old = TableService(MemoryEventStore(), rng=SeededRng(6))
    first = old.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    second = old.create_campaign("pat", "Pat", "Ninja Island", Ruleset.CONVICTION).campaign_id
    third = old.create_campaign("sly", "Sly", "Empty Docks", Ruleset.LTL).campaign_id
    old.execute(first, "pat", Join("Pat"))
    old.execute(first, "sly", Join("Sly", Role.SPECTATOR))
    old.execute(first, "kit", Join("Kit"))
    old.execute(first, "gwen", SetRole("sly", Role.PLAYER))
    old.execute(first, "gwen", RemoveMember("kit"))
    old.execute(first, "gwen", StartScene())
    old.execute(first, "gwen", RenameCampaign("Harbour Days"))
    old.execute(first, "gwen", HandOver("pat"))
    old.execute(second, "gwen", Join("Gwen", Role.SPECTATOR))
    old.execute(second, "pat", ArchiveCampaign())
    for cid in (first, second, third):
        write_at_old_revision(engine, old.store, cid)
    legacy = replace(old.store.campaign(third), campaign_id="legacy", log_version=1)
    with engine.begin() as connection:
        connection.execute(
            sa.text(
                "INSERT INTO campaigns (campaign_id, name, ruleset, created_at, head, log_version, head_hash) "
                "VALUES (:campaign_id, :name, :ruleset, :created_at, 1, 1, '')"
            ),
            {k: v for k, v in vars(legacy).items() if k in ("campaign_id", "name", "ruleset", "created_at")},
        )
        connection.execute(
            sa.text(
                "INSERT INTO events (campaign_id, seq, type, version, command_id, at, actor, visibility, owner, data, "
                "rules_version, command, prev_hash, hash, stream_pos) VALUES ('legacy', 1, 'member.joined', 1, 'k1', "
                ":at, 'gwen', 'public', NULL, '{\"summary\": {}}', 0, NULL, '', 'h', 1)"
            ),
            {"at": CREATED},
        )
        assert "memberships" not in sa.inspect(connection).get_table_names()
    engine.dispose()
    store = open_store(sql_url)
    try:
        assert isinstance(store, SqlEventStore)
        assert current_revision(store.engine) == head_revision() >= "0008"
        table = TableService(store)
        for user in ("gwen", "pat", "sly", "kit"):
            assert listed(table, user) == listed(old, user), user
        assert [(c, r) for c, _, _, r, _, _ in listed(table, "gwen")] == [(first, "player"), (second, "spectator")]
        assert listed(table, "pat")[0][1:] == (
            "Harbour Days", "ltl", "gm", (("gwen", "player"), ("pat", "gm"), ("sly", "player")), False,
        )  # fmt: skip
        assert listed(table, "pat")[1][-1] is True  # archived
        assert store.members("legacy") == []
        assert store.members(first) == [
            Membership(first, "gwen", "player"), Membership(first, "pat", "gm"), Membership(first, "sly", "player"),
        ]  # fmt: skip
        assert store.members(third) == [Membership(third, "sly", "gm")]
        for cid in (first, second, third):
            assert store.load(cid) == old.store.load(cid)  # the logs are untouched
        table.execute(third, "kit", Join("Kit"))  # and the table is kept from here on
        assert listed(table, "kit") == [
            (third, "Empty Docks", "ltl", "player", (("sly", "gm"), ("kit", "player")), False)
        ]
        with store.engine.connect() as connection:
            indexes = {ix["name"] for ix in sa.inspect(connection).get_indexes("events")}
            assert "ix_events_campaign_type" in indexes and "ix_events_type" not in indexes
            assert {ix["name"] for ix in sa.inspect(connection).get_indexes("memberships")} == {"ix_memberships_user"}
    finally:
        store.close()


def test_an_unreadable_membership_fact_stops_the_upgrade_and_changes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'odd.db'}"
    engine = create_store_engine(parse_database_url(url))
    upgrade(engine, "0007")
    old = TableService(MemoryEventStore(), rng=SeededRng(7))
    cid = old.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    write_at_old_revision(engine, old.store, cid)
    with engine.begin() as connection:
        connection.exec_driver_sql("UPDATE events SET version = 7 WHERE type = 'campaign.created'")
    with pytest.raises(RuntimeError, match="version 7"):
        upgrade(engine)
    assert current_revision(engine) == "0007"
    with engine.connect() as connection:
        assert "memberships" not in sa.inspect(connection).get_table_names()
    engine.dispose()


def test_play_in_a_user_s_own_campaign_does_not_enter_the_listing_s_work(sql_url: str) -> None:
    # the listing reads a campaign's listing facts by (campaign, type), never walking its whole log
    store = open_store(sql_url)
    table = TableService(store, rng=SeededRng(8))
    mine = table.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    table.execute(mine, "pat", Join("Pat"))
    table.execute(mine, "gwen", StartAdventure())
    table.execute(mine, "gwen", StartSession())

    def analyze() -> None:
        if isinstance(store, SqlEventStore) and store.engine.dialect.name == "postgresql":
            with store.engine.begin() as connection:
                connection.exec_driver_sql("ANALYZE")

    before, before_work = listing_work(table, "pat", analyze)
    for _ in range(300):
        table.execute(mine, "gwen", StartScene())
        table.execute(mine, "gwen", EndScene())
    after, after_work = listing_work(table, "pat", analyze)
    assert before == after == folded_whole(store, "pat")
    assert after_work[1] <= before_work[1] * 1.1, (before_work, after_work)
    store.close()


def test_a_restored_backup_lists_its_campaigns_whatever_revision_it_was_taken_at(tmp_path: Path) -> None:
    # a backup holds the memberships table as it was; one taken at revision 0007 gets it filled when restored
    old = TableService(MemoryEventStore(), rng=SeededRng(9))
    cid = old.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    old.execute(cid, "pat", Join("Pat"))
    old.execute(cid, "gwen", RenameCampaign("Harbour Days"))
    at_0007, now = tmp_path / "at-0007.db", tmp_path / "now.db"
    engine = create_store_engine(parse_database_url(f"sqlite:///{at_0007}"))
    upgrade(engine, "0007")
    write_at_old_revision(engine, old.store, cid)
    engine.dispose()
    store = open_store(f"sqlite:///{now}")
    import_campaign(store, export_campaign(old.store, cid))
    store.close()
    for source in (at_0007, now):
        copy = tmp_path / f"{source.stem}.backup"
        backup(f"sqlite:///{source}", copy)
        target = tmp_path / "restored" / f"{source.stem}.db"
        restore(copy, f"sqlite:///{target}")
        restored = open_store(f"sqlite:///{target}")
        try:
            for user in ("gwen", "pat"):
                assert listed(TableService(restored), user) == listed(old, user), (source, user)
        finally:
            restored.close()


def test_an_export_whose_membership_fact_cannot_be_read_is_refused_and_imports_nothing(url: str) -> None:
    source = TableService(MemoryEventStore(), rng=SeededRng(10))
    cid = source.create_campaign("gwen", "Gwen", "Harbour Nights", Ruleset.LTL).campaign_id
    source.execute(cid, "pat", Join("Pat"))
    document = export_campaign(source.store, cid)
    prev = ""
    for event in document["events"]:  # a role no table has, with the chain and digest made whole again
        if event["type"] == "member.joined":
            event["data"]["role"] = "overlord"
        event["prev_hash"] = prev
        event["hash"] = prev = hash_of(prev, SimpleNamespace(**event))
    document["sha256"] = digest(document["campaign"], document["events"], document.get("images"))
    store = open_store(url)
    try:
        with pytest.raises(InvalidExport, match="overlord"):
            import_campaign(store, document)
        assert store.campaigns() == [] and store.memberships_of("gwen") == store.memberships_of("pat") == []
    finally:
        store.close()
