"""Process entry points for the race tests (importable by spawned children)."""

from __future__ import annotations

from typing import Any

from herotable.errors import RulesError
from herotable.service import TableService
from herotable.store import open_store
from herotable.table.ltl.commands import TryAgain


def spend_last_karma(url: str, campaign_id: str, user: str, start: Any) -> str:
    """Wait at the barrier, then try to burn the hero's last Karma level; report what happened."""
    service = TableService(open_store(url))
    service.state(campaign_id)  # both racers hold the same state before the start
    start.wait()
    try:
        service.execute(campaign_id, user, TryAgain("comet"))
    except RulesError as err:
        return f"refused:{err.code}"
    finally:
        service.store.close()
    return "spent"
