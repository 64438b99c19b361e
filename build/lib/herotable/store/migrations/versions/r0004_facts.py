"""Events as facts: each event's rules version, the command that decided it, its place in its viewers' stream, and a
hash chained to the previous event's. Campaigns recorded before (their events are version 1 command-events) are
marked with `log_version` 1 and keep every row; the hash chain and stream positions are computed for them too.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def _hash(prev: str, row: Any) -> str:
    # Frozen here on purpose: the store's own function may change; what this revision wrote must not.
    content = {
        "type": row.type,
        "version": row.version,
        "data": json.loads(row.data),
        "visibility": row.visibility,
        "owner": row.owner,
        "command_id": row.command_id,
        "actor": row.actor,
        "at": row.at,
        "rules_version": 0,
        "command": None,
    }
    canonical = json.dumps(content, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)
    return hashlib.sha256((prev + canonical).encode()).hexdigest()


def upgrade() -> None:
    """Add the new columns, fill them for the events already stored, and index the viewers' streams."""
    with op.batch_alter_table("campaigns") as batch:
        batch.add_column(sa.Column("log_version", sa.Integer(), nullable=False, server_default="1"))
        batch.add_column(sa.Column("head_hash", sa.Text(), nullable=False, server_default=""))
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("rules_version", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("command", sa.Text(), nullable=True))
        batch.add_column(sa.Column("prev_hash", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("hash", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("stream_pos", sa.Integer(), nullable=False, server_default="0"))
    bind = op.get_bind()
    events = sa.table(
        "events",
        sa.column("campaign_id", sa.Text()),
        sa.column("seq", sa.Integer()),
        sa.column("type", sa.Text()),
        sa.column("version", sa.Integer()),
        sa.column("command_id", sa.Text()),
        sa.column("at", sa.Text()),
        sa.column("actor", sa.Text()),
        sa.column("visibility", sa.Text()),
        sa.column("owner", sa.Text()),
        sa.column("data", sa.Text()),
        sa.column("prev_hash", sa.Text()),
        sa.column("hash", sa.Text()),
        sa.column("stream_pos", sa.Integer()),
    )
    campaigns = sa.table("campaigns", sa.column("campaign_id", sa.Text()), sa.column("head_hash", sa.Text()))
    for (campaign_id,) in bind.execute(sa.select(campaigns.c.campaign_id)).all():
        prev = ""
        positions: dict[tuple[str, str | None], int] = {}
        rows = bind.execute(sa.select(events).where(events.c.campaign_id == campaign_id).order_by(events.c.seq)).all()
        for row in rows:
            key = (row.visibility, row.owner)
            positions[key] = positions.get(key, 0) + 1
            digest = _hash(prev, row)
            bind.execute(
                sa.update(events)
                .where(events.c.campaign_id == campaign_id)
                .where(events.c.seq == row.seq)
                .values(prev_hash=prev, hash=digest, stream_pos=positions[key])
            )
            prev = digest
        bind.execute(sa.update(campaigns).where(campaigns.c.campaign_id == campaign_id).values(head_hash=prev))
    op.create_index("ix_events_stream", "events", ["campaign_id", "visibility", "owner", "stream_pos"])


def downgrade() -> None:
    op.drop_index("ix_events_stream", "events")
    with op.batch_alter_table("events") as batch:
        for column in ("stream_pos", "hash", "prev_hash", "command", "rules_version"):
            batch.drop_column(column)
    with op.batch_alter_table("campaigns") as batch:
        batch.drop_column("head_hash")
        batch.drop_column("log_version")
