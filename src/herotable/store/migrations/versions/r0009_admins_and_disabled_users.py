"""The server's own administration: an account may be an admin (given only from the shell, never by registering),
and may be disabled (it can no longer log in, and its sessions end). Every existing account is an enabled
non-admin.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    """Add `users.admin` (false for everyone) and `users.disabled_at` (none)."""
    with op.batch_alter_table("users") as users:
        users.add_column(sa.Column("admin", sa.Boolean(), nullable=False, server_default=sa.false()))
        users.add_column(sa.Column("disabled_at", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as users:
        users.drop_column("disabled_at")
        users.drop_column("admin")
