"""What the table page shows: the campaign's game board for the viewer (from `Game.board`), the requests, and the
log in words. Presentation only: every secret is filtered by the game's own masking and the viewer's stream."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from herotable.table.game import Card, OpenRoll, game_of
from herotable.table.render import LogEntry, Seen, log_entries
from herotable.table.state import OpenRequest, Role, TableState

LOG_LENGTH = 150


@dataclass
class Board:
    party: list[Card] = field(default_factory=list)
    opponents: list[Card] = field(default_factory=list)
    rolls: list[OpenRoll] = field(default_factory=list)
    requests: list[OpenRequest] = field(default_factory=list)
    conflict: dict[str, Any] | None = None
    extras: dict[str, Any] = field(default_factory=dict)


def build(state: TableState, user: str) -> Board:
    """The board for `user`."""
    shown = game_of(state).board(state, user)
    board = Board(extras=dict(shown.extras))
    board.party.extend(c for c in shown.cards if not c.npc)
    board.opponents.extend(c for c in shown.cards if c.npc)
    board.rolls.extend(shown.rolls)
    board.conflict = dict(shown.conflict) if shown.conflict is not None else None
    gm = state.role_of(user) is Role.GM
    board.requests.extend(r for r in state.requests if gm or r.user == user)
    return board


def log(state: TableState, seen: list[Seen]) -> list[LogEntry]:
    """The newest entries first, in words, with every raw face."""
    return list(reversed(log_entries(state, seen[-LOG_LENGTH * 4 :])))[:LOG_LENGTH]


def faces(entry: LogEntry) -> str:
    return ", ".join(f"d{sides}:{face}" for sides, face in entry.dice)
