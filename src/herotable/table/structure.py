"""Campaign commands: creating it, members, and the structure of R-T-1 with each game's boundary effects."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from herotable.table.commands import (
    NAME_LENGTH,
    Command,
    Ctx,
    Decision,
    Range,
    Text,
    handles,
    require_gm,
    require_member,
)
from herotable.table.core import (
    AdventureEnded,
    AdventureStarted,
    CampaignCreated,
    MemberJoined,
    MemberLeft,
    RoleChanged,
    SceneEnded,
    SceneMarkedDramatic,
    SceneStarted,
    SessionEnded,
    SessionStarted,
)
from herotable.table.facts import Emitted
from herotable.table.fold import apply_facts
from herotable.table.game import Boundary, game_for, game_of
from herotable.table.state import Forbidden, Role, Ruleset, TableError, TableState

AWARD = Range(0, 100)  # Hero Points a hero an adventure (R-T-5)


@dataclass(frozen=True)
class CreateCampaign(Command):
    """A new campaign: its name, its game with the game's options, and its GM, the first member (R-T-1)."""

    type = "campaign.create"
    campaign_id: Annotated[str, Text(NAME_LENGTH, required=True)]
    title: Annotated[str, Text(NAME_LENGTH, required=True)]
    ruleset: Ruleset
    gm: str
    gm_name: Annotated[str, Text(NAME_LENGTH)]
    options: dict[str, Any] = field(default_factory=dict)


@handles(CreateCampaign)
def _create(state: TableState, cmd: CreateCampaign, ctx: Ctx) -> Decision:
    if state.members:
        raise TableError("campaign/exists", "this campaign already exists", fix="create a new campaign instead")
    try:
        options = game_for(cmd.ruleset).default_options() | dict(cmd.options)
        game_for(cmd.ruleset).new_state(options)
    except (ValueError, TypeError) as err:
        raise TableError("campaign/options", f"the campaign options are not valid: {err}", fix="correct them") from None
    created = CampaignCreated(cmd.campaign_id, cmd.title.strip(), cmd.ruleset.value, cmd.gm, cmd.gm_name, options)
    return Decision([Emitted(created)])


@dataclass(frozen=True)
class Join(Command):
    """The acting user joins (the server checks the invitation) as a player or spectator."""

    type = "member.join"
    display_name: Annotated[str, Text(NAME_LENGTH)]
    role: Role = Role.PLAYER


@handles(Join)
def _join(state: TableState, cmd: Join, ctx: Ctx) -> Decision:
    if state.member(ctx.user) is not None:
        raise TableError("member/already", "you are already a member", fix="nothing to do")
    if cmd.role is Role.GM:
        raise Forbidden("member/gm_seat", "a campaign has one GM", fix="join as a player or spectator")
    return Decision([Emitted(MemberJoined(ctx.user, cmd.display_name.strip() or ctx.user, cmd.role.value))])


@dataclass(frozen=True)
class SetRole(Command):
    """The GM makes a member other than the GM a player or a spectator."""

    type = "member.set_role"
    user: str
    role: Role


