"""Campaigns: a member's list, a new campaign, one campaign as its member sees it, and its log."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import TypedDict

from herotable.server import log_pages
from herotable.server.answers import CampaignView, Domain, Event, answer
from herotable.server.api.common import IN_A_CAMPAIGN, member_state
from herotable.server.deps import ServicesDep, UserDep
from herotable.server.log_pages import seen_json
from herotable.server.presenter import listed
from herotable.store.accounts import User
from herotable.table.game import checked_options, game_for
from herotable.table.state import Role, Ruleset

router = APIRouter()


def _games_schema(schema: dict[str, Any]) -> None:
    schema["enum"] = [p.ruleset.value for p in listed()]  # the games registered when the schema is made


class NewCampaign(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    ruleset: str = Field(description="the game it plays: GET /api/v1/games lists them", json_schema_extra=_games_schema)
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="the game's campaign options by name, as GET /api/v1/games lists them; the rest keep defaults",
        max_length=40,
    )

    @field_validator("ruleset")
    @classmethod
    def _known(cls, name: str) -> str:
        known = [p.ruleset.value for p in listed()]  # a game the web can show: registered, with its presenter
        if name not in known:
            raise ValueError(f"no game is called {name[:40]!r}: choose one of {', '.join(known)} (GET /api/v1/games)")
        return name


@answer
class CampaignListed(TypedDict):
    """One of your campaigns, as the list shows it (nothing of its play)."""

    campaign_id: str
    name: str
    ruleset: str
    role: Annotated[Role, Field(description="your role in it")]
    members: Annotated[int, Field(description="how many members it has")]
    archived: bool


@answer
class GameOption(TypedDict):
    """A campaign option a GM chooses: its values, its default, and whether it may change in play."""

    name: str
    title: str
    about: str
    changeable: Annotated[bool, Field(description="it may change while the campaign is under way")]
    rule: str
    values: Domain
    default: Any


@answer
class Game(TypedDict):
    """A game a campaign may play."""

    ruleset: Annotated[str, Field(description="the name a new campaign gives as its `ruleset`")]
    title: str
    rules_version: Annotated[int, Field(description="raised when a rules correction changes what a command decides")]
    options: list[GameOption]


@answer
class EventPage(TypedDict):
    """A page of your stream of the log, oldest first."""

    events: list[Event]
    first: Annotated[str, Field(description="the cursor before the page's first event")]
    last: Annotated[str, Field(description="the cursor after its last event: catch up from here")]
    older: Annotated[str | None, Field(description="the cursor to page back from; null at the stream's start")]


def my_campaigns(svc: ServicesDep, user: User) -> list[CampaignListed]:
    """The user's campaigns, from the membership read model (no campaign's play is loaded)."""
    return [
        {
            "campaign_id": state.campaign_id,
            "name": state.name,
            "ruleset": state.ruleset.value,
            "role": role,
            "members": len(state.members),
            "archived": state.archived,
        }
        for state, role in svc.table.campaigns_of(user.user_id)
    ]


@router.get("/campaigns")
def campaigns(svc: ServicesDep, user: UserDep) -> list[CampaignListed]:
    """Your campaigns, oldest first."""
    return my_campaigns(svc, user)


def new_campaign(svc: ServicesDep, user: User, body: NewCampaign) -> str:
    """A new campaign with the user as its GM, with the game's options given (checked first, `checked_options`);
    its id."""
    ruleset = Ruleset(body.ruleset)
    options = checked_options(game_for(ruleset).option_specs, body.options)
    return svc.table.create_campaign(user.user_id, user.display_name, body.name, ruleset, options=options).campaign_id


@router.get("/games", response_model=list[Game])
def games() -> list[dict[str, Any]]:
    """The games a campaign may play: the `ruleset` a new campaign names, its title, its rules' version, and the
    campaign options a GM chooses (each with its values, its default, and whether it may change in play)."""
    out = []
    for p in listed():
        game = game_for(p.ruleset)
        defaults = game.default_options()
        out.append(
            {
                "ruleset": p.ruleset.value,
                "title": game.title,
                "rules_version": game.rules_version,
                "options": [s.to_json(default=defaults.get(s.name)) for s in game.option_specs],
            }
        )
    return out


# The table makes a view as plain JSON; `response_model` checks it against its type on the way out.
@router.post("/campaigns", status_code=201, response_model=CampaignView)
def create_campaign(body: NewCampaign, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """A new campaign, with you as its GM; its view."""
    return svc.table.view(new_campaign(svc, user, body), user.user_id)


@router.get("/campaigns/{campaign_id}", response_model=CampaignView, responses=IN_A_CAMPAIGN)
def campaign(campaign_id: str, svc: ServicesDep, user: UserDep) -> dict[str, Any]:
    """The campaign as you see it."""
    member_state(svc, campaign_id, user)
    return svc.table.view(campaign_id, user.user_id)


def cursor_query() -> Any:
    """A fresh Query per parameter: FastAPI binds a Query object to the first parameter that uses it."""
    return Query(default=None, max_length=40, description="An opaque cursor from an earlier page or live frame.")


@router.get("/campaigns/{campaign_id}/events", responses=IN_A_CAMPAIGN)
def events(
    campaign_id: str,
    svc: ServicesDep,
    user: UserDep,
    after: str | None = cursor_query(),
    before: str | None = cursor_query(),
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
    filter: Annotated[str, Query(pattern=log_pages.FILTER_PATTERN, description=log_pages.FILTER_HELP)] = "all",
) -> EventPage:
    """Your own stream of the log, numbered for you alone: `after` a cursor to catch up (oldest first), `before` one
    to page back, neither for the newest page. `first` and `last` are the cursors around what was read; `older` the
    cursor to page back from, null once the start is reached. A filtered page back reads your stream by slices until
    it holds 50 events or has read 1,000, so it may hold fewer than `limit` and still have `older`."""
    state = member_state(svc, campaign_id, user)
    page = log_pages.read_log(svc.table, campaign_id, user.user_id, filter, after=after, before=before, limit=limit)
    return {
        "events": [seen_json(state, s) for s in page.seen],
        "first": page.first,
        "last": page.last,
        "older": page.older,
    }
