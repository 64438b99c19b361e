"""Stream positions numbered from the tops the service remembers match the log's own count, whatever happens
between commands: another process's commands, a state loaded from a snapshot, a deleted and re-imported campaign."""

from __future__ import annotations

import random

import pytest

from herotable.service import TableService
from herotable.store import EventStore, MemoryEventStore, open_store
from herotable.store.export import export_campaign, import_campaign
from herotable.store.invariants import positions
from herotable.table.chat import Say
from herotable.table.dice_roll import FreeRoll
from herotable.table.fold import STATE_VERSION
from herotable.table.state import Ruleset
from herotable.table.structure import Join

MEMBERS = ("gm", "pat", "sam")


def _open(backend: str, tmp_path) -> EventStore:  # type: ignore[no-untyped-def]
    return MemoryEventStore() if backend == "memory" else open_store(f"sqlite:///{tmp_path / 'streams.db'}")


def _reads_of(store: EventStore) -> list[str]:
    """The names of the store's reads from here on, as they happen (each read still runs)."""
    reads: list[str] = []
    for name in ("head", "load", "campaign", "stream_tops", "read_stream", "stream_head"):
        real = getattr(store, name)
        setattr(store, name, lambda *a, _real=real, _name=name, **k: reads.append(_name) or _real(*a, **k))
    return reads


def _some_command(rng: random.Random) -> tuple[str, object]:
    """A command of a random member for a random audience: public, the GM's alone, or whispered."""
    user = rng.choice(MEMBERS)
    kind = rng.randrange(4)
    if kind == 0:
        return user, FreeRoll("1d20")
    if kind == 1:
        return "gm", FreeRoll("1d6", secret=True)
    to = rng.choice([m for m in MEMBERS if m != user])
    return user, Say("psst", to=to)


