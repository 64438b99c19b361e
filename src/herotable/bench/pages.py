"""How light the table page is, part of `make bench`: the bytes of the table page and of the first live frame after
it, for the GM and a player at both demo campaigns, and the time to first paint in Chromium.

The goals (docs/web.md): the GM's table page at most 40 KB of HTML, the first frame after a page load at most 8 KB.
`every_form` is the page with every section's form in it, as it was sent before the forms loaded as sections open;
`panels_frame` is the next frame, of a change to the panels (the GM ends or begins a scene): it carries them, redrawn
for that audience. `hello` is the frame a socket that does not say where its page stands is greeted with (the panels
again, and the newest events). Run on its own: `python -m herotable.bench.pages`.
"""

from __future__ import annotations

import html
import itertools
import json
import re
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

PAGE_GOAL = 40 * 1024  # the GM's table page, bytes of HTML
FRAME_GOAL = 8 * 1024  # the first live frame after a page load
DEMOS = ("demo-ltl", "demo-cv")
VIEWERS = (("gwen", "gm"), ("ana", "player"))
SLOT = re.compile(r'<div class="form-slot" hx-get="([^"]+)"[^>]*>.*?</div>', re.S)
CHROMIUM = Path("/usr/bin/chromium")
PAINTS = 3  # loads of each page whose first paint is timed; the median is reported


def _client(app: Any, username: str) -> Any:
    from fastapi.testclient import TestClient

    from herotable.server.games.demo import DEMO_PASSWORD

    client = TestClient(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    answer = client.post(
        "/api/v1/auth/login",
        json={"username": username, "password": DEMO_PASSWORD},
        headers={"X-CSRF-Token": token},
    )
    answer.raise_for_status()
    client.headers["X-CSRF-Token"] = answer.json()["csrf_token"]
    return client


def _bytes() -> dict[str, Any]:
    """Page and frame bytes, measured in this process against the demo campaigns on an in-memory store."""
    from fastapi.testclient import TestClient

    from herotable.dice import SeededRng
    from herotable.server.app import create_app
    from herotable.server.games.demo import seed_demo
    from herotable.server.settings import Settings
    from herotable.store import MemoryEventStore

    settings = Settings(secret_key=secrets.token_urlsafe(32), hash_rounds=1, hash_memory_kib=256, register_attempts=100)
    app = create_app(settings, store=MemoryEventStore(), rng=SeededRng(1))
    out: dict[str, Any] = {}
    with TestClient(app):
        seed_demo(app.state.services)
        clients = {name: _client(app, name) for name in ("gwen", "ana", "ben")}
        scenes = itertools.cycle(("structure.end_scene", "structure.start_scene"))
        for cid in DEMOS:
            for name, role in VIEWERS:
                client = clients[name]
                page = client.get(f"/campaigns/{cid}/table").text
                every = SLOT.sub(lambda m, c=client: c.get(html.unescape(m.group(1))).text, page)  # type: ignore[misc]
                cursor = re.search(r'data-live-cursor="([^"]+)"', page)
                assert cursor is not None, "the table page says where its panels stand"
                query = f"?after={cursor.group(1)}&role={role}"
                with client.websocket_connect(f"/ws/campaigns/{cid}{query}") as ws:
                    roll = {"type": "table.roll", "expression": "2d6", "label": "bench"}  # a log line: Ben rolls
                    clients["ben"].post(f"/api/v1/campaigns/{cid}/commands", json=roll).raise_for_status()
                    first = ws.receive_text()
                    scene = next(scenes)  # then the GM ends or begins a scene: the panels change for everyone
                    clients["gwen"].post(f"/api/v1/campaigns/{cid}/commands", json={"type": scene}).raise_for_status()
                    panels = ws.receive_text()
                with client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
                    hello = ws.receive_text()
                size = len(page.encode())
                frame = len(first.encode())
                out[f"{cid} {role}"] = {
                    "page_bytes": size,
                    "every_form_bytes": len(every.encode()),
                    "first_frame_bytes": frame,
                    "first_frame_is": json.loads(first)["type"],
                    "panels_frame_bytes": len(panels.encode()),
                    "hello_bytes": len(hello.encode()),
                    "page_within_goal": size <= PAGE_GOAL,
                    "frame_within_goal": frame <= FRAME_GOAL,
                }
    return out


def _paints() -> dict[str, Any]:
    """The median time to first contentful paint of each table page in Chromium, served by `herotable serve
    --demo` on SQLite; or why it was not measured."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"not_measured": "Playwright is not installed (make test installs it)"}
    if not CHROMIUM.exists():
        return {"not_measured": f"no Chromium at {CHROMIUM} (apt-get install chromium)"}
    from herotable.bench.live import DATABASE_URL_ENV, _env, _herotable_command, _running
    from herotable.server.games.demo import DEMO_PASSWORD

    tmp = Path(tempfile.mkdtemp(prefix="herotable-bench-pages-"))
    try:
        env = _env(
            **{
                DATABASE_URL_ENV: f"sqlite:///{tmp / 'pages.db'}",
                "HEROTABLE_DATA_DIR": str(tmp),
                "HEROTABLE_SECRET_KEY": secrets.token_urlsafe(32),
            }
        )
        out: dict[str, Any] = {}
        with _running(([*_herotable_command(), "serve", "--demo"], env, tmp / "herotable.log")) as (server,):
            http = server.ready()
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
                for name, role in VIEWERS:
                    context = browser.new_context()
                    page = context.new_page()
                    page.goto(f"{http}/login")
                    page.fill("[name=username]", name)
                    page.fill("[name=password]", DEMO_PASSWORD)
                    page.click("button[type=submit]")
                    page.wait_for_url(f"{http}/")
                    for cid in DEMOS:
                        times = []
                        for _ in range(PAINTS):
                            page.goto(f"{http}/campaigns/{cid}/table")
                            fcp = page.evaluate(
                                "() => new Promise(done => new PerformanceObserver((list, o) => {"
                                " const e = list.getEntriesByName('first-contentful-paint')[0];"
                                " if (e) { o.disconnect(); done(e.startTime); } })"
                                ".observe({type: 'paint', buffered: true}))"
                            )
                            times.append(float(fcp))
                        out[f"{cid} {role}"] = {"first_paint_ms": round(sorted(times)[len(times) // 2], 1)}
                    context.close()
                browser.close()
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def figures() -> dict[str, Any]:
    sizes = _bytes()
    paints = _paints()
    pages = {key: {**value, **paints.get(key, {})} for key, value in sizes.items()}
    return {
        "pages": {
            "goals": {"gm_page_bytes": PAGE_GOAL, "first_frame_bytes": FRAME_GOAL},
            **pages,
            **({"first_paint": paints["not_measured"]} if "not_measured" in paints else {}),
        }
    }


if __name__ == "__main__":
    print(json.dumps(figures(), indent=2))
