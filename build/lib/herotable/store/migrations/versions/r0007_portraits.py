"""Character portraits, in a table of their own: one image per character of a campaign, already checked and
re-encoded by the server, kept apart from the events so that no log carries image bytes.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create `portraits`, keyed by campaign and character."""
    op.create_table(
        "portraits",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("character_id", sa.Text(), nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("set_by", sa.Text(), nullable=False),
        sa.Column("set_at", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "character_id", name="pk_portraits"),
    )


def downgrade() -> None:
    op.drop_table("portraits")
