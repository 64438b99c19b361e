"""Images a campaign's handouts and journal show, and each GM's library of characters to reuse.

`campaign_images` holds images already checked and re-encoded by the server, one row per distinct image of a
campaign (keyed by the digest of its bytes), kept apart from the events as portraits are, so that no log carries
image bytes; their sizes add up to the campaign's quota. `library` holds characters a GM saved from any of their
campaigns (NPCs and villains), each a sheet in its game's format, to add to any other campaign of that game.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision: str | None = "0011"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create `campaign_images`, keyed by campaign and digest, and `library`, found by its owner."""
    op.create_table(
        "campaign_images",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("digest", sa.Text(), nullable=False),
        sa.Column("media_type", sa.Text(), nullable=False),
        sa.Column("image", sa.LargeBinary(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("set_by", sa.Text(), nullable=False),
        sa.Column("set_at", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "digest", name="pk_campaign_images"),
    )
    op.create_table(
        "library",
        sa.Column("entry_id", sa.Text(), primary_key=True),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("ruleset", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.Column("saved_from", sa.Text(), nullable=False),
        sa.Column("saved_at", sa.Text(), nullable=False),
    )
    op.create_index("ix_library_owner", "library", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_library_owner", table_name="library")
    op.drop_table("library")
    op.drop_table("campaign_images")
