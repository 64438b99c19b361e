"""`herotable backup` and `herotable restore`: a backup taken while commands are written restores to campaigns
that replay; a bad backup, or a database already in place, changes nothing."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from herotable.backup import backup, restore
from herotable.cli import app
from herotable.dice import SeededRng
from herotable.service import TableService, fold_log
from herotable.store.chain import chain_problems
from herotable.store.port import StoreError
from herotable.store.sql import open_store
from herotable.table.audit import audit
from herotable.table.dice_roll import FreeRoll
from herotable.table.state import Ruleset


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _campaigns(path: Path) -> dict[str, int]:
    """Each campaign's event count, read straight from the file."""
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT campaign_id, count(*) FROM events GROUP BY campaign_id").fetchall()
    db.close()
    return dict(rows)


@pytest.fixture
def live(tmp_path: Path) -> tuple[Path, TableService, list[str]]:
    db = tmp_path / "live.db"
    service = TableService(open_store(_url(db)), rng=SeededRng("backup"))
    ids = [service.create_campaign("gm", "GM", f"Campaign {n}", Ruleset.LTL).campaign_id for n in range(2)]
    return db, service, ids


def test_a_backup_taken_while_commands_are_written_restores_to_campaigns_that_replay(tmp_path, live):
    db, service, ids = live
    stop = threading.Event()
    written = [0]

    def write() -> None:
        while not stop.is_set():
            for cid in ids:
                service.execute(cid, "gm", FreeRoll("3d6", label="while the backup runs"))
                written[0] += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while written[0] < 20:
            stop.wait(0.01)
        copied = backup(_url(db), tmp_path / "copy.db")
        while written[0] < copied.events + 20:  # the table goes on after the backup
            stop.wait(0.01)
    finally:
        stop.set()
        writer.join()
    assert copied.campaigns == 2 and copied.events >= 20
    assert (tmp_path / "copy.db").stat().st_mode & 0o777 == 0o600  # it holds password hashes too

    restored = tmp_path / "restored" / "herotable.db"
    result = restore(tmp_path / "copy.db", _url(restored))
    assert (result.campaigns, result.events) == (2, copied.events)
    store = open_store(_url(restored))
    live_store = service.store
    for cid in ids:
        log = store.load(cid)
        assert log and not chain_problems(log)
        # the backup is the live log as it was at one moment: a prefix of it, whole commands only
        assert log == live_store.load(cid)[: len(log)]
        assert fold_log(log) == fold_log(live_store.load(cid)[: len(log)])
        assert log[-1].command_id != live_store.load(cid)[len(log)].command_id
        report = audit(log)  # every command in the copy decides again as recorded
        assert report.clean and report.commands > 10
    store.close()


def test_a_restore_over_a_database_needs_replace_and_a_bad_backup_changes_nothing(tmp_path, live):
    db, service, ids = live
    service.execute(ids[0], "gm", FreeRoll("1d20"))
    copied = backup(_url(db), tmp_path / "copy.db")
    other = tmp_path / "other.db"
    TableService(open_store(_url(other))).create_campaign("gm", "GM", "Other", Ruleset.CONVICTION)
    before = _campaigns(other)

    with pytest.raises(StoreError, match="--replace"):
        restore(copied.path, _url(other))
    not_a_database = tmp_path / "notes.db"
    not_a_database.write_text("these are my notes, not a database")
    with pytest.raises(StoreError, match="not a SQLite database"):
        restore(not_a_database, _url(other), replace=True)
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as f:
        f.execute("CREATE TABLE t (x)")
    f.close()
    with pytest.raises(StoreError, match="not a herotable one"):
        restore(foreign, _url(other), replace=True)
    tampered = tmp_path / "tampered.db"
    backup(_url(db), tampered)
    with sqlite3.connect(tampered) as t:
        t.execute('UPDATE events SET data = \'{"expression": "99d6"}\' WHERE seq = 2')
    t.close()
    with pytest.raises(StoreError, match="hash chain"):
        restore(tampered, _url(other), replace=True)
    assert _campaigns(other) == before

    restore(copied.path, _url(other), replace=True)
    assert _campaigns(other) == _campaigns(copied.path)


def _files(directory: Path) -> dict[str, bytes]:
    """Every file in `directory` with its bytes: what a refused restore must leave exactly as it was."""
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir()) if path.is_file()}


def _damaged(tmp_path: Path, db: Path, name: str, *statements: str) -> Path:
    """A backup of `db` changed by `statements` (`:c` is the second campaign), as a cut or edited copy would be."""
    copy = tmp_path / f"{name}.db"
    backup(_url(db), copy)
    with sqlite3.connect(copy) as edit:
        cid = edit.execute("SELECT campaign_id FROM campaigns ORDER BY created_at, campaign_id").fetchall()[1][0]
        for statement in statements:
            edit.execute(statement, {"c": cid})
    edit.close()
    return copy


