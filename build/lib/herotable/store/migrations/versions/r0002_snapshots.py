"""Snapshots of folded campaign state.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create `snapshots`, keyed by campaign, state format version and seq."""
    op.create_table(
        "snapshots",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "version", "seq", name="pk_snapshots"),
    )


def downgrade() -> None:
    """Drop the snapshots; they can always be rebuilt from the events."""
    op.drop_table("snapshots")
