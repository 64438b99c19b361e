"""Two members race to spend the same last Karma level: exactly one succeeds (ARCHITECTURE: concurrency)."""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor

import pytest

from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.service import TableService
from herotable.store import EventStore, MemoryEventStore, open_store
from herotable.table.dice_roll import FreeRoll
from herotable.table.ltl.commands import CreateLtlCharacter, TryAgain
from herotable.table.state import Ruleset
from herotable.table.structure import Join

from .race_workers import spend_last_karma

SPAWN = multiprocessing.get_context("spawn")


def campaign_with_last_karma(store: EventStore) -> None:
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Race", Ruleset.LTL, campaign_id="race")
    service.execute("race", "pat", Join("Pat"))
    service.execute("race", "pat", CreateLtlCharacter("comet", {**CAPTAIN_COMET, "karma": "d4"}))


def assert_one_spend(store: EventStore, outcomes: list[str]) -> None:
    # R-LTL-10: at d4 only one level can be burned; the loser is told Karma is below d4
    assert sorted(outcomes) == ["refused:karma/below_d4", "spent"]
    log = store.load("race")
    assert [e.seq for e in log] == list(range(1, len(log) + 1))
    assert [e.type for e in log].count("ltl.try_again_tokens") == 1
    runs = [e.command_id for i, e in enumerate(log) if i == 0 or log[i - 1].command_id != e.command_id]
    assert len(set(runs)) == len(runs)  # each command recorded once, its facts together


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_threads_race_for_the_last_karma_level(backend, tmp_path):
    store = MemoryEventStore() if backend == "memory" else open_store(f"sqlite:///{tmp_path / 'race.db'}")
    campaign_with_last_karma(store)
    players = [TableService(store), TableService(store)]  # two server workers, each with its own cache
    for p in players:
        p.state("race")
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def spend(service: TableService, user: str) -> None:
        start.wait()
        try:
            service.execute("race", user, TryAgain("comet"))
            outcomes.append("spent")
        except RulesError as err:
            outcomes.append(f"refused:{err.code}")

    threads = [threading.Thread(target=spend, args=(p, u)) for p, u in zip(players, ("pat", "gm"), strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert_one_spend(store, outcomes)


def _race_processes(url: str) -> None:
    store = open_store(url)
    campaign_with_last_karma(store)
    with SPAWN.Manager() as manager:
        start = manager.Barrier(2)
        with ProcessPoolExecutor(2, mp_context=SPAWN) as pool:
            futures = [pool.submit(spend_last_karma, url, "race", user, start) for user in ("pat", "gm")]
            outcomes = [f.result(timeout=60) for f in futures]
    assert_one_spend(store, outcomes)
    store.close()


def test_processes_race_for_the_last_karma_level_on_sqlite(tmp_path):
    _race_processes(f"sqlite:///{tmp_path / 'race.db'}")


def test_processes_race_for_the_last_karma_level_on_postgresql(postgres_schema):
    _race_processes(postgres_schema())


def _counting_appends(store: EventStore) -> list[int]:
    """Count the store's appends (each a transaction) from here on."""
    calls: list[int] = []
    real = store.append

    def append(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args[1])
        return real(*args, **kwargs)

    store.append = append  # type: ignore[method-assign]
    return calls


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_process_that_decided_on_a_stale_state_is_refused_in_its_one_append(backend, tmp_path):
    """R-T-3: the refusal comes from the state the log holds when the command lands, decided once the other
    process's spend is folded in; nothing is retried and nothing written."""
    store = MemoryEventStore() if backend == "memory" else open_store(f"sqlite:///{tmp_path / 'race.db'}")
    campaign_with_last_karma(store)
    first, second = TableService(store), TableService(store)
    stale = second.state("race")
    first.execute("race", "pat", TryAgain("comet"))
    head = store.head("race")
    calls = _counting_appends(store)
    with pytest.raises(RulesError) as refused:
        second.execute("race", "gm", TryAgain("comet"), state=stale)
    assert refused.value.code == "karma/below_d4"
    assert calls == [stale.seq]  # one append, at the state it decided on: no retry
    assert store.head("race") == head
    assert second.remembered("race", head) == first.state("race")  # it learnt what landed meanwhile


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_process_behind_the_log_lands_after_it_in_one_append(backend, tmp_path):
    store = MemoryEventStore() if backend == "memory" else open_store(f"sqlite:///{tmp_path / 'race.db'}")
    campaign_with_last_karma(store)
    first, second = TableService(store), TableService(store)
    stale = second.state("race")
    landed = first.execute("race", "pat", FreeRoll("1d20"))
    calls = _counting_appends(store)
    applied = second.execute("race", "gm", FreeRoll("2d6"), state=stale)
    assert calls == [stale.seq]
    assert applied.events[0].seq == landed.events[-1].seq + 1
    assert applied.state == TableService(store).state("race")
    assert [e.command_id for e in store.load("race", stale.seq)] == [
        *(e.command_id for e in landed.events),
        *(e.command_id for e in applied.events),
    ]
