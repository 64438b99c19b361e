"""/docs (Swagger UI) and /redoc (ReDoc) render in a real browser under the app's Content-Security-Policy, with every
script and style from the server itself: nothing is asked of another host, so they work offline."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from .test_browser import SHOTS, Server, browser, server  # noqa: F401


def _visit(chromium: Any, at: Server, path: str) -> tuple[Any, list[str], list[str]]:
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    elsewhere: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: elsewhere.append(r.url) if not r.url.startswith((at.url, "data:", "blob:")) else None)
    page.goto(at.url + path)
    return page, errors, elsewhere


def test_swagger_ui_lists_the_api_from_local_files(browser: Any, server: Server) -> None:  # noqa: F811
    page, errors, elsewhere = _visit(browser, server, "/docs")
    expect(page.locator(".opblock").first).to_be_visible()
    expect(page.locator("#swagger-ui")).to_contain_text("/api/v1/campaigns/{campaign_id}/commands")
    page.screenshot(path=str(SHOTS / "90-api-swagger.png"))
    assert not errors and not elsewhere, errors + elsewhere


def test_redoc_lists_the_api_from_local_files(browser: Any, server: Server) -> None:  # noqa: F811
    page, errors, elsewhere = _visit(browser, server, "/redoc")
    expect(page.locator(".api-content")).to_contain_text("/api/v1/campaigns/{campaign_id}/commands")
    page.screenshot(path=str(SHOTS / "91-api-redoc.png"))
    assert not errors and not elsewhere, errors + elsewhere
