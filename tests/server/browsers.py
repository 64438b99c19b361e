"""The browser the browser tests drive: Debian's Chromium, headless, through Playwright, and where pages' screenshots
go (test-artifacts/screenshots/)."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
