"""The tables as the current migration head leaves them. Migrations never import this module."""

from __future__ import annotations

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, LargeBinary, Text, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Tables of the event store."""


class CampaignRecord(Base):
    """One campaign; `head` is the seq of its last event, moved only by a compare-and-set on append."""

    __tablename__ = "campaigns"

    campaign_id: Mapped[str] = mapped_column(Text, primary_key=True)
    name: Mapped[str] = mapped_column(Text)
    ruleset: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(Text)
    head: Mapped[int] = mapped_column(Integer)
    log_version: Mapped[int] = mapped_column(Integer)
    head_hash: Mapped[str] = mapped_column(Text)
    # how many webhooks it has, read with the head by every append: one with none writes no outbox row
    webhooks: Mapped[int] = mapped_column(Integer, server_default="0")


class EventRecord(Base):
    """One event; the primary key (campaign_id, seq) is the unique constraint that makes a seq clash fail."""

    __tablename__ = "events"
    __table_args__ = (
        Index("ix_events_campaign_command", "campaign_id", "command_id"),
        Index("ix_events_stream", "campaign_id", "visibility", "owner", "stream_pos"),
        Index("ix_events_campaign_type", "campaign_id", "type"),
    )

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    type: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer)
    command_id: Mapped[str] = mapped_column(Text)
    at: Mapped[str] = mapped_column(Text)
    actor: Mapped[str | None] = mapped_column(Text)
    visibility: Mapped[str] = mapped_column(Text)
    owner: Mapped[str | None] = mapped_column(Text)
    data: Mapped[str] = mapped_column(Text)
    rules_version: Mapped[int] = mapped_column(Integer)
    command: Mapped[str | None] = mapped_column(Text)
    prev_hash: Mapped[str] = mapped_column(Text)
    hash: Mapped[str] = mapped_column(Text)
    stream_pos: Mapped[int] = mapped_column(Integer)


class SnapshotRecord(Base):
    """A folded state after event `seq`, in state format `version`, as JSON text."""

    __tablename__ = "snapshots"

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    state: Mapped[str] = mapped_column(Text)


class MembershipRecord(Base):
    """The membership read model: one row per member of a campaign, with their role, kept from the membership facts
    in the transaction that writes them; `ix_memberships_user` finds one user's rows."""

    __tablename__ = "memberships"
    __table_args__ = (Index("ix_memberships_user", "user_id"),)

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    role: Mapped[str] = mapped_column(Text)


class PortraitRecord(Base):
    """A character's portrait: the image as the server re-encoded it, its size, and a digest of its bytes (what a
    browser's cached copy is checked against)."""

    __tablename__ = "portraits"

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    character_id: Mapped[str] = mapped_column(Text, primary_key=True)
    media_type: Mapped[str] = mapped_column(Text)
    image: Mapped[bytes] = mapped_column(LargeBinary)
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    digest: Mapped[str] = mapped_column(Text)
    set_by: Mapped[str] = mapped_column(Text)
    set_at: Mapped[str] = mapped_column(Text)


class UserRecord(Base):
    """An account. The password is kept only as a memory-hard hash."""

    __tablename__ = "users"

    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    username: Mapped[str] = mapped_column(Text, unique=True)
    display_name: Mapped[str] = mapped_column(Text)
    password_hash: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(Text)
    admin: Mapped[bool] = mapped_column(Boolean, server_default=false())  # given only from the shell
    disabled_at: Mapped[str | None] = mapped_column(Text, nullable=True)  # set: no login, no session
    invited_with: Mapped[str | None] = mapped_column(Text, nullable=True)  # the invitation it registered with


class InviteRecord(Base):
    """An invitation code that lets its holder join a campaign in a role."""

    __tablename__ = "invites"

    code: Mapped[str] = mapped_column(Text, primary_key=True)
    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"))
    role: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[str] = mapped_column(Text)
    max_uses: Mapped[int | None] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer)


class InviteUseRecord(Base):
    """Who joined through which invitation, and when (kept after the invitation is withdrawn)."""

    __tablename__ = "invite_uses"
    __table_args__ = (Index("ix_invite_uses_campaign", "campaign_id"),)

    code: Mapped[str] = mapped_column(Text, primary_key=True)
    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"))
    joined_at: Mapped[str] = mapped_column(Text)


class RemovalRecord(Base):
    """The last time the GM removed a user from a campaign: invitations made before it no longer admit them."""

    __tablename__ = "removals"

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    user_id: Mapped[str] = mapped_column(Text, primary_key=True)
    removed_at: Mapped[str] = mapped_column(Text)


class SessionRecord(Base):
    """A logged-in session. Only a hash of the session id is kept; a revoked session never comes back."""

    __tablename__ = "sessions"
    __table_args__ = (Index("ix_sessions_user", "user_id"),)

    sid_hash: Mapped[str] = mapped_column(Text, primary_key=True)
    user_id: Mapped[str] = mapped_column(Text, ForeignKey("users.user_id"))
    created_at: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[str] = mapped_column(Text)
    revoked_at: Mapped[str | None] = mapped_column(Text)