HEAD_DAMAGE = {
    # the log's last event is gone, the head still names it: the next command would land one past a gap
    "tail cut": (
        ["DELETE FROM events WHERE campaign_id = :c AND seq = (SELECT head FROM campaigns WHERE campaign_id = :c)"],
        "its head is at event 4 but its log ends at event 3",
    ),
    # the head (seq and hash) moved back one event, the event left behind it
    "head behind": (
        [
            "UPDATE campaigns SET head = head - 1, head_hash = (SELECT prev_hash FROM events WHERE campaign_id = :c "
            "AND seq = 4) WHERE campaign_id = :c"
        ],
        "its log runs on to event 4, past its head at event 3",
    ),
    # the head's seq is right but its hash is not the last event's: the next command would break the chain
    "head hash": (
        [
            "UPDATE campaigns SET head_hash = (SELECT prev_hash FROM events WHERE campaign_id = :c AND seq = 4) "
            "WHERE campaign_id = :c"
        ],
        "its head's hash is not the hash of its last event, 4",
    ),
}


@pytest.mark.parametrize("damage", HEAD_DAMAGE, ids=list(HEAD_DAMAGE))
def test_a_backup_whose_head_and_log_disagree_is_refused_naming_the_campaign_and_changes_nothing(
    tmp_path: Path, live: tuple[Path, TableService, list[str]], damage: str
) -> None:
    db, service, ids = live
    for cid in ids:
        for dice in ("1d20", "2d6", "3d4"):
            service.execute(cid, "gm", FreeRoll(dice))
    assert [service.store.head(cid) for cid in ids] == [4, 4]
    statements, what = HEAD_DAMAGE[damage]
    copy = _damaged(tmp_path, db, damage, *statements)
    there = tmp_path / "there"
    there.mkdir()
    existing = there / "herotable.db"
    kept = open_store(_url(existing))
    TableService(kept).create_campaign("gm", "GM", "Kept", Ruleset.CONVICTION)
    kept.close()
    before = _files(there)
    runner = CliRunner()
    fresh = tmp_path / "fresh" / "data" / "herotable.db"
    for target, options in ((existing, ["--replace"]), (existing, []), (there / "new.db", []), (fresh, [])):
        result = runner.invoke(app, ["restore", str(copy), "--database", _url(target), *options])
        assert result.exit_code == 1, (options, result.output)
        assert isinstance(result.exception, SystemExit)  # a refusal, not a traceback
        if target != existing or options:
            assert f"campaign 'Campaign 1' ({ids[1]})" in result.output and what in result.output, result.output
            assert "nothing was restored" in result.output and "Tip: " in result.output, result.output
        assert _files(there) == before
    assert not (tmp_path / "fresh").exists()


_SNAPSHOT_4 = "UPDATE snapshots SET state = {} WHERE campaign_id = :c AND seq = 4"
UNREADABLE = {
    # a copy made by a newer herotable, whose schema this one does not know
    "newer revision": (["UPDATE alembic_version SET version_num = 'ffff_newer'"], "schema revision 'ffff_newer'"),
    # snapshot rows whose payload is not a state: the server would start the campaign from them
    "snapshot not JSON": ([_SNAPSHOT_4.format("'garbage{'")], "its snapshot at event 4 is not JSON"),
    "snapshot not a state": (
        [_SNAPSHOT_4.format("""'{"x": 1}'""")],
        "its snapshot at event 4 is not a state this herotable reads ($.campaign_id: missing)",
    ),
    "snapshot without its game": (
        [_SNAPSHOT_4.format("json_remove(state, '$.game')")],
        "its snapshot at event 4 is not a state this herotable reads ($.game: missing)",
    ),
    "snapshot of another event": (
        [_SNAPSHOT_4.format("json_set(state, '$.seq', 2)")],
        "its snapshot at event 4 holds the state after event 2",
    ),
    # the last event cut with the head moved back to the one before: the snapshot still claims it
    "snapshot past the head": (
        [
            "DELETE FROM events WHERE campaign_id = :c AND seq = 4",
            "UPDATE campaigns SET head = 3, head_hash = (SELECT hash FROM events WHERE campaign_id = :c AND seq = 3) "
            "WHERE campaign_id = :c",
        ],
        "its snapshot at event 4 is past its head at event 3",
    ),
    "event data not JSON": (
        ["UPDATE events SET data = 'nope' WHERE campaign_id = :c AND seq = 2"],
        "campaign 'Campaign 1' ({cid}): its log holds an event that is not JSON",
    ),
}


@pytest.mark.parametrize("damage", UNREADABLE, ids=list(UNREADABLE))
def test_a_copy_restore_cannot_read_is_refused_in_one_sentence_with_exit_code_1_and_changes_nothing(
    tmp_path: Path, live: tuple[Path, TableService, list[str]], damage: str
) -> None:
    db, service, ids = live
    service.writer.snapshot_every = 2  # snapshots at 2 and 4
    for cid in ids:
        for dice in ("1d20", "2d6", "3d4"):
            service.execute(cid, "gm", FreeRoll(dice))
    statements, what = UNREADABLE[damage]
    copy = _damaged(tmp_path, db, damage.replace(" ", "-"), *statements)
    existing = tmp_path / "there" / "herotable.db"
    kept = open_store(_url(existing))
    TableService(kept).create_campaign("gm", "GM", "Kept", Ruleset.CONVICTION)
    kept.close()
    before = _files(existing.parent)
    result = CliRunner().invoke(app, ["restore", str(copy), "--database", _url(existing), "--replace"])
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), result.exception  # a refusal, not a traceback
    assert result.output.startswith(f"error: nothing was restored from {copy}: ")
    assert result.output.count("\n") == 1 and "Traceback" not in result.output, result.output
    assert what.format(cid=ids[1]) in result.output and "Tip: " in result.output, result.output
    assert _files(existing.parent) == before


