"""An index on the events' type, so that a read model built from one kind of fact (the members of every campaign,
for a user's list of campaigns) reads those facts alone, not whole logs.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_events_type", "events", ["type"])


def downgrade() -> None:
    op.drop_index("ix_events_type", table_name="events")
