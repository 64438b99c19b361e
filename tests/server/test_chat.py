"""Chat and the log on the web: the chat box and its panel, whispers through every door (the API, the log panel, live
frames), /r rolls, and the log's filters and pages (never an unseen event, never a hidden position, never the whole
log)."""

from __future__ import annotations

import contextlib
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herotable.server.chat import chat_fragment, log_fragment
from herotable.server.log_pages import SCAN_MOST, SLICE
from herotable.store.memory import MemoryEventStore
from herotable.table.chat import Say
from herotable.table.dice_roll import FreeRoll

from .clients import make_app, table
from .test_live import frames_until, receive

MEMBERS = ("gm", "pat", "sam", "sly")


def say(m: Any, cid: str, text: str, to: str = "") -> Any:
    """Send a line through the chat box, as the browser does (htmx)."""
    return m.client.post(
        f"/campaigns/{cid}/chat", data={"text": text, "to": to}, headers={**m.headers, "HX-Request": "true"}
    )


def events(m: Any, cid: str, **query: Any) -> dict[str, Any]:
    answer = m.get(f"/api/v1/campaigns/{cid}/events?" + "&".join(f"{k}={v}" for k, v in query.items()))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def chat_texts(m: Any, cid: str) -> set[str]:
    return {e["fact"]["text"] for e in events(m, cid, filter="chat")["events"] if e["type"] == "chat.said"}


def visible_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


@pytest.fixture
def app() -> Any:
    return make_app()


@pytest.mark.parametrize("processes", [1, 2])
def test_spectators_share_frames_but_never_one_anothers_whispers(tmp_path, request, processes):
    """Spectators share one frame of what they all may see; a whisper to one of them is theirs alone, on the process
    that sent it and on another (frames made where it landed, or carried by Redis), and a later one to another
    spectator still reaches them, none skipped (R-T-3)."""
    from herotable.store import open_store

    from .clients import register

    redis_url = request.getfixturevalue("shared_redis") if processes == 2 else None
    url = f"sqlite:///{tmp_path / 'live.db'}"
    first = make_app(store=open_store(url), redis_url=redis_url)
    cid, m = table(first)
    watcher = register(first, "watcher")
    code = m["gm"].post(f"/api/v1/campaigns/{cid}/invites", {"role": "spectator"}).json()["code"]
    assert watcher.post(f"/api/v1/join/{code}").status_code == 200
    spectators = {"sly": m["sly"], "watcher": watcher}
    other = make_app(store=open_store(url), redis_url=redis_url) if processes == 2 else first
    with contextlib.ExitStack() as stack:
        if processes == 2:
            stack.enter_context(m["gm"].client)  # each app's lifespan: its announcing thread and Redis listener
            stack.enter_context(TestClient(other))
        sockets = {}
        for name, member in spectators.items():
            client = TestClient(other)
            client.cookies = member.client.cookies
            sockets[name] = stack.enter_context(client.websocket_connect(f"/ws/campaigns/{cid}"))
            assert receive(sockets[name])["type"] == "hello"
        here = stack.enter_context(m["gm"].client.websocket_connect(f"/ws/campaigns/{cid}"))  # watched here too
        assert receive(here)["type"] == "hello"
        assert say(m["pat"], cid, "for sly alone", to=m["sly"].user_id).status_code == 200
        assert say(m["pat"], cid, "for the watcher alone", to=watcher.user_id).status_code == 200
        assert say(m["gm"], cid, "everyone, hello").status_code == 200
        got = {
            name: frames_until(ws, lambda evs: any(e["fact"].get("text") == "everyone, hello" for e in evs))
            for name, ws in sockets.items()
        }
    texts = {name: [e["fact"].get("text") for f in frames for e in f["events"]] for name, frames in got.items()}
    assert texts["sly"] == ["for sly alone", "everyone, hello"]
    assert texts["watcher"] == ["for the watcher alone", "everyone, hello"]


