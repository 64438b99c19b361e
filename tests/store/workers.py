"""Code that runs in child processes (spawned, so it must be importable by name)."""

from __future__ import annotations

from typing import Any

from herotable.store import ConcurrencyError, open_store

from .helpers import command


def race(url: str, campaign_id: str, player: int, commands: int, start: Any) -> None:
    """Record `commands` two-event commands, each at the head just read, retrying whenever another came first."""
    store = open_store(url)
    start.wait()
    try:
        for number in range(commands):
            while True:
                head = store.head(campaign_id)
                try:
                    store.append(campaign_id, head, command(f"p{player}-{number}", 2))
                    break
                except ConcurrencyError:
                    continue
    finally:
        store.close()


def open_and_create(url: str, campaign_id: str, start: Any) -> None:
    """Open (and so migrate) the store at the same moment as other processes, then create a campaign."""
    start.wait()
    store = open_store(url)
    store.create_campaign(campaign_id, campaign_id, "ltl", "2024-05-01T19:00:00+00:00")
    store.close()