def _assert_numbered_as_the_log(store: EventStore, campaign_id: str) -> None:
    log = store.load(campaign_id)
    assert [e.stream_pos for e in log] == positions(log)


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_two_services_on_one_store_number_every_audience_as_the_log_does(backend, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = _open(backend, tmp_path)
    first, second = TableService(store, snapshot_every=7), TableService(store, snapshot_every=7)
    first.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    for user in MEMBERS[1:]:
        first.execute("s1", user, Join(user.title()))
    rng = random.Random(5)
    for n in range(120):
        service = first if rng.random() < 0.5 else second  # each remembers its own tops; the other moves the log
        user, cmd = _some_command(rng)
        service.execute("s1", user, cmd)  # type: ignore[arg-type]
        if n % 30 == 29:  # another process starts cold, from the newest snapshot, and writes from then on
            second = TableService(store, snapshot_every=7)
    _assert_numbered_as_the_log(store, "s1")
    heads = {user: first.head_cursor("s1", user, first.state("s1")) for user in MEMBERS}
    assert heads == {user: TableService(store).head_cursor("s1", user) for user in MEMBERS}


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_campaign_deleted_and_imported_again_is_numbered_from_its_new_log(backend, tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = _open(backend, tmp_path)
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    service.execute("s1", "pat", Join("Pat"))
    kept = export_campaign(store, "s1")
    for _ in range(3):
        service.execute("s1", "pat", FreeRoll("1d20"))
    service.delete_campaign("s1", "gm")
    import_campaign(store, kept)  # the same id, an older log
    service.execute("s1", "pat", FreeRoll("1d20"))
    service.execute("s1", "gm", Say("hi", to="pat"))
    _assert_numbered_as_the_log(store, "s1")


def test_another_processs_batch_is_folded_onto_the_remembered_state_without_a_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    writer, viewer = TableService(store), TableService(store)
    writer.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    writer.execute("s1", "pat", Join("Pat"))
    viewer.state("s1")  # remembered at the head
    batch = writer.execute("s1", "gm", Say("for Pat", to="pat")).events
    later = writer.execute("s1", "pat", FreeRoll("1d20")).events
    assert viewer.advanced("s1", later) is None  # it does not follow on from what the viewer remembers
    reads = _reads_of(store)
    carried = viewer.advanced("s1", batch)
    assert carried is not None and reads == []
    assert viewer.advanced("s1", later) is not None and reads == []
    assert viewer.remembered("s1", later[-1].seq) == TableService(store).state("s1")
    _, tops = store.stream_tops("s1")
    assert viewer.stream_tops("s1", later[-1].seq) == tops


def test_a_batch_that_leaves_one_of_a_viewers_streams_alone_still_checks_that_stream(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Pat's cursor is at the GM's public roll's seq minus one; Pat's own whisper lands after that roll. The batch
    holds nothing public, yet Pat is behind on the public stream: the page must come from the store."""
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    service.execute("s1", "pat", Join("Pat"))
    service.execute("s1", "sam", Join("Sam"))
    cursor = service.head_cursor("s1", "pat", service.state("s1"))
    service.execute("s1", "gm", FreeRoll("1d20"))  # public: Pat has not seen it
    whisper = service.execute("s1", "sam", Say("psst", to="pat"))  # only Pat's own stream (and Sam's)
    assert service.following(whisper.state, "pat", cursor, whisper.events) is None
    read = service.stream("s1", "pat", after=cursor)
    assert [s.fact.type for s in read.seen] == ["table.dice_rolled", "chat.said"]
    caught_up = service.head_cursor("s1", "pat", whisper.state)
    again = service.execute("s1", "sam", Say("again", to="pat"))
    page = service.following(again.state, "pat", caught_up, again.events)
    assert page is not None and [s.fact.type for s in page.seen] == ["chat.said"]
    assert page.last == service.stream("s1", "pat", after=caught_up).last


def test_a_batch_still_follows_on_after_later_commands_landed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Live frames are made a little after their command; by then the next command may have landed. The stream
    tops right after each batch are kept, so the frame is still made from the batch."""
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    service.execute("s1", "pat", Join("Pat"))
    cursor = service.head_cursor("s1", "pat", service.state("s1"))
    first = service.execute("s1", "gm", FreeRoll("1d20"))
    later = service.execute("s1", "gm", FreeRoll("1d20"))
    page = service.following(later.state, "pat", cursor, first.events)
    assert page is not None and [s.command_id for s in page.seen] == [first.events[0].command_id]
    assert page.last == service.stream("s1", "pat", after=cursor, limit=1).last


def test_a_viewer_that_read_several_batches_at_once_makes_the_frame_of_each_from_its_batch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Another process catches up on three commands in one read: the stream tops after each of them are known, so a
    live frame for any one of those batches needs no read."""
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    writer = TableService(store)
    writer.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    writer.execute("s1", "pat", Join("Pat"))
    writer.execute("s1", "sam", Join("Sam"))
    viewer = TableService(store)
    before = viewer.head_cursor("s1", "pat", viewer.state("s1"))
    batches = [
        writer.execute("s1", "gm", FreeRoll("1d6")).events,
        writer.execute("s1", "sam", Say("for Pat", to="pat")).events,
        writer.execute("s1", "gm", Say("for Sam alone", to="sam")).events,
        writer.execute("s1", "pat", FreeRoll("1d20")).events,
    ]
    state = viewer.state("s1")  # all four batches in one read
    cursor = before
    for batch in batches:
        page = viewer.following(state, "pat", cursor, batch)
        assert page is not None
        assert page.seen == viewer.stream("s1", "pat", after=cursor, state=state).seen[: len(page.seen)]
        cursor = page.last
    assert cursor == viewer.head_cursor("s1", "pat", state)


def test_a_viewer_that_starts_from_a_snapshot_makes_the_next_frame_from_its_batch(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    writer = TableService(store, snapshot_every=3)
    writer.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    writer.execute("s1", "pat", Join("Pat"))
    for _ in range(4):
        writer.execute("s1", "pat", FreeRoll("1d20"))
    assert store.latest_snapshot("s1", STATE_VERSION) is not None
    viewer = TableService(store)
    viewer.state("s1")  # from the newest snapshot, then the events after it (a live page's hello reads no more)
    cursor = TableService(store).head_cursor("s1", "pat")  # where the page's hello left it
    batch = writer.execute("s1", "gm", FreeRoll("1d6")).events
    reads = _reads_of(store)
    carried = viewer.advanced("s1", batch)
    assert carried is not None
    page = viewer.following(carried, "pat", cursor, batch)
    assert page is not None and [s.command_id for s in page.seen] == [batch[0].command_id]
    assert reads == []


def test_a_batch_announced_after_the_viewer_moved_past_it_gives_an_empty_page_with_no_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    service.execute("s1", "pat", Join("Pat"))
    old = service.execute("s1", "pat", FreeRoll("1d20")).events
    state = service.execute("s1", "gm", Say("later", to="pat")).state
    reads = _reads_of(store)
    for user in ("pat", "gm"):
        cursor = service.head_cursor("s1", user, state)
        page = service.following(state, user, cursor, old)
        assert page is not None and page.seen == [] and page.last == cursor
    assert reads == []


def test_a_commands_answer_holds_what_landed_since_its_member_read_without_a_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Commands queue on a campaign: the answer to one decided after others landed since its member's read holds
    theirs too, as the stream would, from what the process remembers."""
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    service = TableService(store)
    service.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    service.execute("s1", "pat", Join("Pat"))
    service.execute("s1", "sam", Join("Sam"))
    before = service.recent_state("s1")
    start = service.head_cursor("s1", "pat", before)
    others = [
        *service.execute("s1", "gm", FreeRoll("1d6")).events,
        *service.execute("s1", "sam", Say("psst", to="pat")).events,
        *service.execute("s1", "gm", Say("not for Pat", to="sam")).events,
    ]
    mine = service.execute("s1", "pat", FreeRoll("1d20"), state=before)
    reads = _reads_of(store)
    between = service.events_between("s1", before.seq, mine.events[0].seq - 1)
    assert between == others
    page = service.following(mine.state, "pat", start, [*between, *mine.events])
    assert reads == []
    assert page == service.stream("s1", "pat", after=start, state=mine.state)
    assert TableService(store).events_between("s1", before.seq, mine.events[0].seq - 1) is None  # not remembered


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_a_process_that_remembers_a_longer_log_than_a_re_imported_one_lands_where_the_new_log_ends(
    backend,  # type: ignore[no-untyped-def]
    tmp_path,
) -> None:
    """Another process deleted the campaign and imported an older export under its id: this one remembers more than
    the log holds. Its next command is not decided on what it remembers: it lands at the new log's end, numbered
    as that log's streams go on, and from then on it remembers the new log."""
    store = _open(backend, tmp_path)
    here = TableService(store)
    here.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    here.execute("s1", "pat", Join("Pat"))
    kept = export_campaign(store, "s1")
    for _ in range(4):
        here.execute("s1", "pat", FreeRoll("1d20"))
    store.delete_campaign("s1")  # as another process does it: this one is not told
    import_campaign(store, kept)
    applied = here.execute("s1", "pat", FreeRoll("1d6"), state=here.recent_state("s1"))
    assert [e.seq for e in store.load("s1")] == list(range(1, len(kept["events"]) + 2))
    assert applied.events[0].seq == len(kept["events"]) + 1
    _assert_numbered_as_the_log(store, "s1")
    assert here.state("s1") == TableService(store).state("s1")


def test_an_announced_batch_is_taken_only_when_it_follows_on_by_the_hash_chain(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    writer, viewer = TableService(store), TableService(store)
    writer.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    writer.execute("s1", "pat", Join("Pat"))
    viewer.state("s1")  # knows the log up to here
    batch = writer.execute("s1", "gm", Say("hello", to="pat")).events
    later = writer.execute("s1", "pat", FreeRoll("1d20")).events
    assert viewer.continues("s1", batch)
    assert not viewer.continues("s1", later)  # the event before it is not known here: read it instead
    forged = [replace(batch[0], prev_hash="0" * 64)]  # the same seq, another log (a clone sharing the Redis)
    assert not viewer.continues("s1", forged)
    broken = [*batch, replace(later[0], prev_hash="f" * 64)]
    assert not viewer.continues("s1", broken)
    assert not viewer.continues("s2", batch)
    assert viewer.advanced("s1", batch) is not None
    assert viewer.continues("s1", later)  # now it is


def test_tops_known_part_way_through_a_run_are_carried_on_over_the_rest_of_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A process folds another's batch (its live frames) while one of its own commands, decided earlier, catches up
    over that batch and the next: the tops after the next batch are still known, so its frames need no read."""
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    here, other = TableService(store), TableService(store)
    here.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    here.execute("s1", "pat", Join("Pat"))
    decided_on = here.state("s1")
    start = here.head_cursor("s1", "pat", decided_on)
    first = other.execute("s1", "gm", FreeRoll("1d6")).events
    second = other.execute("s1", "pat", FreeRoll("1d8")).events
    folded: list[object] = []
    real_append = store.append

    def append(*args, **kwargs):  # type: ignore[no-untyped-def]
        folded.append(here.advanced("s1", first))  # the live hub folds the first batch while the command is decided
        return real_append(*args, **kwargs)

    store.append = append  # type: ignore[method-assign]
    here.execute("s1", "gm", Say("hi", to="pat"), state=decided_on)  # caught up over both in its append
    store.append = real_append  # type: ignore[method-assign]
    assert folded and folded[0] is not None
    page = here.following(folded[0], "pat", start, first)  # type: ignore[arg-type]
    assert page is not None
    then = here.following(here.state("s1"), "pat", page.last, second)
    assert then is not None and [s.command_id for s in then.seen] == [second[0].command_id]


def test_an_answer_holds_another_processs_command_its_append_caught_up_over_without_a_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    here, other = TableService(store), TableService(store)
    here.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    here.execute("s1", "pat", Join("Pat"))
    before = here.recent_state("s1")
    start = here.head_cursor("s1", "pat", before)
    theirs = other.execute("s1", "gm", Say("meanwhile", to="pat")).events  # another process's, unknown here
    mine = here.execute("s1", "pat", FreeRoll("1d20"), state=before)  # caught up over theirs in its append
    assert mine.events[0].seq == theirs[-1].seq + 1
    reads = _reads_of(store)
    between = here.events_between("s1", before.seq, mine.events[0].seq - 1)
    assert between == theirs
    page = here.following(mine.state, "pat", start, [*between, *mine.events])
    assert reads == []
    assert page is not None and [s.command_id for s in page.seen] == [theirs[0].command_id, mine.events[0].command_id]
    assert page == here.stream("s1", "pat", after=start, state=mine.state)


def test_a_command_after_this_processs_own_moves_the_head_by_its_hash_without_reading_it(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The service remembers the hash its last command ended on: the next append moves the head from that seq and
    hash (a compare-and-set) and inserts, with nothing read first."""
    import sqlalchemy as sa

    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    here = TableService(store)
    here.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    here.execute("s1", "pat", Join("Pat"))
    here.execute("s1", "pat", FreeRoll("1d20"))
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2].split()[0]))
    applied = here.execute(
        "s1", "pat", FreeRoll("1d6"), command_id="fresh-roll-1", fresh=True, state=here.recent_state("s1")
    )
    assert statements == ["BEGIN", "UPDATE", "INSERT"]
    assert applied.events[0].prev_hash == store.load("s1")[applied.events[0].seq - 2].hash
    _assert_numbered_as_the_log(store, "s1")


def test_a_process_whose_appends_catch_up_reads_the_head_first_until_it_has_the_campaign_to_itself(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """While another process's commands land between this one's, moving the head by its hash would fail every
    time: after an append that had to catch up, the next reads the head, with what landed since, first (one read);
    once one lands with nothing to catch up, the next moves the head by its hash again."""
    import sqlalchemy as sa

    store = open_store(f"sqlite:///{tmp_path / 'streams.db'}")
    here, there = TableService(store), TableService(store)
    here.create_campaign("gm", "Gwen", "Streams", Ruleset.LTL, campaign_id="s1")
    here.execute("s1", "pat", Join("Pat"))
    there.state("s1")
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2].split()[0]))

    def roll(service: TableService, n: int) -> list[str]:
        statements.clear()
        service.execute(
            "s1", "pat", FreeRoll("1d6"), command_id=f"roll-{n:04d}", fresh=True, state=service.recent_state("s1")
        )
        return list(statements)

    assert roll(here, 1) == ["BEGIN", "UPDATE", "INSERT"]  # by the hash it remembers
    assert roll(there, 2) == ["BEGIN", "UPDATE", "SELECT", "UPDATE", "INSERT"]  # the hash was not the head's: caught up
    assert roll(here, 3) == ["BEGIN", "UPDATE", "SELECT", "UPDATE", "INSERT"]
    assert roll(there, 4) == ["BEGIN", "SELECT", "UPDATE", "INSERT"]  # caught up last time: the head read first
    assert roll(there, 5) == ["BEGIN", "SELECT", "UPDATE", "INSERT"]  # nothing to catch up this time ...
    assert roll(there, 6) == ["BEGIN", "UPDATE", "INSERT"]  # ... so by the hash again
    _assert_numbered_as_the_log(store, "s1")
    assert here.state("s1") == there.state("s1") == TableService(store).state("s1")