def test_spectators_caught_up_from_the_store_are_each_read_on_their_own(tmp_path):
    """Two spectators at the same cursor whose news must be read from the store (the notices of two whispers, one to
    each, were lost) are each sent their own stream, never one read for both (R-T-3)."""
    from herotable.store import open_store

    from .clients import register

    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'live.db'}"))
    cid, m = table(app)
    watcher = register(app, "watcher")
    code = m["gm"].post(f"/api/v1/campaigns/{cid}/invites", {"role": "spectator"}).json()["code"]
    assert watcher.post(f"/api/v1/join/{code}").status_code == 200
    spectators = {"sly": m["sly"], "watcher": watcher}
    with contextlib.ExitStack() as stack:
        shared = stack.enter_context(TestClient(app))  # both sockets on one event loop (see `Member.cookie`)
        url = f"/ws/campaigns/{cid}"
        sockets = {
            n: stack.enter_context(shared.websocket_connect(url, headers=w.cookie)) for n, w in spectators.items()
        }
        for ws in sockets.values():
            assert receive(ws)["type"] == "hello"
        listeners = list(app.state.services.table.writer.listeners)
        app.state.services.table.writer.listeners.clear()  # the whispers' notices are lost
        assert say(m["pat"], cid, "for sly alone", to=m["sly"].user_id).status_code == 200
        assert say(m["pat"], cid, "for the watcher alone", to=watcher.user_id).status_code == 200
        app.state.services.table.writer.listeners.extend(listeners)
        assert say(m["gm"], cid, "everyone, hello").status_code == 200
        got = {
            n: frames_until(ws, lambda evs: any(e["fact"].get("text") == "everyone, hello" for e in evs))
            for n, ws in sockets.items()
        }
    texts = {n: [e["fact"].get("text") for f in frames for e in f["events"]] for n, frames in got.items()}
    assert texts == {
        "sly": ["for sly alone", "everyone, hello"],
        "watcher": ["for the watcher alone", "everyone, hello"],
    }


def test_a_whisper_reaches_only_its_audience_through_the_api_the_log_and_live_frames(app):
    cid, m = table(app)
    sockets = {u: m[u].client.websocket_connect(f"/ws/campaigns/{cid}") for u in MEMBERS}
    try:
        ws = {u: s.__enter__() for u, s in sockets.items()}
        for u in MEMBERS:
            assert receive(ws[u])["type"] == "hello"
        sent = say(m["pat"], cid, "the vault code is 7341", to=m["sam"].user_id)
        assert sent.status_code == 200 and 'role="alert"' not in sent.text
        assert sent.headers["HX-Trigger"] == "chatted"
        assert say(m["gm"], cid, "/w Pat psst from the GM").status_code == 200
        assert say(m["sly"], cid, "everyone, hello").status_code == 200
        frames = {
            u: frames_until(ws[u], lambda evs: any(e["fact"].get("text") == "everyone, hello" for e in evs))
            for u in MEMBERS
        }
    finally:
        for s in sockets.values():
            s.__exit__(None, None, None)
    audience = {"the vault code is 7341": {"gm", "pat", "sam"}, "psst from the GM": {"gm", "pat"}}
    for u in MEMBERS:
        live = {e["fact"].get("text") for f in frames[u] for e in f["events"]}
        api = chat_texts(m[u], cid)
        panel = visible_text(m[u].get(f"/campaigns/{cid}/table/log").text)
        for text, who in audience.items():
            assert (text in live) is (u in who), (u, text, "live")
            assert (text in api) is (u in who), (u, text, "api")
            assert (text in panel) is (u in who), (u, text, "panel")
        assert "everyone, hello" in api and "everyone, hello" in panel
    # the log shows a whisper between players once, even to the GM who holds both copies
    gm_panel = m["gm"].get(f"/campaigns/{cid}/table/log?filter=chat").text
    assert gm_panel.count("the vault code is 7341") == 1 and "to Sam" in gm_panel
    assert "to you" in m["sam"].get(f"/campaigns/{cid}/table/log").text


def test_r_in_the_chat_rolls_with_the_tables_dice_and_shows_the_total(app):
    cid, m = table(app)
    answer = say(m["pat"], cid, "/r 3d6+2 falling rocks")
    assert answer.status_code == 200 and 'role="alert"' not in answer.text
    [rolled] = [e for e in events(m["sam"], cid, filter="rolls")["events"] if e["type"] == "chat.rolled"]
    fact = rolled["fact"]
    assert [sides for sides, _ in fact["dice"]] == [6, 6, 6] and all(1 <= f <= 6 for _, f in fact["dice"])
    assert fact["total"] == sum(f for _, f in fact["dice"]) + 2 and fact["label"] == "falling rocks"
    panel = m["sam"].get(f"/campaigns/{cid}/table/log?filter=chat").text
    assert "falling rocks: 3d6" in panel and f"= {fact['total']}</p>" in panel


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("/r 2d+", "cannot read"),
        ("/r 1000d6", "more than 100 dice"),
        ("/w nobody hello", "names nobody"),
        ("/dance", "not a chat command"),
        ("x" * 2001, "at most 2000"),
        ("a\x07b", "u+0007"),
        ("   ", "text is empty"),
    ],
)
def test_a_refused_line_comes_back_with_the_reason_and_the_text_and_records_nothing(app, line, says):
    cid, m = table(app)
    before = events(m["gm"], cid)["last"]
    answer = say(m["pat"], cid, line)
    assert answer.status_code == 200 and 'role="alert"' in answer.text
    assert says in answer.text.lower()
    if line.strip() and "\x07" not in line:
        assert line[:50] in answer.text  # what was typed stays in the box
    assert events(m["gm"], cid)["last"] == before


