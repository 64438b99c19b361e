"""Each game's presenter, registered as its module is imported (as `herotable.table.kinds` registers the games)."""

from herotable.server.games import conviction, ltl

__all__ = ["conviction", "ltl"]