def test_the_cursor_of_a_drawn_state_is_never_ahead_of_it() -> None:
    # a page drawn from a state hands its socket the cursor of that state: when the log has moved on since, it is
    # the cursor as it stood then, or none at all (a hello), never the head that counts what the page did not show
    svc = TableService(MemoryEventStore())
    cid = svc.create_campaign("gm", "GM", "Streams", Ruleset.LTL).campaign_id
    svc.execute(cid, "pat", Join("Pat"))
    drawn = svc.state(cid)
    at_drawing = svc.head_cursor(cid, "pat", drawn)
    assert svc.cursor_of(drawn, "pat") == at_drawing
    svc.execute(cid, "gm", FreeRoll("1d20"))  # the log moves on, and Pat may see it
    assert svc.head_cursor(cid, "pat") != at_drawing
    assert svc.cursor_of(drawn, "pat") == at_drawing  # remembered as it stood at the end of that command
    svc.memory.forget(cid)  # a server that remembers nothing of it (evicted, restarted)
    assert svc.cursor_of(drawn, "pat") is None  # the store knows only where the streams end now
    svc.state(cid)  # the whole log folded again: where each command ended is known once more
    assert svc.cursor_of(drawn, "pat") == at_drawing
    assert svc.cursor_of(drawn, "gm") == svc.head_cursor(cid, "gm", drawn)  # the GM's is the drawn state's seq
