"""Separate processes on one database (SQLite file, PostgreSQL): racing writers, openers, and a killed writer."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from herotable.store import open_store

from .helpers import CREATED, assert_whole_log, command
from .workers import open_and_create, race

SPAWN = multiprocessing.get_context("spawn")


def test_processes_racing_for_the_head_lose_and_duplicate_nothing(shared_url: str) -> None:
    store = open_store(shared_url)
    store.create_campaign("c1", "Race", "conviction", CREATED)
    players, commands = 4, 8
    with SPAWN.Manager() as manager:
        start = manager.Barrier(players)
        with ProcessPoolExecutor(players, mp_context=SPAWN) as pool:
            futures = [pool.submit(race, shared_url, "c1", p, commands, start) for p in range(players)]
            for future in futures:
                future.result(timeout=60)
    log = store.load("c1")
    store.close()
    assert len(log) == 2 * players * commands
    assert_whole_log(log, per_command=2)
    assert {e.command_id for e in log} == {f"p{p}-{n}" for p in range(players) for n in range(commands)}


def test_processes_opening_a_new_database_at_once_all_succeed(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh' / 'herotable.db'}"
    openers = 3
    with SPAWN.Manager() as manager:
        start = manager.Barrier(openers)
        with ProcessPoolExecutor(openers, mp_context=SPAWN) as pool:
            futures = [pool.submit(open_and_create, url, f"c{n}", start) for n in range(openers)]
            for future in futures:
                future.result(timeout=60)
    store = open_store(url)
    assert sorted(row.campaign_id for row in store.campaigns()) == ["c0", "c1", "c2"]
    store.close()


def test_a_writer_killed_mid_append_leaves_whole_commands_only(shared_url: str) -> None:
    store = open_store(shared_url)
    store.create_campaign("c1", "Crash", "ltl", CREATED)
    writer = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("crash_writer.py")), shared_url, "c1"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout is not None
        for line in writer.stdout:  # it says each command it made: kill it once 20 (60 events) are in
            if int(line) >= 20:
                break
        assert writer.poll() is None, "the writer stopped on its own"
        os.kill(writer.pid, signal.SIGKILL)
    finally:
        writer.kill()
        writer.wait(timeout=30)
    assert writer.returncode == -signal.SIGKILL
    store.close()
    reopened = open_store(shared_url)
    log = reopened.load("c1")
    assert len(log) >= 60
    assert reopened.head("c1") == len(log)
    assert_whole_log(log, per_command=3)
    reopened.append("c1", len(log), command("after-the-crash", 3))
    assert_whole_log(reopened.load("c1"), per_command=3)
    reopened.close()
