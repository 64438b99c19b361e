"""Two members race to spend the same last Karma level: exactly one succeeds (ARCHITECTURE: concurrency)."""

from __future__ import annotations

import multiprocessing
import threading
import uuid
from concurrent.futures import ProcessPoolExecutor

import pytest

from herotable.errors import RulesError
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.service import CommandIdReused, TableService, fold_log
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


class _HeldAppends:
    """The store's appends, counted, the first held until `release()`, and `before(n)` run before the n-th (from 0)."""

    def __init__(self, store: EventStore) -> None:
        self.calls: list[int] = []  # the expected seq of each append
        self.released = threading.Event()
        self.entered = threading.Event()
        self.before: dict[int, object] = {}
        real = store.append

        def append(*args, **kwargs):  # type: ignore[no-untyped-def]
            n = len(self.calls)
            self.calls.append(args[1])
            if n == 0:
                self.entered.set()
                assert self.released.wait(30)
            hook = self.before.get(n)
            if callable(hook):
                hook()
            return real(*args, **kwargs)

        store.append = append  # type: ignore[method-assign]


def _queued(service: TableService, campaign_id: str, count: int) -> None:
    """Wait until `count` commands queue for the campaign's turn."""
    for _ in range(3000):
        if len(service.writer._turn(campaign_id).waiting) >= count:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{count} commands never queued")


def _group_table(tmp_path) -> tuple[EventStore, TableService]:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'group.db'}")
    campaign_with_last_karma(store)
    service = TableService(store)
    for user, name in (("sam", "Sam"), ("sly", "Sly")):
        service.execute("race", user, Join(name))
    service.state("race")
    return store, service


def _run(  # type: ignore[no-untyped-def]
    service: TableService, results: dict[str, object], key: str, user: str, cmd: object, command_id=None, fresh=False
) -> threading.Thread:
    """`cmd` run for `user` in a thread of its own (with `command_id`, as a client's, or `fresh`, as the server's
    own); its result or error in `results[key]`."""

    def go() -> None:
        try:
            results[key] = service.execute("race", user, cmd, command_id=command_id, fresh=fresh)  # type: ignore[arg-type]
        except Exception as error:
            results[key] = error

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def test_commands_that_queue_for_the_turn_are_recorded_in_one_append(tmp_path):
    """Group commit: the commands that queued while the one before them was being recorded land in one append (one
    transaction), each decided on the state the ones before it lead to, each answered with its own facts and the
    state right after them; the live listeners hear of the group once."""
    store, service = _group_table(tmp_path)
    heard: list[list[str]] = []
    service.subscribe(lambda cid, events: heard.append([e.command_id for e in events]))
    held = _HeldAppends(store)
    start = store.head("race")
    results: dict[str, object] = {}
    threads = [_run(service, results, "first", "pat", FreeRoll("1d20"))]
    assert held.entered.wait(30)
    for user in ("gm", "sam", "sly"):
        threads.append(_run(service, results, user, user, FreeRoll("2d6")))
        _queued(service, "race", len(threads) - 1)  # one after another: the order they queued in is the log's
    held.released.set()
    for t in threads:
        t.join(30)
    first = results["first"]
    assert held.calls == [start, start + len(first.events)]  # type: ignore[attr-defined]
    log = store.load("race", start)
    order = [results[k] for k in ("first", "gm", "sam", "sly")]
    assert [e.command_id for e in log] == [e.command_id for a in order for e in a.events]  # type: ignore[attr-defined]
    assert [e.actor for e in log] == ["pat", "gm", "sam", "sly"]
    for applied in order:  # each answered with its own facts, and the state right after them
        assert applied.events == store.load("race", applied.events[0].seq - 1)[: len(applied.events)]  # type: ignore[attr-defined]
        assert applied.state == fold_log(store.load("race")[: applied.events[-1].seq])  # type: ignore[attr-defined]
    assert order[-1].state == TableService(store).state("race")  # type: ignore[attr-defined]
    assert heard == [[e.command_id for e in first.events], [e.command_id for a in order[1:] for e in a.events]]  # type: ignore[attr-defined]


def test_a_command_the_rules_refuse_in_a_group_is_refused_alone_and_the_others_land(tmp_path):
    """R-T-3 in a group: the second spend of the last Karma level is refused on the state the first spend leads to,
    with nothing of it written; the roll queued with them lands."""
    store, service = _group_table(tmp_path)
    held = _HeldAppends(store)
    results: dict[str, object] = {}
    threads = [_run(service, results, "first", "sam", FreeRoll("1d20"))]
    assert held.entered.wait(30)
    for key, user, cmd in (("spend", "pat", TryAgain("comet")), ("again", "gm", TryAgain("comet"))):
        threads.append(_run(service, results, key, user, cmd))
        _queued(service, "race", len(threads) - 1)
    threads.append(_run(service, results, "roll", "sly", FreeRoll("1d6")))
    _queued(service, "race", 3)
    held.released.set()
    for t in threads:
        t.join(30)
    assert isinstance(results["again"], RulesError) and results["again"].code == "karma/below_d4"
    assert len(held.calls) == 2  # the first alone, then the spend and the roll together; the refusal wrote nothing
    log = store.load("race")
    assert [e.type for e in log].count("ltl.try_again_tokens") == 1
    assert {e.actor for e in log[-len(results["roll"].events) :]} == {"sly"}  # type: ignore[attr-defined]


