"""Server-side sessions, shared login and registration limits, one-time password resets, and invitation links
that expire, count their uses and remember who joined through them and who was removed.

Invitations made before this revision keep working for seven more days and get no use limit.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

OLD_INVITES_KEEP = timedelta(days=7)


def upgrade() -> None:
    """Create `sessions`, `throttles`, `password_resets`, `invite_uses`, `removals`; give invites an expiry and a
    use count."""
    op.create_table(
        "sessions",
        sa.Column("sid_hash", sa.Text(), primary_key=True),
        sa.Column("user_id", sa.Text(), sa.ForeignKey("users.user_id"), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.Text(), nullable=False),
        sa.Column("revoked_at", sa.Text(), nullable=True),
    )
    op.create_index("ix_sessions_user", "sessions", ["user_id"])
    op.create_table(
        "throttles",
        sa.Column("key", sa.Text(), primary_key=True),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("last_at", sa.Float(), nullable=False),
        sa.Column("blocked_until", sa.Float(), nullable=False),
    )
    op.create_table(
        "password_resets",
        sa.Column("token_hash", sa.Text(), primary_key=True),
        sa.Column("user_id", sa.Text(), sa.ForeignKey("users.user_id"), nullable=False),
        sa.Column("created_at", sa.Text(), nullable=False),
        sa.Column("expires_at", sa.Text(), nullable=False),
        sa.Column("used_at", sa.Text(), nullable=True),
    )
    op.create_table(
        "invite_uses",
        sa.Column("code", sa.Text(), primary_key=True),
        sa.Column("user_id", sa.Text(), primary_key=True),
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("joined_at", sa.Text(), nullable=False),
    )
    op.create_index("ix_invite_uses_campaign", "invite_uses", ["campaign_id"])
    op.create_table(
        "removals",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), primary_key=True),
        sa.Column("user_id", sa.Text(), primary_key=True),
        sa.Column("removed_at", sa.Text(), nullable=False),
    )
    with op.batch_alter_table("invites") as batch:
        batch.add_column(sa.Column("expires_at", sa.Text(), nullable=False, server_default=""))
        batch.add_column(sa.Column("max_uses", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("uses", sa.Integer(), nullable=False, server_default="0"))
    invites = sa.table("invites", sa.column("expires_at", sa.Text()))
    keep_until = (datetime.now(UTC) + OLD_INVITES_KEEP).isoformat(timespec="microseconds")
    op.get_bind().execute(sa.update(invites).values(expires_at=keep_until))


def downgrade() -> None:
    with op.batch_alter_table("invites") as batch:
        for column in ("uses", "max_uses", "expires_at"):
            batch.drop_column(column)
    op.drop_table("removals")
    op.drop_index("ix_invite_uses_campaign", "invite_uses")
    op.drop_table("invite_uses")
    op.drop_table("password_resets")
    op.drop_table("throttles")
    op.drop_index("ix_sessions_user", "sessions")
    op.drop_table("sessions")
