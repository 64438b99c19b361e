"""Event builders and exact-equality checks shared by the store tests."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from herotable.store import EventStore, NewEvent, SqlEventStore, StoredEvent, payload

AT = "2024-05-01T19:30:00+00:00"
CREATED = "2024-05-01T19:00:00+00:00"


def event(command_id: str, type: str = "ltl.karma_spent", data: dict[str, Any] | None = None, **more: Any) -> NewEvent:
    """A valid event of command `command_id`."""
    more.setdefault("at", AT)
    return NewEvent(type=type, data={"n": 1} if data is None else data, command_id=command_id, **more)


def command(command_id: str, size: int) -> list[NewEvent]:
    """The `size` events of one command, numbered in their data."""
    return [event(command_id, data={"part": part, "of": size}) for part in range(size)]


def same(a: Any, b: Any) -> bool:
    """Equal as JSON values *and* of the same types everywhere (1 is not 1.0 nor True), key order included."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def assert_whole_log(events: Sequence[StoredEvent], per_command: int) -> None:
    """Seqs run 1..n without gap or repeat, and every command's `per_command` events sit together, in order."""
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert len(events) % per_command == 0
    groups = [events[i : i + per_command] for i in range(0, len(events), per_command)]
    for group in groups:
        assert len({e.command_id for e in group}) == 1, [e.command_id for e in group]
        assert [e.data["part"] for e in group] == list(range(per_command))
    assert len({group[0].command_id for group in groups}) == len(groups), "a command was recorded twice"


_CAMPAIGN = ("campaign_id", "name", "ruleset", "created_at", "head", "log_version", "head_hash")
_EVENT = (
    "campaign_id", "seq", "type", "version", "command_id", "at", "actor", "visibility", "owner", "data",
    "rules_version", "command", "prev_hash", "hash", "stream_pos",
)  # fmt: skip


def write_at_old_revision(engine: Engine, source: EventStore, campaign_id: str) -> None:
    """Put a campaign recorded by this herotable (in `source`) into a database at an older revision, 0004 or later,
    with plain inserts into its campaigns and events: as that revision's herotable would have kept it (today's store
    would also write tables the old revision lacks)."""
    row = source.campaign(campaign_id)
    events = source.load(campaign_id)
    campaign = {**vars(row), "head_hash": events[-1].hash if events else ""}
    with engine.begin() as connection:
        connection.execute(sa.insert(sa.table("campaigns", *map(sa.column, _CAMPAIGN))), [campaign])
        if events:
            rows = [
                {
                    **{name: getattr(e, name) for name in _EVENT},
                    "data": payload.dumps(e.data, "data"),
                    "command": None if e.command is None else payload.dumps(e.command, "command"),
                }
                for e in events
            ]
            connection.execute(sa.insert(sa.table("events", *map(sa.column, _EVENT))), rows)


@contextmanager
def counted_work(store: EventStore) -> Iterator[list[int]]:
    """The work the database does for what runs inside: [statements, work], where work is SQLite's virtual machine
    steps (each row a statement visits costs some) or, on PostgreSQL, the rows each statement's plan visits
    (EXPLAIN ANALYZE of the same statement afterwards: rows produced by every node plus rows its filters threw away;
    only reads are explained, since EXPLAIN ANALYZE runs a statement again)."""
    assert isinstance(store, SqlEventStore)
    engine = store.engine
    counts = [0, 0]
    seen: list[tuple[str, Any]] = []

    def step() -> int:
        counts[1] += 1
        return 0

    touched: list[Any] = []

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        counts[0] += 1
        seen.append((statement, parameters))
        if engine.dialect.name == "sqlite":  # kept until the end: SQLite steps on as the rows are fetched
            touched.append(conn.connection.dbapi_connection)
            touched[-1].set_progress_handler(step, 1)

    sa.event.listen(engine, "before_cursor_execute", before)
    try:
        yield counts
    finally:
        sa.event.remove(engine, "before_cursor_execute", before)
        for connection in touched:
            connection.set_progress_handler(None, 1)
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            for statement, parameters in seen:
                if not statement.lstrip().upper().startswith("SELECT"):
                    continue
                plan = connection.exec_driver_sql(f"EXPLAIN (ANALYZE, FORMAT JSON) {statement}", parameters).scalar()
                counts[1] += _visited((json.loads(plan) if isinstance(plan, str) else plan)[0]["Plan"])


def _visited(node: dict[str, Any]) -> int:
    rows = node.get("Actual Rows", 0) * node.get("Actual Loops", 1)
    thrown = node.get("Rows Removed by Filter", 0) + node.get("Rows Removed by Index Recheck", 0)
    return int(rows + thrown + sum(_visited(child) for child in node.get("Plans", ())))
