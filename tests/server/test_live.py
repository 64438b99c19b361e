"""Live frames: each viewer gets what they may see, as it happens, across processes through Redis."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import threading
from typing import Any

import pytest

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server import live as live_module
from herotable.store import StoredEvent, open_store

from .clients import make_app, redis_prefix, table


def receive(ws: Any, timeout: float = 60.0) -> dict[str, Any]:
    """The next frame, or a failure after `timeout` seconds (a silent socket must not hang the suite)."""
    box: queue.Queue[Any] = queue.Queue()
    threading.Thread(target=lambda: box.put(ws.receive_json()), daemon=True).start()
    try:
        frame: dict[str, Any] = box.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"no live frame within {timeout} s")
    return frame


def frames_until(ws: Any, done: Any) -> list[dict[str, Any]]:
    """Frames up to and including the first whose events satisfy `done(events so far)`."""
    got: list[dict[str, Any]] = []
    while True:
        got.append(receive(ws))
        if done([e for f in got for e in f["events"]]):
            return got


def table_work(statements: list[str]) -> list[str]:
    """The statements of the table alone: a session's read (a command's, kept a few seconds; each socket's second
    check just after its hello, `Hub.recheck`, which may land at any moment after it) left out."""
    return [s for s in statements if "FROM users JOIN sessions" not in s]


def settled(count: int) -> Any:
    return lambda events: sum(e["type"] == "ltl.task_settled" for e in events) >= count


def of_type(kind: str) -> Any:
    return lambda events: any(e["type"] == kind for e in events)


def setup_fight(m: dict[str, Any], cid: str) -> None:
    m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    m["gm"].command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_secret_and_pending_rolls_never_reach_other_players_sockets(backend, request, tmp_path):
    url = f"sqlite:///{tmp_path / 'live.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    app = make_app(store=open_store(url))
    cid, m = table(app)
    setup_fight(m, cid)
    with (
        m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}") as gm_ws,
        m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as sam_ws,
    ):
        assert receive(gm_ws)["type"] == "hello" and receive(sam_ws)["type"] == "hello"
        secret = m["gm"].command(cid, type="ltl.challenge", character="entropy", difficulty="Hard", secret=True)
        secret_task = secret.json()["events"][0]["fact"]["task"]
        m["gm"].command(cid, type="ltl.settle", task=secret_task)
        call = m["gm"].command(cid, type="ltl.call", character="comet", difficulty="Hard").json()["command_id"]
        pending = m["pat"].command(cid, type="ltl.challenge", character="comet", call=call, style="Flight")
        pending_task = next(e for e in pending.json()["events"] if e["type"] == "ltl.task_opened")["fact"]["task"]
        m["pat"].command(cid, type="ltl.settle", task=pending_task)
        gm_frames = frames_until(gm_ws, settled(2))
        sam_frames = frames_until(sam_ws, settled(1))
    gm_tasks = {e["fact"].get("task") for f in gm_frames for e in f["events"]}
    sam_events = [e for f in sam_frames for e in f["events"]]
    assert {secret_task, pending_task} <= gm_tasks
    assert [e["type"] for e in sam_events if e["fact"].get("task") == pending_task] == ["ltl.task_settled"]
    # the pending roll reached sam only when settled: its opening and dice came with the reveal, never before
    assert not any(e["type"] in ("ltl.task_opened", "dice.rolled") for e in sam_events)
    positions = [e["position"] for e in sam_events]
    assert positions == list(range(positions[0], positions[0] + len(positions)))  # no gaps betray what was hidden
    text = json.dumps(sam_frames)
    assert "Decay" not in text and secret_task not in text  # nor the hidden villain's sheet, in events or views


def test_frames_reach_a_viewer_on_another_server_process_through_redis(tmp_path, shared_redis):
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=shared_redis)
    second = make_app(store=open_store(url), redis_url=shared_redis)
    cid, m = table(first)
    pat_on_second = type(m["pat"].client)(second)
    pat_on_second.cookies = m["pat"].client.cookies
    with pat_on_second as client, client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        m["gm"].command(cid, type="structure.start_scene")
        m["gm"].command(cid, type="ltl.time_passes", period="minutes")
        frames = frames_until(ws, of_type("ltl.time_passed"))
    assert any(e["type"] == "structure.scene_started" for f in frames for e in f["events"])


def test_another_process_makes_its_frames_from_the_announced_events_without_reading_the_store(tmp_path, shared_redis):
    """A small batch travels in its Redis announcement, with the frames of every audience when it is log-only and its
    campaign is watched where it was appended too: the process that did not append it folds it onto the state it
    remembers and sends those frames, making none and running no statement at all."""
    import sqlalchemy as sa

    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=shared_redis)
    second_store = open_store(url)
    second = make_app(store=second_store, redis_url=shared_redis)
    cid, m = table(first)
    names = ("gm", "pat", "sam", "sly")
    with contextlib.ExitStack() as stack:
        owner = stack.enter_context(type(m["gm"].client)(second))  # the second process starts (and stops) once
        sockets = {}
        for name in names:
            client = owner if name == "gm" else type(m[name].client)(second)
            client.cookies = m[name].client.cookies
            sockets[name] = stack.enter_context(client.websocket_connect(f"/ws/campaigns/{cid}"))
            assert receive(sockets[name])["type"] == "hello"
        here = stack.enter_context(m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}"))  # on the first too
        assert receive(here)["type"] == "hello"
        statements: list[str] = []
        sa.event.listen(second_store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        made_there: list[Any] = []
        making = second.state.hub._frames_of
        second.state.hub._frames_of = lambda *args: made_there.append(args) or making(*args)
        rolled = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        frames = {n: receive(ws) for n, ws in sockets.items()}
    assert all([e["command_id"] for e in f["events"]] == [rolled] for f in frames.values())
    assert made_there == []  # the frames came made
    statements = table_work(statements)
    assert statements == [], "\n".join(s.split("\n")[0][:90] for s in statements)


def test_frames_travel_with_an_announcement_only_for_a_campaign_watched_where_it_was_appended(tmp_path, shared_redis):
    """A campaign nobody watches on the appending process (an API client's rolls, say) costs it no frames: its
    announcement carries the events alone, and a process that has viewers makes their frames itself."""
    import redis

    from herotable.server.live import carried_frames, channel, heard

    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"), redis_url=shared_redis)
    cid, m = table(app)
    listener = redis.Redis.from_url(shared_redis).pubsub()
    listener.subscribe(channel(redis_prefix()))
    assert listener.get_message(timeout=60)["type"] == "subscribe"

    def announced() -> dict[str, Any]:
        while (message := listener.get_message(timeout=60)) is not None:
            data, rest = heard(message["data"])
            if data.get("campaign_id") == cid and rest is not None:
                return dict(json.loads(rest))
        pytest.fail("no announcement of the roll")

    try:
        with m["gm"].client:  # the app's lifespan: its announcing thread and listener
            m["pat"].command(cid, type="table.roll", expression="1d20")
            alone = announced()
            with m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
                assert receive(ws)["type"] == "hello"
                m["pat"].command(cid, type="table.roll", expression="1d20")
                watched = announced()
                m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
                panels = announced()  # frames with panels are made by each process for its own viewers
    finally:
        listener.close()
    assert alone["events"] and carried_frames(alone) is None
    assert panels["events"] and carried_frames(panels) is None
    frames = carried_frames(watched)
    assert frames is not None and {audience for audience, _ in frames} >= {"spectators", m["gm"].user_id}


def test_frames_made_where_batches_landed_are_kept_bounded_and_forgotten_once_sent(monkeypatch):
    """Batches announced together as one take the frames of their last part and forget every part's; frames of a
    batch with the same span but another last hash (a campaign imported again) are not taken; what waits is bounded
    by count and by bytes, the oldest going first."""
    from herotable.server import live
    from herotable.server.live import Hub
    from herotable.service import TableService
    from herotable.store import MemoryEventStore

    hub = Hub(TableService(MemoryEventStore()))

    def batch(first: int, last: int, mark: str = "h") -> list[StoredEvent]:
        return [
            StoredEvent("c1", seq, "chat.said", {}, f"cmd{first}", "2026-12-02T00:00:00+00:00", hash=f"{mark}{seq}")
            for seq in range(first, last + 1)
        ]

    def frames(first: int) -> live.Frames:
        return {("spectators", f"at-{first - 1}"): ("x" * 10, f"at-{first}", False)}

    for first, last in ((4, 4), (5, 6), (7, 7)):
        hub._keep_premade("c1", batch(first, last), frames(first))
    with hub._guard:
        assert hub._take_premade("c1", batch(4, 7, "other")) is None  # not the batch these frames were made of
    assert hub._premade == {} and hub._premade_bytes == 0  # but every part of the span is forgotten
    for first, last in ((4, 4), (5, 6), (7, 7)):
        hub._keep_premade("c1", batch(first, last), frames(first))
    with hub._guard:
        assert hub._premade_for("c1", (4, 7)) and not hub._premade_for("c2", (4, 7))
        assert hub._take_premade("c1", batch(4, 7)) == frames(7)
    assert hub._premade == {} and hub._premade_bytes == 0
    monkeypatch.setattr(live, "PREMADE_KEPT", 3)
    monkeypatch.setattr(live, "PREMADE_BYTES", 25)  # two batches' frames of 10 bytes each
    for seq in range(10, 15):
        hub._keep_premade("c1", batch(seq, seq), frames(seq))
    assert [key[1] for key in hub._premade] == [13, 14] and hub._premade_bytes == 20


def test_an_announcement_carries_a_small_batch_and_only_the_span_of_a_big_one():
    from herotable.server.live import CARRIED_BYTES, announcement, carried, carried_frames, heard
    from herotable.service import encode_cursor
    from herotable.store.port import StreamCursor

    def event(seq: int, text: str = "hi") -> StoredEvent:
        return StoredEvent("c1", seq, "chat.said", {"text": text}, "cmd", "2026-12-02T00:00:00+00:00", stream_pos=seq)

    small = [event(4), event(5)]
    data, rest = heard(announcement("c1", small).encode())  # as Redis hands it over
    assert (data["campaign_id"], data["first"], data["last"]) == ("c1", 4, 5)
    assert rest is not None and carried(json.loads(rest), "c1", (4, 5)) == small
    assert carried(json.loads(rest), "c2", (4, 5)) is None  # another campaign's
    assert carried(json.loads(rest), "c1", (4, 6)) is None  # not the whole span
    big = [event(4, "x" * CARRIED_BYTES)]
    data, rest = heard(announcement("c1", big))
    assert (data["first"], data["last"], rest) == (4, 4, None)
    # the frames made of a batch go with it when they fit; else the events go alone
    at3, at5 = encode_cursor(StreamCursor(3, 0)), encode_cursor(StreamCursor(5, 0))
    frames = {("spectators", at3): ('{"type": "events"}', at5, False), ("u1", at3): (None, at3, False)}
    _, rest = heard(announcement("c1", small, frames))
    assert rest is not None and carried_frames(json.loads(rest)) == frames
    assert carried(json.loads(rest), "c1", (4, 5)) == small
    huge = {("spectators", at3): ("x" * CARRIED_BYTES, at5, False)}
    _, rest = heard(announcement("c1", small, huge))
    assert rest is not None and carried_frames(json.loads(rest)) is None and carried(json.loads(rest), "c1", (4, 5))
    assert carried_frames({"frames": [["spectators", at3, 5, at5]]}) is None
    assert carried_frames({"frames": [["spectators", at3, "{}", "not a cursor of ours"]]}) is None
    assert carried({"events": [{"seq": 4, "unknown": 1}]}, "c1", (4, 4)) is None
    assert carried({"events": ["nonsense"]}, "c1", (4, 4)) is None
    with pytest.raises(ValueError):
        heard("[1, 2]")
    with pytest.raises(ValueError):
        heard("not json")


def test_batches_announced_together_go_out_as_one_when_they_follow_on():
    from herotable.server.live import joined

    def event(campaign: str, seq: int) -> StoredEvent:
        return StoredEvent(campaign, seq, "chat.said", {"text": "hi"}, f"cmd{seq}", "2026-12-02T00:00:00+00:00")

    a4, a5, a6, b1, a9 = event("a", 4), event("a", 5), event("a", 6), event("b", 1), event("a", 9)
    made = {("spectators", "at-4"): ("frame 5-6", "at-6", False)}
    out = joined([("a", [a4], None), ("a", [a5, a6], made), ("b", [b1], None), ("a", [a9], None)])
    assert out == [("a", [a4, a5, a6], made), ("b", [b1], None), ("a", [a9], None)]  # the last part's frames
    apart = [("a", [a4], made), ("a", [a9], None)]
    assert joined(apart) == apart  # a gap: each on its own


def test_every_spectator_gets_each_fact_once_in_order_from_one_shared_frame(tmp_path):
    """Four spectators' sockets on one event loop, as one server process holds them: each roll is made into one frame
    for all four, and each gets every roll once, in order (R-T-3)."""
    from fastapi.testclient import TestClient

    from .clients import register

    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'many.db'}"))
    cid, m = table(app)
    watchers = [m["sly"]]
    for n in range(3):
        watcher = register(app, f"watcher{n}")
        code = m["gm"].post(f"/api/v1/campaigns/{cid}/invites", {"role": "spectator"}).json()["code"]
        assert watcher.post(f"/api/v1/join/{code}").status_code == 200
        watchers.append(watcher)
    hub = app.state.hub
    made: list[str | None] = []  # the cursor each frame was made from (None: a hello)
    making = hub._frame
    hub._frame = lambda cid_, user, cursor, *rest: made.append(cursor) or making(cid_, user, cursor, *rest)
    with contextlib.ExitStack() as stack:
        shared = stack.enter_context(TestClient(app))  # one event loop for every socket (see `Member.cookie`)
        url = f"/ws/campaigns/{cid}"
        sockets = [stack.enter_context(shared.websocket_connect(url, headers=w.cookie)) for w in watchers]
        for ws in sockets:
            assert receive(ws)["type"] == "hello"
        for n in range(8):
            assert m["pat"].command(cid, type="table.roll", expression="1d20", label=f"roll {n}").status_code == 200
        got = [frames_until(ws, lambda events: len(events) >= 8) for ws in sockets]
    # one frame of each roll for the four, made where it landed (and once more for a roll sent together with the one
    # after it): never one for each spectator
    assert 8 <= len([c for c in made if c is not None]) <= 16
    texts = [[json.dumps(f, sort_keys=True) for f in frames] for frames in got]
    assert all(t == texts[0] for t in texts)  # every spectator reads the same frames
    labels = [e["fact"]["label"] for f in got[0] for e in f["events"]]
    assert labels == [f"roll {n}" for n in range(8)]  # each once, in order


def test_frames_carry_the_changed_panels_out_of_band_and_a_dice_roll_none(tmp_path):
    # a page never re-fetches every panel after every event; the frame brings them, for its audience
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"))
    cid, m = table(app)
    setup_fight(m, cid)
    with (
        m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}") as pat_ws,
        m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as sam_ws,
    ):
        hello = receive(pat_ws)
        assert hello["type"] == "hello" and 'id="play"' in hello["html"] and 'id="bar"' in hello["html"]
        receive(sam_ws)
        m["gm"].command(cid, type="ltl.call", character="comet", difficulty="Hard", label="Leap the gap")
        called = frames_until(pat_ws, of_type("ltl.roll_called"))[-1]
        assert 'hx-swap-oob="true"' in called["html"] and 'data-alerts="call:' in called["html"]  # the page toasts it
        assert 'data-action="ltl.challenge"' in called["html"]  # the roll the GM called for, on Comet's card
        m["sam"].command(cid, type="table.roll", expression="1d20")
        rolled = frames_until(sam_ws, of_type("table.dice_rolled"))
        pat_rolled = frames_until(pat_ws, of_type("table.dice_rolled"))[-1]
    assert "html" not in pat_rolled  # a free roll changes the log alone: no panels
    # the call is Pat's and the GM's: Sam's frames never carry it, nor a way to roll it (R-T-3)
    sam_text = json.dumps(rolled)
    assert "Leap the gap" not in sam_text and 'data-action="ltl.challenge"' not in sam_text


def test_a_commands_frames_are_made_from_its_events_without_reading_the_store(tmp_path):
    """Four audiences (the GM, two players, a spectator) get their frames of a roll, and the store runs no more
    statements than it does for the same roll with nobody watching."""
    import sqlalchemy as sa

    store = open_store(f"sqlite:///{tmp_path / 'live.db'}")
    app = make_app(store=store)
    cid, m = table(app)
    statements: list[str] = []
    sa.event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))

    m["pat"].command(cid, type="table.roll", expression="1d20")
    alone = len(table_work(statements))
    names = ("gm", "pat", "sam", "sly")
    with contextlib.ExitStack() as stack:
        sockets = {n: stack.enter_context(m[n].client.websocket_connect(f"/ws/campaigns/{cid}")) for n in names}
        for ws in sockets.values():
            assert receive(ws)["type"] == "hello"
        statements.clear()
        rolled = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        frames = {n: receive(ws) for n, ws in sockets.items()}
        watched = len(table_work(statements))
    assert all([e["command_id"] for e in f["events"]] == [rolled] for f in frames.values())
    assert watched == alone, table_work(statements)[alone:]
    # a free roll changes only the log: its frame carries the fact, neither the panels nor the view
    assert not any("view" in f or "html" in f for f in frames.values())


def test_a_commands_frames_are_made_where_it_landed_and_the_event_loop_only_sends_them(tmp_path):
    """The thread that appended a batch makes every audience's frame of it (the GM, each player, the spectators),
    a free roll's and a new character's (which carries the panels) alike: the event loop makes none, and keeps none
    once they are sent."""
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"))
    cid, m = table(app)
    hub = app.state.hub
    made_where_landed: list[Any] = []
    made_on_the_loop: list[Any] = []
    making, premaking = hub._frames_of, hub._premake
    landing = threading.local()

    def premake(*args: Any, **options: Any) -> Any:
        landing.now = True
        try:
            return premaking(*args, **options)
        finally:
            landing.now = False

    def frames_of(*args: Any) -> Any:
        (made_where_landed if getattr(landing, "now", False) else made_on_the_loop).append(args)
        return making(*args)

    hub._premake, hub._frames_of = premake, frames_of
    names = ("gm", "pat", "sam", "sly")
    with contextlib.ExitStack() as stack:
        sockets = {n: stack.enter_context(m[n].client.websocket_connect(f"/ws/campaigns/{cid}")) for n in names}
        for ws in sockets.values():
            assert receive(ws)["type"] == "hello"
        rolled = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        joined = m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
        frames = {n: frames_until(ws, lambda es: len(es) >= 2) for n, ws in sockets.items()}
    assert made_on_the_loop == [] and len(made_where_landed) == 2
    for name, got in frames.items():
        ids = [e["command_id"] for f in got for e in f["events"]]
        assert list(dict.fromkeys(ids)) == [rolled, joined.json()["command_id"]], name  # a command may hold several
        assert "html" not in got[0] and "html" in got[-1] and got[-1]["view"]["characters"][0]["id"] == "comet"
    assert hub._premade == {}


def test_a_frame_that_changes_the_table_carries_the_view_and_the_panels(tmp_path):
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"))
    cid, m = table(app)
    with m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        m["pat"].command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
        frame = receive(ws)
    assert frame["events"][0]["type"] == "character.joined"
    assert [c["id"] for c in frame["view"]["characters"]] == ["comet"] and "html" in frame


def test_a_viewer_behind_the_new_events_is_caught_up_from_the_store(tmp_path):
    """A batch that does not follow on from a viewer's cursor (here the hub is told of a later batch alone, as
    when a notice was lost) is not trusted: the viewer reads its stream from its own cursor, missing nothing."""
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"))
    cid, m = table(app)
    with m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        listeners = list(app.state.services.table.writer.listeners)
        app.state.services.table.writer.listeners.clear()  # the first roll's notice is lost
        first = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        app.state.services.table.writer.listeners.extend(listeners)
        second = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        events = [e for f in frames_until(ws, lambda es: len(es) >= 2) for e in f["events"]]
    assert [e["command_id"] for e in events] == [first, second]


def test_a_batch_whose_announcement_came_first_brings_the_one_before_it_in_one_read(tmp_path):
    """Two processes' announcements can cross. The batch before is read once for every audience (no reading of
    each audience's stream), and every viewer gets both, in order, once."""
    import sqlalchemy as sa

    store = open_store(f"sqlite:///{tmp_path / 'live.db'}")
    app = make_app(store=store)
    cid, m = table(app)
    names = ("gm", "pat", "sam", "sly")
    with contextlib.ExitStack() as stack:
        sockets = {n: stack.enter_context(m[n].client.websocket_connect(f"/ws/campaigns/{cid}")) for n in names}
        for ws in sockets.values():
            assert receive(ws)["type"] == "hello"
        m["pat"].command(cid, type="table.roll", expression="1d20")
        for ws in sockets.values():
            receive(ws)
        listeners = list(app.state.services.table.writer.listeners)
        app.state.services.table.writer.listeners.clear()  # its announcement is late: it comes after the next one
        first = m["pat"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        app.state.services.table.writer.listeners.extend(listeners)
        statements: list[str] = []
        sa.event.listen(store.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        second = m["gm"].command(cid, type="table.roll", expression="1d20").json()["command_id"]
        got = {n: [e["command_id"] for f in frames_until(ws, lambda es: len(es) >= 2) for e in f["events"]]
               for n, ws in sockets.items()}  # fmt: skip
        loops = len({v.loop for v in app.state.hub._viewers.get(cid, ())})  # a test client has an event loop each
    assert got == {n: [first, second] for n in names}
    reads = [s for s in statements if "FROM events" in s]
    assert reads and all("events.seq > ?" in s and "stream_pos" not in s.split("WHERE")[1] for s in reads), reads
    assert len(reads) <= loops  # the gap, once for each event loop's viewers; no audience's stream read on its own


def test_batches_waiting_together_are_sent_as_one_when_they_follow_on():
    from herotable.server.live import runs
    from herotable.store import StoredEvent

    def batch(*seqs: int) -> list[StoredEvent]:
        return [StoredEvent("c1", seq, "chat.said", {}, f"cmd{seqs[0]}", "2026-12-02T00:00:00+00:00") for seq in seqs]

    one, two, three, later = batch(4, 5), batch(6), batch(7, 8), batch(11)
    made_one = {("spectators", "cursor-at-3"): ("frame 4-5", "cursor-at-5", False)}
    made_two = {("spectators", "cursor-at-5"): ("frame 6", "cursor-at-6", False)}
    waiting = [
        (one, (4, 5), True, made_one),
        (two, None, True, made_two),
        (later, (11, 11), True, None),
    ]
    # the frames made of the last part end where the run ends: an audience at 5 takes them; one at 3 has them made
    assert runs(waiting) == [([*one, *two], (4, 6), True, made_two), (later, (11, 11), True, None)]
    waiting = [
        (one, (4, 5), True, made_one),
        (two, None, True, None),
        (three, (7, 8), False, None),  # announced by another process
        (None, (9, 10), False, None),
        (later, (11, 11), True, None),
        (None, None, False, None),
    ]
    assert runs(waiting) == [
        ([*one, *two, *three], (4, 8), False, None),  # one frame per audience for the three; not all appended here
        (None, (9, 10), False, None),  # told by its span alone: read from the store, in its turn
        (later, (11, 11), True, None),
        (None, None, False, None),  # a catch-up
    ]
    apart = [(batch(3), (3, 3), True, made_one), (batch(5), (5, 5), True, None)]
    assert runs(apart) == apart  # a gap


def test_an_instance_announces_and_keys_only_under_its_own_redis_prefix(tmp_path, shared_redis, monkeypatch):
    """Two instances sharing one Redis (pub/sub ignores the database number) each keep to their prefix: the
    announcement goes out on `<prefix>campaign-events` alone, and the login limits key under `<prefix>throttle:`."""
    import redis

    from herotable.server.live import channel
    from herotable.server.settings import Settings

    mine = f"{redis_prefix()}one:"
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'one.db'}"), redis_url=shared_redis, redis_prefix=mine)
    cid, m = table(app)
    client = redis.Redis.from_url(shared_redis)
    listener = client.pubsub()
    listener.psubscribe(f"{redis_prefix()}*")  # every channel of this test, whatever the instance
    assert listener.get_message(timeout=60)["type"] == "psubscribe"
    try:
        with m["gm"].client:
            m["pat"].command(cid, type="table.roll", expression="1d20")
            heard_on = listener.get_message(timeout=60)
    finally:
        listener.close()
    assert heard_on is not None and heard_on["channel"].decode() == channel(mine) == f"{mine}campaign-events"
    wrong = m["sam"].client.post(
        "/api/v1/auth/password",
        json={"current_password": "not it", "new_password": "a new secret"},
        headers=m["sam"].headers,
    )
    assert wrong.status_code == 401
    keys = {k.decode() for k in client.scan_iter(match=f"{redis_prefix()}*")}
    assert keys and all(k.startswith(f"{mine}throttle:") for k in keys), keys
    monkeypatch.setenv("HEROTABLE_SECRET_KEY", "a-key-so-that-no-file-is-made")
    assert Settings.load().redis_prefix == "herotable:"
    monkeypatch.setenv("HEROTABLE_REDIS_PREFIX", "table-2:")
    assert Settings.load().redis_prefix == "table-2:"
    monkeypatch.setenv("HEROTABLE_REDIS_PREFIX", "table 2 ")
    with pytest.raises(ValueError, match="HEROTABLE_REDIS_PREFIX='table 2 ' holds spaces"):
        Settings.load()


def test_a_shutdown_ends_even_when_the_redis_listener_misses_its_cancellation(tmp_path, shared_redis, monkeypatch):
    """Inside the Redis client a cancellation can be lost (a timeout of its own ending at the same moment), and the
    listener goes on: the shutdown asks again instead of holding the server (and a test's client) for ever."""
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'stop.db'}"), redis_url=shared_redis)
    hub = app.state.hub
    missed = []

    async def listen_missing_the_first_cancellation(pubsub):
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            missed.append(True)  # lost, as inside the client: the listener goes on
        await asyncio.sleep(3600)  # the next cancellation is heard

    monkeypatch.setattr(hub, "_listen", listen_missing_the_first_cancellation)
    monkeypatch.setattr(live_module, "STOP_ASK_S", 0.01, raising=False)

    async def stopped() -> bool:
        await hub.start()
        stopping = asyncio.create_task(hub.stop())
        done, _ = await asyncio.wait({stopping}, timeout=60)  # a bound for the hang, never reached when it stops
        return stopping in done

    assert asyncio.run(stopped()), "the shutdown waited for ever on a listener that missed its cancellation"
    assert missed and hub._listener.done()