def test_a_nul_in_a_message_is_refused_before_it_reaches_the_table(app):
    cid, m = table(app)
    before = events(m["gm"], cid)["last"]
    answer = say(m["pat"], cid, "a\x00b")
    assert answer.status_code == 422 and answer.json()["code"] == "request/nul"
    assert events(m["gm"], cid)["last"] == before


def test_the_chat_panel_offers_rolls_to_players_and_whispers_to_every_other_member(app):
    cid, m = table(app)
    player = m["pat"].get(f"/campaigns/{cid}/chat").text
    assert "/r 2d6+1" in player and 'name="to"' in player
    assert m["sam"].user_id in player and m["pat"].user_id not in player.split('name="to"')[1]
    spectator = m["sly"].get(f"/campaigns/{cid}/chat").text
    assert "/r 2d6+1" not in spectator
    assert m["sly"].get(f"/campaigns/{cid}/chat").status_code == 200
    assert m["pat"].client.get(f"/campaigns/{cid}/table/log?filter=bogus").status_code == 422


def test_chat_never_blocks_a_players_undo(app):
    # R-T-4: the player's last action stays undoable after chat and chat rolls, theirs and others'
    cid, m = table(app)
    asked = m["pat"].command(cid, type="request.ask", kind="difficulty", text="how high is the wall?").json()
    say(m["pat"], cid, "brb")
    say(m["pat"], cid, "/r 1d20")
    say(m["sam"], cid, "/w pat hurry")
    undo = [a for a in m["pat"].get(f"/api/v1/campaigns/{cid}/actions").json()["actions"] if a["type"] == "table.undo"]
    assert undo and undo[0]["fixed"]["target"] == asked["command_id"]
    assert m["pat"].command(cid, type="table.undo").status_code == 200
    assert {"brb", "hurry"} <= chat_texts(m["pat"], cid)


def test_filters_show_rolls_chat_and_mine(app):
    cid, m = table(app)
    m["pat"].command(cid, type="table.roll", expression="1d6")
    say(m["pat"], cid, "hi")
    say(m["sam"], cid, "/r 1d8")
    say(m["sam"], cid, "/w pat just you")
    kinds = {f: [e["type"] for e in events(m["pat"], cid, filter=f)["events"]] for f in ("rolls", "chat", "mine")}
    assert kinds["rolls"] == ["table.dice_rolled", "chat.rolled"]
    assert kinds["chat"] == ["chat.said", "chat.rolled", "chat.said"]
    mine = events(m["pat"], cid, filter="mine")["events"]
    assert [e["type"] for e in mine][-3:] == ["table.dice_rolled", "chat.said", "chat.said"]
    assert all(e["actor"] == m["pat"].user_id or e["fact"].get("to") == m["pat"].user_id for e in mine)
    assert m["pat"].get(f"/api/v1/campaigns/{cid}/events?filter=secret").status_code == 422


def test_paging_back_through_a_filter_shows_every_visible_event_once_and_nothing_else(app):
    cid, m = table(app)
    ids = {u: m[u].user_id for u in MEMBERS}
    sent: list[tuple[str, str | None, str]] = []
    plan = ["pat", "sam", "gm", "sly"] * 4
    for n, sender in enumerate(plan):
        to = [None, "gm", "pat", "sam"][n % 4]
        if to == sender:
            to = None
        text = f"message {n}"
        assert 'role="alert"' not in say(m[sender], cid, text, ids[to] if to else "").text
        m["gm"].command(cid, type="table.roll", expression="1d4", secret=True)  # GM-only facts in between
        sent.append((sender, to, text))
    for u in MEMBERS:
        expected = [t for s, to, t in sent if to is None or u in (s, to, "gm")]
        got: list[str] = []
        query: dict[str, Any] = {"filter": "chat", "limit": 3}
        while True:
            page = events(m[u], cid, **query)
            assert all(e["visibility"] != "gm" or u == "gm" for e in page["events"])
            got[:0] = [e["fact"]["text"] for e in page["events"]]
            if page["older"] is None:
                break
            query = {"filter": "chat", "limit": 3, "before": page["older"]}
        assert list(dict.fromkeys(got)) == expected, u