def test_a_group_catches_up_with_another_process_and_is_decided_again(tmp_path):
    """Another process's command lands between the group's decisions and its append: the group is decided again on
    top of it, in the same append, and lands after it."""
    store, service = _group_table(tmp_path)
    other = TableService(store)
    other.state("race")
    held = _HeldAppends(store)
    landed: list[object] = []
    held.before[1] = lambda: landed.append(other.execute("race", "gm", FreeRoll("1d4")))
    results: dict[str, object] = {}
    threads = [_run(service, results, "first", "pat", FreeRoll("1d20"))]
    assert held.entered.wait(30)
    for user in ("sam", "sly"):
        threads.append(_run(service, results, user, user, FreeRoll("2d6")))
        _queued(service, "race", len(threads) - 1)
    held.released.set()
    for t in threads:
        t.join(30)
    after_first = results["first"].events[-1].seq  # type: ignore[attr-defined]
    # the first; the group's, after it; and within that one, before it reaches the store, the other process's, on
    # the state that process remembers (from before the first: it catches up in its append)
    before_first = after_first - len(results["first"].events)  # type: ignore[attr-defined]
    assert held.calls == [before_first, after_first, before_first]
    assert [e.actor for e in store.load("race", after_first)] == ["gm", "sam", "sly"]
    assert results["sly"].state == TableService(store).state("race")  # type: ignore[attr-defined]
    assert results["sam"].events[0].seq == landed[0].events[-1].seq + 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("first_id", "second_id", "joins"),
    [
        (None, None, True),
        ("client-first", None, True),
        ("client-first", "client-second", True),
        # a group whose ids are all the server's own looks for no earlier landing of them: a client's id, which it
        # must look for, waits for an append of its own
        (None, "client-second", False),
    ],
)
def test_a_command_that_queues_while_another_process_holds_the_campaign_joins_the_append(
    tmp_path, first_id, second_id, joins
):
    """Under contention: this process's command finds that another process's landed first and catches up with it
    in its append; a command of this process that queued meanwhile joins that append rather than wait for one of
    its own."""
    store, service = _group_table(tmp_path)
    other = TableService(store)
    other.state("race")
    start = store.head("race")
    held = _HeldAppends(store)
    results: dict[str, object] = {}

    def own(given: str | None) -> dict[str, object]:  # a client's id, or one the server makes (fresh)
        return {"command_id": given} if given else {"command_id": uuid.uuid4().hex, "fresh": True}

    threads = [_run(service, results, "first", "pat", FreeRoll("1d20"), **own(first_id))]
    assert held.entered.wait(30)  # the first is on its way to the store
    landed = other.execute("race", "gm", FreeRoll("1d4"))  # and another process's lands before it
    threads.append(_run(service, results, "second", "sam", FreeRoll("2d6"), **own(second_id)))
    _queued(service, "race", 1)
    held.released.set()
    for t in threads:
        t.join(30)
    first, second = results["first"], results["second"]
    assert held.calls == [start, start] + ([] if joins else [first.events[-1].seq])  # type: ignore[attr-defined]
    log = store.load("race", start)
    assert [e.actor for e in log] == ["gm", "pat", "sam"]
    assert first.events[0].seq == landed.events[-1].seq + 1  # type: ignore[attr-defined]
    assert second.events[0].seq == first.events[-1].seq + 1  # type: ignore[attr-defined]
    assert first.state == fold_log(store.load("race")[: first.events[-1].seq])  # type: ignore[attr-defined]
    assert second.state == TableService(store).state("race")  # type: ignore[attr-defined]
    for applied, wanted in ((first, first_id), (second, second_id)):
        if wanted is not None:
            assert {e.command_id for e in applied.events} == {wanted}  # type: ignore[attr-defined]


def test_a_store_error_in_a_group_append_is_every_member_s_and_writes_nothing(tmp_path):
    from herotable.store.port import StoreError

    store, service = _group_table(tmp_path)
    held = _HeldAppends(store)

    def fail() -> None:
        raise StoreError("the database went away")

    held.before[1] = fail
    results: dict[str, object] = {}
    threads = [_run(service, results, "first", "pat", FreeRoll("1d20"))]
    assert held.entered.wait(30)
    for user in ("sam", "sly"):
        threads.append(_run(service, results, user, user, FreeRoll("2d6")))
        _queued(service, "race", len(threads) - 1)
    held.released.set()
    for t in threads:
        t.join(30)
    assert all(isinstance(results[u], StoreError) for u in ("sam", "sly"))
    assert store.head("race") == results["first"].events[-1].seq  # type: ignore[attr-defined]
    assert len(held.calls) == 2  # not tried again: whether it was written could not be known in general


def test_a_retry_queued_beside_its_first_try_is_recorded_once_and_answered_as_a_repeat(tmp_path):
    """A client that sends a command with its own id again, before the first answer came, while both wait for the
    campaign's turn: the group records it once; the retry is answered with the first's facts, nothing written."""
    store, service = _group_table(tmp_path)
    held = _HeldAppends(store)
    results: dict[str, object] = {}
    threads = [_run(service, results, "first", "sam", FreeRoll("1d20"))]
    assert held.entered.wait(30)
    threads.append(_run(service, results, "try", "pat", FreeRoll("2d6"), "pats-roll-0001"))
    _queued(service, "race", 1)
    threads.append(_run(service, results, "retry", "pat", FreeRoll("2d6"), "pats-roll-0001"))
    _queued(service, "race", 2)
    # another member's command under the same id
    threads.append(_run(service, results, "other", "gm", FreeRoll("1d4"), "pats-roll-0001"))
    _queued(service, "race", 3)
    held.released.set()
    for t in threads:
        t.join(30)
    log = store.load("race")
    assert [e.command_id for e in log].count("pats-roll-0001") == len(results["try"].events)  # type: ignore[attr-defined]
    assert results["retry"].repeated and results["retry"].events == results["try"].events  # type: ignore[attr-defined]
    assert isinstance(results["other"], CommandIdReused)
