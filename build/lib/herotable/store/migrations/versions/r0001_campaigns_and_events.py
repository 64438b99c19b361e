"""Campaigns and their event logs.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create `campaigns` and `events`; (campaign_id, seq) is unique so a seq clash fails in the database."""
    op.create_table(
        "campaigns",
        sa.Column("campaign_id", sa.Text(), primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("head", sa.Integer(), nullable=False),
    )
    op.create_table(
        "events",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("type", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("command_id", sa.Text(), nullable=False),
        sa.Column("at", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=True),
        sa.Column("visibility", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=True),
        sa.Column("data", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "seq", name="pk_events"),
    )
    op.create_index("ix_events_campaign_command", "events", ["campaign_id", "command_id"])


def downgrade() -> None:
    """Drop the event logs and campaigns."""
    op.drop_index("ix_events_campaign_command", table_name="events")
    op.drop_table("events")
    op.drop_table("campaigns")
