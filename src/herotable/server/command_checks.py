"""What the server checks of a command beyond the rules, against what it keeps beside the log (an image a journal
entry names must be one uploaded to its campaign), before the command runs: one check per command class, registered
by the module that keeps the thing checked, so the command route names no command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from herotable.table.commands import Command

Check = Callable[[Any, str, Any], None]  # (services, campaign id, command): raises a RulesError to refuse it
CHECKS: dict[type[Command], Check] = {}


def checks(cls: type[Command]) -> Callable[[Check], Check]:
    def register(fn: Check) -> Check:
        CHECKS[cls] = fn
        return fn

    return register


def check(svc: Any, campaign_id: str, cmd: Command) -> None:
    """Refuse `cmd` (a RulesError) when what it names is not kept beside the campaign's log."""
    found = CHECKS.get(type(cmd))
    if found is not None:
        found(svc, campaign_id, cmd)
