"""A campaign's outgoing webhooks, set by its GM: list, add, remove, and send a test message.

A webhook's full address (a Discord webhook URL holds its token) and its signing secret are shown once, in the answer
that makes it; afterwards only the host and the start of the path are. The pages use the same helpers."""

from __future__ import annotations

import secrets
import uuid
from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from herotable.server import problems
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.server.webhooks import MAX_TRIES, Courier, check_url, shown_url
from herotable.store.accounts import User
from herotable.store.webhooks import Delivery, Webhook
from herotable.table.state import TableState

router = APIRouter()


class Refused(HTTPException):
    """A webhook refused: a problem with its own `code` and a `fix`."""

    def __init__(self, status: int, code: str, detail: str, fix: str) -> None:
        super().__init__(status, detail)
        self.code = code
        self.fix = fix


MOST_PER_CAMPAIGN = 5
NAME_LENGTH = 60
Format = Literal["discord", "json"]


class NewWebhook(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = Field(
        min_length=1,
        max_length=2000,
        description="where to send: a Discord webhook URL, or any https:// (or http://) receiver",
    )
    format: Format = Field(
        default="discord", description="`discord`: Discord's webhook JSON; `json`: herotable's JSON, signed"
    )
    name: str = Field(default="", max_length=NAME_LENGTH, description="a name for the GM's list")


class DeliveryOut(BaseModel):
    """One message to a webhook: what it told of, how its tries went, and the receiver's last answer."""

    delivery_id: int
    kind: Literal["action", "test"]
    command_id: str | None
    created_at: str = Field(description="when the action it tells of was recorded, or the test asked for (ISO 8601)")
    state: Literal["pending", "sent", "failed", "skipped"]
    tries: int = Field(description=f"tries so far; at most {MAX_TRIES}")
    answer: str = Field(description="the receiver's last answer, or why none came")
    next_try_at: str | None = Field(description="when a pending delivery is tried again (ISO 8601)")


class WebhookOut(BaseModel):
    """A webhook as its list shows it: never its full address or its secret."""

    webhook_id: str
    name: str
    format: Format
    shown_url: str = Field(description="the host and the start of the path")
    created_at: str
    stopped_at: str | None = Field(
        description="when its receiver said it is gone (401, 403, 404, 410): nothing is sent until a test reaches it"
    )
    stopped_why: str = Field(description="the receiver's answer then, or empty")
    recent: list[DeliveryOut] = Field(description="its latest deliveries, newest first")


class MadeWebhook(WebhookOut):
    """A webhook just made: its address and, for signed JSON, its secret, shown this once."""

    url: str
    secret: str | None = Field(description="the key of the `Herotable-Signature` HMAC (format json)")


class WebhookRemoved(BaseModel):
    removed: str


class TestQueued(BaseModel):
    delivery_id: int
    said: str


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def delivery_out(d: Delivery) -> DeliveryOut:
    return DeliveryOut(
        delivery_id=d.delivery_id,
        kind="test" if d.kind == "test" else "action",
        command_id=d.command_id,
        created_at=d.created_at,
        state=d.state,  # type: ignore[arg-type]
        tries=d.tries,
        answer=d.answer,
        next_try_at=_iso(d.next_at) if d.state == "pending" and d.tries else None,
    )


def webhook_out(courier: Courier, hook: Webhook) -> WebhookOut:
    return WebhookOut(
        webhook_id=hook.webhook_id,
        name=hook.name,
        format="json" if hook.format == "json" else "discord",
        shown_url=shown_url(hook.url),
        created_at=hook.created_at,
        stopped_at=hook.stopped_at,
        stopped_why=hook.stopped_why,
        recent=[delivery_out(d) for d in courier.store.deliveries(hook.webhook_id, 5)],
    )


def courier_of(request: Request) -> Courier:
    found: Courier = request.app.state.courier
    return found


def gm_state(svc: ServicesDep, campaign_id: str, user: User) -> TableState:
    state = member_state(svc, campaign_id, user)
    if not state.is_gm(user.user_id):
        raise Refused(403, "webhook/not_gm", "only the GM sets the campaign's webhooks", "ask the campaign's GM")
    return state


def add_webhook(courier: Courier, svc: ServicesDep, state: TableState, user: User, body: NewWebhook) -> Webhook:
    """Make a webhook for the campaign. Raises Refused (422) for an address that cannot be one or is one already,
    or when the campaign has as many as it may."""
    url = body.url.strip()
    why = check_url(url) or courier.sender.refusal(url)
    if why is not None:
        raise Refused(
            422,
            "webhook/bad_address",
            f"the address cannot be a webhook's: {why}",
            "paste the URL the receiver gave you",
        )
    hooks = courier.store.webhooks(state.campaign_id)
    if any(h.url == url for h in hooks):  # (a page sent again by a reload, say)
        raise Refused(
            422, "webhook/exists", "this address is already one of the campaign's webhooks", "send it a test instead"
        )
    if len(hooks) >= MOST_PER_CAMPAIGN:
        raise Refused(
            422,
            "webhook/too_many",
            f"a campaign has at most {MOST_PER_CAMPAIGN} webhooks",
            "remove one you no longer use first",
        )
    name = body.name.strip() or ("Discord" if body.format == "discord" else "JSON receiver")
    hook = Webhook(
        uuid.uuid4().hex[:12],
        state.campaign_id,
        name,
        url,
        body.format,
        secrets.token_urlsafe(32),
        user.user_id,
        svc.now().isoformat(timespec="seconds"),
    )
    return courier.store.add_webhook(hook)


def found_webhook(courier: Courier, campaign_id: str, webhook_id: str) -> Webhook:
    hook = courier.store.webhook(webhook_id)
    if hook is None or hook.campaign_id != campaign_id:
        raise Refused(
            404, "webhook/unknown", "no such webhook in this campaign", "GET the campaign's webhooks for their ids"
        )
    return hook


def queue_test(courier: Courier, svc: ServicesDep, hook: Webhook) -> int:
    """A test message for `hook`, one at a time: a GM cannot have the server send a stream of them."""
    if courier.store.test_pending(hook.webhook_id):
        raise Refused(
            409, "webhook/test_pending", "a test message to this webhook is already on its way", "wait for its outcome"
        )
    number = courier.store.enqueue_test(hook, svc.now().isoformat(timespec="seconds"))
    courier.wake()
    return number


@router.get("/campaigns/{campaign_id}/webhooks", responses=IN_A_CAMPAIGN)
def webhooks(campaign_id: str, request: Request, svc: ServicesDep, user: UserDep) -> list[WebhookOut]:
    """The campaign's webhooks with their latest deliveries (GM only)."""
    gm_state(svc, campaign_id, user)
    courier = courier_of(request)
    return [webhook_out(courier, h) for h in courier.store.webhooks(campaign_id)]


@router.post("/campaigns/{campaign_id}/webhooks", status_code=201, responses=IN_A_CAMPAIGN | problems.responses(422))
def create_webhook(
    campaign_id: str, body: NewWebhook, request: Request, svc: ServicesDep, user: UserDep
) -> MadeWebhook:
    """A new webhook: from now on, what the whole table sees is sent there. Its address and secret are shown once."""
    courier = courier_of(request)
    hook = add_webhook(courier, svc, gm_state(svc, campaign_id, user), user, body)
    shown = webhook_out(courier, hook)
    return MadeWebhook(**shown.model_dump(), url=hook.url, secret=hook.secret if hook.format == "json" else None)


@router.delete("/campaigns/{campaign_id}/webhooks/{webhook_id}", responses=IN_A_CAMPAIGN)
def remove_webhook(
    campaign_id: str, webhook_id: str, request: Request, svc: ServicesDep, user: UserDep
) -> WebhookRemoved:
    """Remove a webhook; nothing more is sent to it, pending deliveries included."""
    gm_state(svc, campaign_id, user)
    courier = courier_of(request)
    found_webhook(courier, campaign_id, webhook_id)
    courier.store.remove_webhook(campaign_id, webhook_id)
    return WebhookRemoved(removed=webhook_id)


@router.post(
    "/campaigns/{campaign_id}/webhooks/{webhook_id}/test",
    status_code=202,
    responses=IN_A_CAMPAIGN | problems.responses(409),
)
def test_webhook(campaign_id: str, webhook_id: str, request: Request, svc: ServicesDep, user: UserDep) -> TestQueued:
    """Send a test message to the webhook now; its outcome shows in the webhook's deliveries."""
    gm_state(svc, campaign_id, user)
    courier = courier_of(request)
    number = queue_test(courier, svc, found_webhook(courier, campaign_id, webhook_id))
    return TestQueued(delivery_id=number, said="A test message is on its way; its outcome shows in the list.")