def test_a_backup_never_overwrites_and_names_pg_dump_for_postgresql(tmp_path, live):
    db, _, _ = live
    existing = tmp_path / "existing.db"
    existing.write_text("keep me")
    with pytest.raises(StoreError, match="already exists"):
        backup(_url(db), existing)
    assert existing.read_text() == "keep me"
    with pytest.raises(StoreError, match="there is no database"):
        backup(_url(tmp_path / "missing.db"), tmp_path / "b.db")
    with pytest.raises(StoreError, match="pg_dump"):
        backup("postgresql://postgres@127.0.0.1:5432/test", tmp_path / "pg.db")
    assert not (tmp_path / "b.db").exists() and not (tmp_path / "pg.db").exists()


def test_the_backup_and_restore_commands(tmp_path, live):
    db, _, _ = live
    runner = CliRunner()
    made = runner.invoke(app, ["backup", str(tmp_path / "b.db"), "--database", _url(db)])
    assert made.exit_code == 0, made.output
    assert "backed up 2 campaigns" in made.output
    again = runner.invoke(app, ["backup", str(tmp_path / "b.db"), "--database", _url(db)])
    assert again.exit_code == 1 and "already exists" in again.output
    put = runner.invoke(app, ["restore", str(tmp_path / "b.db"), "--database", _url(tmp_path / "new.db")])
    assert put.exit_code == 0, put.output
    assert "restored 2 campaigns" in put.output
    refused = runner.invoke(app, ["restore", str(tmp_path / "b.db"), "--database", _url(tmp_path / "new.db")])
    assert refused.exit_code == 1 and "--replace" in refused.output


def test_a_restore_is_refused_while_a_server_holds_the_database(tmp_path: Path) -> None:
    import os
    import re
    import subprocess
    import sys

    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEROTABLE_")}
    env.update(HEROTABLE_DATA_DIR=str(data), HEROTABLE_HASH_MEMORY_KIB="256", HEROTABLE_HASH_ROUNDS="1")
    herotable = str(Path(sys.executable).with_name("herotable"))
    server = subprocess.Popen(
        [herotable, "serve", "--port", "0"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert server.stderr is not None
    try:
        for line in server.stderr:
            if re.search(r"running on http://", line):
                break
        else:
            pytest.fail(f"herotable serve ended (exit code {server.wait()}) without listening")
        database = data / "herotable.db"
        copy = tmp_path / "copy.db"
        assert CliRunner().invoke(app, ["backup", str(copy), "--database", _url(database)]).exit_code == 0
        before = database.read_bytes()
        refused = CliRunner().invoke(app, ["restore", str(copy), "--replace", "--database", _url(database)])
        assert refused.exit_code == 1 and "a herotable server is using" in refused.stderr
        assert "Tip: stop it (every worker), then restore" in refused.stderr
        assert database.read_bytes() == before
    finally:
        server.terminate()
        server.wait(20)
    done = CliRunner().invoke(app, ["restore", str(copy), "--replace", "--database", _url(database)])
    assert done.exit_code == 0, done.output  # the server let go of it as it stopped


def test_a_restore_through_another_spelling_of_a_served_database_is_refused_too(tmp_path: Path) -> None:
    from herotable.backup import hold_serving_lock

    real = tmp_path / "volume" / "live.db"
    service = TableService(open_store(_url(real)), rng=SeededRng("spelling"))
    service.create_campaign("gm", "GM", "Kept", Ruleset.LTL)
    copy = backup(_url(real), tmp_path / "copy.db").path
    (tmp_path / "link.db").symlink_to(real)
    served = tmp_path / "volume" / ".." / "link.db"
    hold_serving_lock(served)  # as a server started on the link holds it
    for spelling in (real, tmp_path / "link.db", Path(os.path.relpath(real))):
        with pytest.raises(StoreError, match="a herotable server is using"):
            restore(copy, _url(spelling), replace=True)


def test_a_restore_by_root_leaves_the_database_its_servers_owner_s(tmp_path: Path, live) -> None:
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another owner")
    db = live[0]
    copy = backup(_url(db), tmp_path / "copy.db").path
    os.chown(db, 65534, 65534)  # the server's own account (nobody, here)
    restore(copy, _url(db), replace=True)
    assert (db.stat().st_uid, db.stat().st_gid, db.stat().st_mode & 0o777) == (65534, 65534, 0o600)
