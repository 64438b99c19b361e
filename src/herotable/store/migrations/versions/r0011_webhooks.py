"""Outgoing webhooks per campaign, and their outbox: the rows of what is to be sent, written in the transaction that
records each command, taken by the delivery workers of every process. Each campaign's row counts its webhooks, so
that an append to a campaign with none writes nothing more.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision: str | None = "0010"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Create `webhooks` and `webhook_outbox`, and count each campaign's webhooks on its row (read with the head)."""
    op.add_column("campaigns", sa.Column("webhooks", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "webhooks",
        sa.Column("webhook_id", sa.Text(), primary_key=True),
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("format", sa.Text(), nullable=False),
        sa.Column("secret", sa.Text(), nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("stopped_at", sa.Text(), nullable=True),
        sa.Column("stopped_why", sa.Text(), nullable=False, server_default=""),
    )
    op.create_index("ix_webhooks_campaign", "webhooks", ["campaign_id"])
    op.create_table(
        "webhook_outbox",
        sa.Column("delivery_id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("webhook_id", sa.Text(), nullable=False),
        sa.Column("campaign_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("command_id", sa.Text(), nullable=True),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("next_at", sa.Float(), nullable=False),
        sa.Column("claimed_until", sa.Float(), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("remote_id", sa.Text(), nullable=True),
        sa.Column("done_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_webhook_outbox_due", "webhook_outbox", ["state", "webhook_id", "delivery_id"])
    op.create_index("ix_webhook_outbox_command", "webhook_outbox", ["webhook_id", "command_id"])
    op.create_index("ix_webhook_outbox_webhook", "webhook_outbox", ["webhook_id", "delivery_id"])


def downgrade() -> None:
    op.drop_index("ix_webhook_outbox_webhook", table_name="webhook_outbox")
    op.drop_index("ix_webhook_outbox_command", table_name="webhook_outbox")
    op.drop_index("ix_webhook_outbox_due", table_name="webhook_outbox")
    op.drop_table("webhook_outbox")
    op.drop_index("ix_webhooks_campaign", table_name="webhooks")
    op.drop_table("webhooks")
    # (SQLite drops a column in place since 3.35: a batch copy of `campaigns` would trip its foreign keys)
    op.execute("ALTER TABLE campaigns DROP COLUMN webhooks")