def test_a_table_page_s_socket_carries_on_from_the_page_and_never_sends_its_panels_again():
    # the page holds its panels already: its socket opens where the page's stream stood (`data-live-cursor`), so
    # nothing is sent until something happens, and then only that
    app = make_app()
    cid, m = table(app)
    setup_fight(m, cid)
    page = m["pat"].get(f"/campaigns/{cid}/table").text
    cursor = page.split('data-live-cursor="', 1)[1].split('"', 1)[0]
    with m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}?after={cursor}&role=player") as ws:
        rolled = m["gm"].command(cid, type="table.roll", expression="2d6", label="thunder")  # a log line alone
        assert rolled.status_code == 200, rolled.text
        first = receive(ws)
        assert first["type"] == "events" and "html" not in first and "view" not in first
        assert [e["type"] for e in first["events"]] == ["table.dice_rolled"]
        called = m["gm"].command(cid, type="ltl.call", character="comet", difficulty="Hard", label="Leap the gap")
        assert called.status_code == 200, called.text
        second = receive(ws)
        assert 'data-action="ltl.challenge"' in second["html"]  # a change of the panels carries them
    with m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        hello = receive(ws)  # without the page's cursor, a socket still says hello with everything
        assert hello["type"] == "hello" and "html" in hello and len(hello["events"]) > 2
