"""Commands and what a member may send now: the table's one way to change anything."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from typing_extensions import TypedDict

from herotable.server import command_checks, problems
from herotable.server.answers import CampaignView, Domain, Event, answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep, current_user, require_user
from herotable.server.log_pages import seen_json
from herotable.server.schemas import CommandBody, body_json, command_model
from herotable.table.commands import COMMANDS, command_from_json
from herotable.table.views import view_for

router = APIRouter()


COMMAND_ID = Query(
    pattern=r"^[A-Za-z0-9_-]{8,64}$",
    description="Your own id for this command (8 to 64 letters, digits, - or _): send the same id to retry a command "
    "whose answer you did not get, and it is recorded once.",
)


@answer
class CommandAnswer(TypedDict):
    """A command recorded (or found recorded already), what it did as you may see it, and the table after it."""

    command_id: Annotated[str, Field(description="the command's id (yours, or one the server chose)")]
    repeated: Annotated[bool, Field(description="the id was already recorded: nothing was written")]
    events: Annotated[
        list[Event], Field(description="what is new in your stream since just before the command, oldest first")
    ]
    cursor: Annotated[str, Field(description="where those events leave your stream: catch up from here")]
    view: Annotated[CampaignView, Field(description="the table as you see it after the command")]


@answer
class Action(TypedDict):
    """A command you may send now: `fixed` fields as given, each of `fields` any value of its domain, the rest left
    to their defaults."""

    type: str
    label: str
    group: Annotated[str, Field(description="where a panel puts it")]
    rule: Annotated[str, Field(description="the rules it follows, e.g. R-LTL-7")]
    fixed: dict[str, Any]
    fields: dict[str, Domain]


@answer
class Actions(TypedDict):
    actions: list[Action]


@answer
class CommandType(TypedDict):
    """A command type: what it does, its fields, and the JSON Schema of its body."""

    doc: str
    fields: list[str]
    schema: Annotated[dict[str, Any], Field(description="a JSON Schema")]


# The first of the routes, since routes are tried in order and this one serves the most requests. The answer is built of
# JSON values already and sent as it is: `response_model` documents it, and nothing validates it again.
@router.post(
    "/campaigns/{campaign_id}/commands",
    response_model=CommandAnswer,
    responses=IN_A_CAMPAIGN | problems.responses(409, 429),
)
def command(
    campaign_id: str,
    svc: ServicesDep,
    request: Request,
    body: Annotated[CommandBody, Body()],
    command_id: Annotated[str | None, COMMAND_ID] = None,
) -> JSONResponse:
    """Run one table command (a JSON object with its `type` and fields); GET …/actions lists what you may send now.

    The answer holds the command's id, everything new in your own stream since just before it (the command's facts
    you may see, and any another member's command landed meanwhile, each with its `command_id`), the cursor after
    them to catch up from, and your view. A command whose facts are all hidden from you (a roll against a hidden
    villain's sheet) has no events for you.

    A retry with a `command_id` already recorded writes nothing: the answer says `"repeated": true` and holds that
    command's facts as you see them, with the cursor of your stream's end; so is a command after which you read
    another stream (a GM handing the role over reads a player's from then on). The same id for another command is
    refused (409)."""
    user = require_user(current_user(request, svc))  # here rather than as a dependency: one thread for it all
    before = member_state(svc, campaign_id, user, recent=True)
    start = svc.table.head_cursor(campaign_id, user.user_id, before)
    cmd = command_from_json(body_json(body))
    command_checks.check(svc, campaign_id, cmd)
    if command_id is None:  # an id of the server's own is new: no need to look for an earlier landing
        chosen = uuid.uuid4().hex
        applied = svc.table.execute(campaign_id, user.user_id, cmd, command_id=chosen, fresh=True, state=before)
    else:
        chosen = command_id
        applied = svc.table.execute(campaign_id, user.user_id, cmd, command_id=chosen, state=before)
    # the answer reads the state the command landed on: no second look at the campaign's head. A member whose
    # stream changed with it (a GM who handed over reads a player's stream now) starts afresh in the new one.
    restarted = before.is_gm(user.user_id) != applied.state.is_gm(user.user_id)
    if applied.repeated or restarted:
        page = svc.table.stream(campaign_id, user.user_id, limit=500, state=applied.state)
        seen = [s for s in page.seen if s.command_id == chosen]
    else:  # the command's own events, and those that landed since `before` as this process remembers them, unread
        between = (
            svc.table.events_between(campaign_id, before.seq, applied.events[0].seq - 1) if applied.events else None
        )
        batch = [*between, *applied.events] if between is not None else []
        found = svc.table.following(applied.state, user.user_id, start, batch) if batch else None
        page = found or svc.table.stream(campaign_id, user.user_id, after=start, limit=500, state=applied.state)
        seen = page.seen
    return JSONResponse(
        {
            "command_id": chosen,
            "repeated": applied.repeated,
            "events": [seen_json(applied.state, s) for s in seen],
            "cursor": page.last,
            "view": view_for(applied.state, user.user_id),
        }
    )


@router.get("/campaigns/{campaign_id}/actions", response_model=Actions, responses=IN_A_CAMPAIGN)
def actions(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """Every command you may issue now, each field with its domain (`fixed` fields are sent as given)."""
    member_state(svc, campaign_id, user)
    return {"actions": [a.to_json() for a in svc.table.legal_actions(campaign_id, user.user_id)]}


@router.get("/commands")
def command_types() -> dict[str, CommandType]:
    """Every command type with its fields and their JSON schema, by type."""
    out: dict[str, CommandType] = {}
    for name, spec in sorted(COMMANDS.items()):
        schema = command_model(name).model_json_schema()
        out[name] = {
            "doc": (spec.cls.__doc__ or "").strip().split("\n")[0],
            "fields": [f for f in spec.cls.__dataclass_fields__],
            "schema": schema,
        }
    return out