@handles(SetRole)
def _set_role(state: TableState, cmd: SetRole, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if state.member(cmd.user) is None or cmd.role is Role.GM or state.is_gm(cmd.user):
        raise TableError(
            "member/bad_role", "only a non-GM member's role can change, and not to GM", fix="pick a member"
        )
    if state.role_of(cmd.user) is cmd.role:
        raise TableError("member/same_role", f"{cmd.user} is already a {cmd.role.value}", fix="pick another role")
    return Decision([Emitted(RoleChanged(cmd.user, cmd.role.value))])


@dataclass(frozen=True)
class RemoveMember(Command):
    """The GM removes a member, or a member leaves (user = themself). Their characters pass to the GM."""

    type = "member.remove"
    user: str


@handles(RemoveMember)
def _remove(state: TableState, cmd: RemoveMember, ctx: Ctx) -> Decision:
    require_member(state, ctx.user)
    if cmd.user != ctx.user:
        require_gm(state, ctx.user)
    if state.member(cmd.user) is None:
        raise TableError("member/unknown", f"{cmd.user} is not a member", fix="pick a member")
    if state.is_gm(cmd.user):
        raise TableError("member/gm_leaves", "the GM cannot leave their own campaign", fix="keep the GM seat")
    return Decision([Emitted(MemberLeft(cmd.user, state.gm))])


# --- the structure of R-T-1 ---


@dataclass(frozen=True)
class StartAdventure(Command):
    """The GM begins an adventure (R-T-1); each game's adventure effects begin with it."""

    type = "structure.start_adventure"


@dataclass(frozen=True)
class EndAdventure(Command):
    """End of adventure: Hero Points awarded (R-LTL-16); burned Karma and Heroism, Last Chance and Try Again
    tokens reset for the next one (R-LTL-10, R-LTL-11). The open scene and game session end with it."""

    type = "structure.end_adventure"
    awards: dict[str, Annotated[int, AWARD]] = field(default_factory=dict)


@dataclass(frozen=True)
class StartSession(Command):
    """The GM begins a game session within the adventure (R-T-1)."""

    type = "structure.start_session"


@dataclass(frozen=True)
class EndSession(Command):
    """The GM ends the game session, and the scene running in it (R-T-1)."""

    type = "structure.end_session"


@dataclass(frozen=True)
class StartScene(Command):
    """The GM begins a scene within the game session, dramatic or not (R-T-1, R-CV-13)."""

    type = "structure.start_scene"
    dramatic: bool = False


@dataclass(frozen=True)
class BeginPlay(Command):
    """The first step of play in one: an adventure, a game session and a scene begin together (R-T-1), each with its
    game's effects, as the three commands one after another would. Only with none of them running."""

    type = "structure.begin"


@dataclass(frozen=True)
class MarkDramatic(Command):
    """The GM marks the running scene dramatic, or not: after a dramatic scene Conviction's characters below their
    maximum may regain a point (R-CV-13)."""

    type = "structure.mark_dramatic"
    dramatic: bool = True


@dataclass(frozen=True)
class EndScene(Command):
    """End of scene: each game's scene effects end (R-LTL-6, R-LTL-17, R-CV-13)."""

    type = "structure.end_scene"


def _busy(state: TableState) -> None:
    why = game_of(state).busy(state)
    if why:
        raise TableError("structure/busy", why, fix="settle or announce open rolls and end the conflict first")


def boundary(
    state: TableState, facts: list[Emitted], b: Boundary, detail: Mapping[str, Any] | None = None
) -> tuple[TableState, Any]:
    """Add a boundary's game facts to `facts`, after the core facts so far; the state after them all and the game
    state the rules expect."""
    now = apply_facts(state, facts)
    decided = game_of(state).on_boundary(now, b, detail or {})
    facts.extend(decided.facts)
    return apply_facts(now, decided.facts), decided.expected


@handles(StartAdventure)
def _start_adventure(state: TableState, cmd: StartAdventure, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_adventure:
        raise TableError("structure/adventure_open", "an adventure is already running", fix="end it first")
    facts = [Emitted(AdventureStarted(s.adventure + 1))]
    _, expected = boundary(state, facts, Boundary.ADVENTURE_START)
    return Decision(facts, expected)


@handles(EndAdventure)
def _end_adventure(state: TableState, cmd: EndAdventure, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    _busy(state)
    s = state.structure
    if not s.in_adventure:
        raise TableError("structure/no_adventure", "no adventure is running", fix="start one first")
    for cid in cmd.awards:
        state.character(cid)
    facts: list[Emitted] = []
    if s.in_scene:
        facts.append(Emitted(SceneEnded(s.scene, s.dramatic)))
        boundary(state, facts, Boundary.SCENE_END, {"dramatic": s.dramatic})
    if s.in_session:
        facts.append(Emitted(SessionEnded(s.session)))
        boundary(state, facts, Boundary.SESSION_END)
    facts.append(Emitted(AdventureEnded(s.adventure)))
    _, expected = boundary(state, facts, Boundary.ADVENTURE_END, {"awards": dict(cmd.awards)})
    return Decision(facts, expected)


@handles(StartSession)
def _start_session(state: TableState, cmd: StartSession, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_session:
        raise TableError("structure/session_open", "a game session is already running", fix="end it first")
    facts = [Emitted(SessionStarted(s.session + 1))]
    _, expected = boundary(state, facts, Boundary.SESSION_START)
    return Decision(facts, expected)


@handles(EndSession)
def _end_session(state: TableState, cmd: EndSession, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    s = state.structure
    if not s.in_session:
        raise TableError("structure/no_session", "no game session is running", fix="start one first")
    facts = [Emitted(SessionEnded(s.session))]
    _, expected = boundary(state, facts, Boundary.SESSION_END)
    return Decision(facts, expected)


@handles(StartScene)
def _start_scene(state: TableState, cmd: StartScene, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_scene:
        raise TableError("structure/scene_open", "a scene is already running", fix="end it first")
    facts = [Emitted(SceneStarted(s.scene + 1, cmd.dramatic))]
    _, expected = boundary(state, facts, Boundary.SCENE_START)
    return Decision(facts, expected)


@handles(BeginPlay)
def _begin(state: TableState, cmd: BeginPlay, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_adventure or s.in_session or s.in_scene:
        raise TableError(
            "structure/begun",
            "play has begun: an adventure, a game session or a scene is running",
            fix="start what is missing on its own from the Structure menu",
        )
    facts: list[Emitted] = [Emitted(AdventureStarted(s.adventure + 1))]
    now, _ = boundary(state, facts, Boundary.ADVENTURE_START)
    facts.append(Emitted(SessionStarted(now.structure.session + 1)))
    now, _ = boundary(state, facts, Boundary.SESSION_START)
    facts.append(Emitted(SceneStarted(now.structure.scene + 1, False)))
    _, expected = boundary(state, facts, Boundary.SCENE_START)
    return Decision(facts, expected)


@handles(MarkDramatic)
def _mark_dramatic(state: TableState, cmd: MarkDramatic, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    if not state.structure.in_scene:
        raise TableError("structure/no_scene", "no scene is running", fix="start a scene first")
    if state.structure.dramatic is cmd.dramatic:
        word = "dramatic" if cmd.dramatic else "not dramatic"
        raise TableError("structure/same", f"the scene is already {word}", fix="nothing to change")
    return Decision([Emitted(SceneMarkedDramatic(cmd.dramatic))])


@handles(EndScene)
def _end_scene(state: TableState, cmd: EndScene, ctx: Ctx) -> Decision:
    require_gm(state, ctx.user)
    _busy(state)
    s = state.structure
    if not s.in_scene:
        raise TableError("structure/no_scene", "no scene is running", fix="start one first")
    facts = [Emitted(SceneEnded(s.scene, s.dramatic))]
    _, expected = boundary(state, facts, Boundary.SCENE_END, {"dramatic": s.dramatic})
    return Decision(facts, expected)