class ThrottleRecord(Base):
    """Attempts counted under one key (an account, an address): how many, the last, and until when to refuse."""

    __tablename__ = "throttles"

    key: Mapped[str] = mapped_column(Text, primary_key=True)
    count: Mapped[int] = mapped_column(Integer)
    last_at: Mapped[float] = mapped_column(Float)
    blocked_until: Mapped[float] = mapped_column(Float)


class ApiTokenRecord(Base):
    """A personal API token (only its SHA-256 is kept): a bot acting for its user, within a scope."""

    __tablename__ = "api_tokens"
    __table_args__ = (Index("ix_api_tokens_user", "user_id"),)

    token_id: Mapped[str] = mapped_column(Text, primary_key=True)
    token_hash: Mapped[str] = mapped_column(Text, unique=True)
    user_id: Mapped[str] = mapped_column(Text, ForeignKey("users.user_id"))
    name: Mapped[str] = mapped_column(Text)
    scope: Mapped[str] = mapped_column(Text)  # read, play or gm
    campaign_id: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[str | None] = mapped_column(Text, nullable=True)
    last_used_at: Mapped[str | None] = mapped_column(Text, nullable=True)
    revoked_at: Mapped[str | None] = mapped_column(Text, nullable=True)


class PasswordResetRecord(Base):
    """A one-time password reset link (only its hash is kept), made by the server's owner."""

    __tablename__ = "password_resets"

    token_hash: Mapped[str] = mapped_column(Text, primary_key=True)
    user_id: Mapped[str] = mapped_column(Text, ForeignKey("users.user_id"))
    created_at: Mapped[str] = mapped_column(Text)
    expires_at: Mapped[str] = mapped_column(Text)
    used_at: Mapped[str | None] = mapped_column(Text)


class WebhookRecord(Base):
    """A receiver the GM set for a campaign: its URL, its format and, for signed JSON, the signing secret."""

    __tablename__ = "webhooks"
    __table_args__ = (Index("ix_webhooks_campaign", "campaign_id"),)

    webhook_id: Mapped[str] = mapped_column(Text, primary_key=True)
    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"))
    name: Mapped[str] = mapped_column(Text)
    url: Mapped[str] = mapped_column(Text)
    format: Mapped[str] = mapped_column(Text)  # discord or json
    secret: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str] = mapped_column(Text)
    created_at: Mapped[str] = mapped_column(Text)
    stopped_at: Mapped[str | None] = mapped_column(Text, nullable=True)  # its receiver said it is gone
    stopped_why: Mapped[str] = mapped_column(Text, server_default="")


class OutboxRecord(Base):
    """What is to be sent to a webhook, written with the command it tells of; how its delivery went."""

    __tablename__ = "webhook_outbox"
    __table_args__ = (
        Index("ix_webhook_outbox_due", "state", "webhook_id", "delivery_id"),
        Index("ix_webhook_outbox_command", "webhook_id", "command_id"),
        Index("ix_webhook_outbox_webhook", "webhook_id", "delivery_id"),
    )

    delivery_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    webhook_id: Mapped[str] = mapped_column(Text)
    campaign_id: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(Text)  # action or test
    command_id: Mapped[str | None] = mapped_column(Text, nullable=True)
    first_seq: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[str] = mapped_column(Text)
    tries: Mapped[int] = mapped_column(Integer)
    next_at: Mapped[float] = mapped_column(Float)
    claimed_until: Mapped[float] = mapped_column(Float)
    state: Mapped[str] = mapped_column(Text)  # pending, sent, failed or skipped
    answer: Mapped[str] = mapped_column(Text)
    remote_id: Mapped[str | None] = mapped_column(Text, nullable=True)
    done_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class CampaignImageRecord(Base):
    """An image a campaign's handouts show, as the server re-encoded it, keyed by the digest of its bytes: one row
    however many entries show it. The sizes of a campaign's rows count against its quota."""

    __tablename__ = "campaign_images"

    campaign_id: Mapped[str] = mapped_column(Text, ForeignKey("campaigns.campaign_id"), primary_key=True)
    digest: Mapped[str] = mapped_column(Text, primary_key=True)
    media_type: Mapped[str] = mapped_column(Text)
    image: Mapped[bytes] = mapped_column(LargeBinary)
    width: Mapped[int] = mapped_column(Integer)
    height: Mapped[int] = mapped_column(Integer)
    set_by: Mapped[str] = mapped_column(Text)
    set_at: Mapped[str] = mapped_column(Text)


class LibraryRecord(Base):
    """A character a GM saved to reuse in any campaign of its game: a character document (the format one character
    is exported in), found by its owner."""

    __tablename__ = "library"
    __table_args__ = (Index("ix_library_owner", "owner"),)

    entry_id: Mapped[str] = mapped_column(Text, primary_key=True)
    owner: Mapped[str] = mapped_column(Text)
    ruleset: Mapped[str] = mapped_column(Text)
    name: Mapped[str] = mapped_column(Text)
    document: Mapped[str] = mapped_column(Text)
    saved_from: Mapped[str] = mapped_column(Text)
    saved_at: Mapped[str] = mapped_column(Text)
