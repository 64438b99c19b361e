"""A table page in a real browser (Debian's Chromium through Playwright) whose live socket drops, because the server
went away and came back, picks up where its last frame left it: the facts it missed arrive once, in order, as
ordinary frames (no "hello"), and nothing it may not see."""

from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import expect

from herotable.store import EventStore, open_store
from herotable.table.chat import Say
from herotable.table.dice_roll import FreeRoll

from .clients import listening_socket, make_app, port_of, table
from .test_browser import Player, Server, browser  # noqa: F401

# what the page's frames said, kept where the test can read it
COLLECT_FRAMES = """
window.__frames = [];
document.addEventListener("DOMContentLoaded", () => {
  document.body.addEventListener("herotable:frame", (e) => {
    window.__frames.push({
      type: e.detail.type,
      events: e.detail.events.map((x) => [x.position, x.fact.label || x.fact.text || x.type]),
    });
  });
});
"""


@dataclass
class Running:
    app: Any
    server: Any
    thread: threading.Thread

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the test server did not stop"


def serve(store: EventStore, listening: socket.socket) -> Running:
    """A server process's worth of herotable (its own app, hub and caches) over `store`, on the `listening` socket.
    It serves a duplicate, which it closes when it stops: the test keeps the port, and a browser that reconnects
    meanwhile waits in the backlog for the next server, as behind a proxy that holds connections."""
    import uvicorn

    app = make_app(store=store)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="auto"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening.dup()]}, daemon=True)
    thread.start()
    return Running(app, server, thread)


def test_a_page_whose_socket_dropped_catches_up_from_its_last_frame(browser, tmp_path):  # noqa: F811
    store = open_store(f"sqlite:///{tmp_path / 'reconnect.db'}")
    listening = listening_socket()
    port = port_of(listening)
    first = serve(store, listening)
    cid, m = table(first.app)  # Gwen the GM, Pat and Sam players, Sly a spectator
    gm, sam = m["gm"].user_id, m["sam"].user_id
    pat = Player(browser, Server(f"http://127.0.0.1:{port}"), "Pat")
    pat.context.add_init_script(COLLECT_FRAMES)
    pat.goto(f"/login?next=/campaigns/{cid}/table")
    pat.page.fill("#login-username", "pat")
    pat.page.fill("#login-password", "correct horse")
    pat.page.click("form[action='/login'] button[type=submit]")
    status = pat.page.locator("#live-status")
    expect(status).to_have_text("live")
    first.app.state.services.table.execute(cid, gm, FreeRoll("1d20", label="before the drop"))
    pat.log_has("before the drop")

    first.stop()  # the socket drops; the page says so and keeps trying
    expect(status).to_have_text("reconnecting…")
    table_service = first.app.state.services.table  # the table goes on meanwhile, in the same database
    for n in range(4):
        table_service.execute(cid, gm, FreeRoll("1d6", label=f"missed {n}"))
        table_service.execute(cid, gm, FreeRoll("1d4", label=f"secret {n}", secret=True))
        table_service.execute(cid, gm, Say(f"to Sam {n}", to=sam))
    second = serve(store, listening)
    try:
        expect(status).to_have_text("live")
        pat.log_has("missed 3")
        second.app.state.services.table.execute(cid, gm, FreeRoll("1d8", label="after the drop"))
        pat.log_has("after the drop")
        frames = pat.page.evaluate("window.__frames")
        start = next(i for i, f in enumerate(frames) if any(text == "before the drop" for _, text in f["events"]))
        before = next(place for place, text in frames[start]["events"] if text == "before the drop")
        since = frames[start + 1 :]
        assert {f["type"] for f in since} == {"events"}  # carried on, not greeted afresh
        assert [text for f in since for _, text in f["events"]] == [f"missed {n}" for n in range(4)] + [
            "after the drop"
        ]
        places = [place for f in since for place, _ in f["events"]]
        assert places == list(range(before + 1, before + 1 + len(places)))  # once each, in order, no gap
        page_text = pat.page.content()
        assert "secret" not in page_text and "to Sam" not in page_text
        pat.close()
    finally:
        second.stop()
        listening.close()
        store.close()


def test_what_happened_between_the_page_and_its_socket_reaches_the_log(browser, tmp_path):  # noqa: F811
    """A page is drawn, then its socket opens: what landed in between (a busy machine, a slow network) comes with the
    socket's first frame, the "hello", and the log shows it too, not only the panels."""
    store = open_store(f"sqlite:///{tmp_path / 'gap.db'}")
    listening = listening_socket()
    running = serve(store, listening)
    try:
        cid, m = table(running.app)
        gm = m["gm"].user_id
        pat = Player(browser, Server(f"http://127.0.0.1:{port_of(listening)}"), "Pat")
        held: list[Any] = []  # the page's socket, held before it reaches the server
        pat.page.route_web_socket(re.compile(r"/ws/campaigns/"), lambda ws: held.append(ws))
        pat.goto(f"/login?next=/campaigns/{cid}/table")
        pat.page.fill("#login-username", "pat")
        pat.page.fill("#login-password", "correct horse")
        pat.page.click("form[action='/login'] button[type=submit]")
        expect(pat.page.locator("#live-status")).to_have_text("live")  # the held socket counts as open
        assert held, "the page opened no live socket"
        running.app.state.services.table.execute(cid, gm, FreeRoll("1d20", label="while it connected"))
        held[0].connect_to_server()
        pat.log_has("while it connected")
        pat.close()
    finally:
        running.stop()
        listening.close()
        store.close()
