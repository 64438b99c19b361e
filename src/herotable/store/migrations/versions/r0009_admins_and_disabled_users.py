"""The server's own administration: an account may be an admin (given only from the shell, never by registering),
and may be disabled (it can no longer log in, and its sessions end), and it remembers the invitation it registered
with (a server that registers by invitation only counts them). Every existing account is an enabled non-admin.

Plain ADD COLUMNs with constant defaults, on SQLite too: a batch copy of `users` would drop the table that sessions
and password resets point at, which SQLite's foreign keys refuse.

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
    """Add `users.admin` (false for everyone), `users.disabled_at` and `users.invited_with` (none)."""
    op.add_column("users", sa.Column("admin", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("users", sa.Column("disabled_at", sa.Text(), nullable=True))
    op.add_column("users", sa.Column("invited_with", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as users:
        users.drop_column("invited_with")
        users.drop_column("disabled_at")
        users.drop_column("admin")
