"""The membership read model: a `memberships` table (campaign, user, role) kept by the store from the membership
facts, filled here from the logs already stored, so that listing one user's campaigns reads that user's rows alone.
Listings now read only their own campaigns' facts, so the events' index by type alone gives way to one by campaign
and type.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

# Frozen here on purpose: the membership facts as this revision knows them (all at fact version 2). The store's own
# read model (`herotable.store.memberships`) may change; what this revision reads must not.
_KINDS = ("campaign.created", "member.joined", "member.role_changed", "member.left", "campaign.gm_handed_over")
_ROLES = ("gm", "player", "spectator")


def _members(campaign_id: str, rows: Iterable[Any]) -> dict[str, str]:
    members: dict[str, str] = {}
    for row in rows:
        if row.version != 2:
            raise RuntimeError(
                f"campaign {campaign_id}: event {row.seq} is a {row.type!r} of version {row.version}; this revision "
                "reads version 2. Tip: upgrade with the herotable that recorded it first"
            )
        data = json.loads(row.data)
        if row.type == "campaign.created":
            members = {data["gm"]: "gm"}
        elif row.type == "member.joined" or (row.type == "member.role_changed" and data["user"] in members):
            members[data["user"]] = data["role"]
        elif row.type == "member.left":
            members.pop(data["user"], None)
        elif row.type == "campaign.gm_handed_over":
            for user, role in ((data["old"], "player"), (data["new"], "gm")):
                if user in members:
                    members[user] = role
    for user, role in members.items():
        if role not in _ROLES:
            raise RuntimeError(f"campaign {campaign_id}: member {user!r} has the unknown role {role!r}")
    return members


def upgrade() -> None:
    """Create `memberships`, fill it from every readable campaign's membership facts, and re-index the events."""
    op.create_table(
        "memberships",
        sa.Column("campaign_id", sa.Text(), sa.ForeignKey("campaigns.campaign_id"), nullable=False),
        sa.Column("user_id", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("campaign_id", "user_id", name="pk_memberships"),
    )
    op.create_index("ix_memberships_user", "memberships", ["user_id"])
    op.create_index("ix_events_campaign_type", "events", ["campaign_id", "type"])
    op.drop_index("ix_events_type", table_name="events")
    bind = op.get_bind()
    campaigns = sa.table("campaigns", sa.column("campaign_id", sa.Text()), sa.column("log_version", sa.Integer()))
    events = sa.table(
        "events",
        sa.column("campaign_id", sa.Text()),
        sa.column("seq", sa.Integer()),
        sa.column("type", sa.Text()),
        sa.column("version", sa.Integer()),
        sa.column("data", sa.Text()),
    )
    memberships = sa.table(
        "memberships",
        sa.column("campaign_id", sa.Text()),
        sa.column("user_id", sa.Text()),
        sa.column("role", sa.Text()),
    )
    readable = sa.select(campaigns.c.campaign_id).where(campaigns.c.log_version >= 2)  # older logs are never opened
    for (campaign_id,) in bind.execute(readable).all():
        rows = bind.execute(
            sa.select(events)
            .where(events.c.campaign_id == campaign_id)
            .where(events.c.type.in_(_KINDS))
            .order_by(events.c.seq)
        ).all()
        members = _members(campaign_id, rows)
        if members:
            bind.execute(
                sa.insert(memberships),
                [{"campaign_id": campaign_id, "user_id": user, "role": role} for user, role in members.items()],
            )


def downgrade() -> None:
    op.create_index("ix_events_type", "events", ["type"])
    op.drop_index("ix_events_campaign_type", table_name="events")
    op.drop_index("ix_memberships_user", table_name="memberships")
    op.drop_table("memberships")