def test_a_players_cursors_are_the_same_whatever_the_gm_did_in_secret():
    def play(secrets: bool) -> list[Any]:
        app = make_app()
        cid, m = table(app)
        cursors = []
        for n in range(6):
            say(m["pat"], cid, f"public {n}")
            if secrets:
                m["gm"].command(cid, type="table.roll", expression="1d20", secret=True)
                say(m["gm"], cid, "/gmroll 1d6")
                say(m["gm"], cid, f"/w Pat for pat {n}")
        for f in ("all", "chat", "rolls", "mine"):
            page = events(m["sam"], cid, filter=f, limit=2)
            older = events(m["sam"], cid, filter=f, limit=2, before=page["older"]) if page["older"] else {}
            cursors.append((page["first"], page["last"], page["older"], older.get("first"), older.get("older")))
            cursors.append([e["position"] for e in page["events"] + older.get("events", [])])
        return cursors

    assert play(secrets=True) == play(secrets=False)


class CountingStore(MemoryEventStore):
    """The real in-memory store, counting the events its stream reads hand out."""

    def __init__(self) -> None:
        super().__init__()
        self.read = 0

    def read_stream(self, *args: Any, **kwargs: Any) -> Any:
        got = super().read_stream(*args, **kwargs)
        self.read += len(got)
        return got


def test_no_page_of_the_log_reads_the_whole_log():
    store = CountingStore()
    app = make_app(store=store)
    cid, m = table(app)
    svc = app.state.services.table
    for _ in range(SLICE):
        svc.execute(cid, m["pat"].user_id, FreeRoll("1d6"))
    say(m["pat"], cid, "the first chat line, far back")
    for _ in range(SCAN_MOST + 2 * SLICE):  # more than one page may read
        svc.execute(cid, m["pat"].user_id, FreeRoll("1d6"))
    for path in (f"/api/v1/campaigns/{cid}/events?filter=chat", f"/campaigns/{cid}/table/log?filter=chat"):
        store.read = 0
        assert m["sam"].get(path).status_code == 200
        assert 0 < store.read <= SCAN_MOST + SLICE, path
    page = events(m["sam"], cid, filter="chat")
    assert page["events"] == [] and page["older"] is not None  # ended early, with a cursor to read on
    found: list[str] = []
    while page["older"] is not None and not found:
        page = events(m["sam"], cid, filter="chat", before=page["older"])
        found = [e["fact"]["text"] for e in page["events"]]
    assert found == ["the first chat line, far back"]


def test_the_older_button_loads_the_next_page_of_the_same_filter(app):
    cid, m = table(app)
    svc = app.state.services.table
    for n in range(250):
        svc.execute(cid, m["pat"].user_id, Say(f"line {n}"))
        if n % 50 == 0:
            svc.execute(cid, m["pat"].user_id, FreeRoll("1d6"))
    panel = m["sam"].get(f"/campaigns/{cid}/table/log?filter=chat").text
    assert "line 249<" in panel and "line 0<" not in panel and "Dice" not in panel
    older = re.search(r'hx-get="([^"]+before=[^"]+)"', panel)
    assert older is not None and "filter=chat" in older.group(1)
    more = m["sam"].get(older.group(1).replace("&amp;", "&")).text
    assert "line 0<" in more and "line 249<" not in more and "Dice" not in more
    assert 'class="log-panel"' not in more and "Older" not in more
    shown = re.findall(r"line (\d+)<", more) + re.findall(r"line (\d+)<", panel)
    assert list(map(int, shown)) == list(range(250))  # oldest first, the older page above the newest


def test_the_panels_render_for_one_viewer_for_a_live_frame(app):
    cid, m = table(app)
    say(m["pat"], cid, "for sam alone", m["sam"].user_id)
    say(m["sly"], cid, "hello from the stands")
    svc = app.state.services.table
    state = svc.state(cid)
    for u in MEMBERS:
        html = str(log_fragment(svc, state, m[u].user_id, oob=True))
        assert 'id="log-panel"' in html and 'hx-swap-oob="true"' in html and "hello from the stands" in html
        assert ("for sam alone" in html) is (u in ("gm", "pat", "sam")), u
    chat = str(chat_fragment(state, m["sly"].user_id, oob=True))
    assert 'id="chat-panel"' in chat and 'hx-swap-oob="true"' in chat and "/r 2d6+1" not in chat
    assert 'name="csrf_token"' not in chat and 'name="csrf_token"' in str(chat_fragment(state, m["sly"].user_id, "t"))
    assert "hx-swap-oob" not in str(log_fragment(svc, state, m["pat"].user_id))


def test_a_message_is_shown_as_text_never_as_markup(app):
    cid, m = table(app)
    say(m["pat"], cid, '<img src=x onerror="alert(1)"> <b>bold</b>')
    panel = m["sam"].get(f"/campaigns/{cid}/table/log").text
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt; &lt;b&gt;bold&lt;/b&gt;" in panel
    assert "<img" not in panel and "<b>" not in panel
