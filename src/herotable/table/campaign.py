"""Campaign commands: creating it, members, characters, and the structure of R-T-1 with its boundary
effects (end of scene, end of adventure)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from herotable.conviction.options import CampaignOptions
from herotable.ltl.advancement import award_hero_points
from herotable.ltl.hero import Hero, end_adventure, end_scene
from herotable.ltl.options import LtlOptions
from herotable.ltl.sheet import sheet_from_dict
from herotable.table.commands import Command, Ctx, Outcome, handles, new_character_owner, require_gm
from herotable.table.cv_play import cv_busy, cv_end_scene, cv_new_session
from herotable.table.model import (
    Forbidden,
    LtlCharacter,
    Member,
    Role,
    Ruleset,
    Structure,
    TableError,
    TableState,
    Visibility,
)


@dataclass(frozen=True)
class CreateCampaign(Command):
    name = "campaign.create"
    campaign_id: str
    title: str
    ruleset: Ruleset
    gm: str
    gm_name: str
    ltl_options: LtlOptions = field(default_factory=LtlOptions)
    cv_options: CampaignOptions = field(default_factory=CampaignOptions)


@handles(CreateCampaign)
def _create(state: TableState, cmd: CreateCampaign, ctx: Ctx) -> Outcome:
    if state.members:
        raise TableError("campaign/exists", "this campaign already exists", fix="create a new campaign instead")
    if not cmd.title.strip():
        raise TableError("campaign/no_name", "a campaign needs a name", fix="give it a name")
    new = TableState(
        campaign_id=cmd.campaign_id,
        name=cmd.title.strip(),
        ruleset=cmd.ruleset,
        members=(Member(cmd.gm, cmd.gm_name, Role.GM),),
        ltl_options=cmd.ltl_options,
        cv_options=cmd.cv_options,
    )
    return Outcome(new, {"text": f"{cmd.gm_name} created {cmd.title!r} ({cmd.ruleset.value})"})


@dataclass(frozen=True)
class Join(Command):
    """The acting user joins (the server checks the invitation) as a player or spectator."""

    name = "member.join"
    display_name: str
    role: Role = Role.PLAYER


@handles(Join)
def _join(state: TableState, cmd: Join, ctx: Ctx) -> Outcome:
    if state.member(ctx.user) is not None:
        raise TableError("member/already", "you are already a member", fix="nothing to do")
    if cmd.role is Role.GM:
        raise Forbidden("member/gm_seat", "a campaign has one GM", fix="join as a player or spectator")
    members = (*state.members, Member(ctx.user, cmd.display_name.strip() or ctx.user, cmd.role))
    return Outcome(replace(state, members=members), {"text": f"{cmd.display_name} joined as {cmd.role.value}"})


@dataclass(frozen=True)
class SetRole(Command):
    name = "member.set_role"
    user: str
    role: Role


@handles(SetRole)
def _set_role(state: TableState, cmd: SetRole, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    if state.member(cmd.user) is None or cmd.role is Role.GM or state.is_gm(cmd.user):
        raise TableError(
            "member/bad_role", "only a non-GM member's role can change, and not to GM", fix="pick a member"
        )
    members = tuple(replace(m, role=cmd.role) if m.user == cmd.user else m for m in state.members)
    return Outcome(replace(state, members=members), {"text": f"{cmd.user} is now {cmd.role.value}"})


@dataclass(frozen=True)
class RemoveMember(Command):
    """The GM removes a member, or a member leaves (user = themself). Their characters stay with the GM."""

    name = "member.remove"
    user: str


@handles(RemoveMember)
def _remove(state: TableState, cmd: RemoveMember, ctx: Ctx) -> Outcome:
    if cmd.user != ctx.user:
        require_gm(state, ctx.user)
    if state.member(cmd.user) is None:
        raise TableError("member/unknown", f"{cmd.user} is not a member", fix="pick a member")
    if state.is_gm(cmd.user):
        raise TableError("member/gm_leaves", "the GM cannot leave their own campaign", fix="keep the GM seat")
    gm = next(m.user for m in state.members if m.role is Role.GM)
    chars = tuple(replace(c, owner=gm) if c.owner == cmd.user else c for c in state.characters)
    cv = tuple(replace(c, owner=gm) if c.owner == cmd.user else c for c in state.cv_characters)
    checks = tuple(replace(c, owner=gm) if c.owner == cmd.user else c for c in state.checks)
    members = tuple(m for m in state.members if m.user != cmd.user)
    new = replace(state, members=members, characters=chars, cv_characters=cv, checks=checks)
    return Outcome(new, {"text": f"{cmd.user} left the campaign"})


@dataclass(frozen=True)
class CreateLtlCharacter(Command):
    """A hero for its player, or (by the GM) an NPC or villain, possibly with a hidden sheet."""

    name = "character.create_ltl"
    character: str
    sheet: dict[str, Any]
    owner: str | None = None
    npc: bool = False
    hidden: bool = False


@handles(CreateLtlCharacter)
def _create_character(state: TableState, cmd: CreateLtlCharacter, ctx: Ctx) -> Outcome:
    owner = new_character_owner(
        state, ctx.user, cmd.character, cmd.owner, npc=cmd.npc, hidden=cmd.hidden, ruleset=Ruleset.LTL
    )
    hero = Hero.from_sheet(sheet_from_dict(cmd.sheet))
    chars = (*state.characters, LtlCharacter(cmd.character, owner, hero, cmd.npc, cmd.hidden))
    # a hidden sheet is GM-only: the creation event carries the whole sheet
    return Outcome(
        replace(state, characters=chars),
        {"text": f"{hero.name} joins the table", "character": cmd.character},
        Visibility.GM if cmd.hidden else Visibility.PUBLIC,
    )


# --- the structure of R-T-1 ---


@dataclass(frozen=True)
class StartAdventure(Command):
    name = "structure.start_adventure"


@dataclass(frozen=True)
class EndAdventure(Command):
    """End of adventure: Hero Points awarded (R-LTL-16); burned Karma and Heroism, Last Chance and Try Again
    tokens reset for the next one (R-LTL-10, R-LTL-11)."""

    name = "structure.end_adventure"
    awards: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StartSession(Command):
    name = "structure.start_session"


@dataclass(frozen=True)
class EndSession(Command):
    name = "structure.end_session"


@dataclass(frozen=True)
class StartScene(Command):
    name = "structure.start_scene"
    dramatic: bool = False


@dataclass(frozen=True)
class MarkDramatic(Command):
    name = "structure.mark_dramatic"
    dramatic: bool = True


@dataclass(frozen=True)
class EndScene(Command):
    """End of scene: non-damaging losses recover, Motivation's re-roll returns (R-LTL-6, R-LTL-17); Conviction
    scene effects expire and a dramatic scene offers the regain check (R-CV-13)."""

    name = "structure.end_scene"


def _busy(state: TableState) -> None:
    if state.conflict is not None or state.tasks:
        raise TableError(
            "structure/busy",
            "a conflict or a roll is still open",
            fix="settle open rolls and end the conflict first",
        )
    cv_busy(state)


def _structure(state: TableState, s: Structure, text: str) -> Outcome:
    return Outcome(replace(state, structure=s), {"text": text})


@handles(StartAdventure)
def _start_adventure(state: TableState, cmd: StartAdventure, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_adventure:
        raise TableError("structure/adventure_open", "an adventure is already running", fix="end it first")
    return _structure(state, replace(s, adventure=s.adventure + 1, in_adventure=True), f"Adventure {s.adventure + 1}")


@handles(EndAdventure)
def _end_adventure(state: TableState, cmd: EndAdventure, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    _busy(state)
    if not state.structure.in_adventure:
        raise TableError("structure/no_adventure", "no adventure is running", fix="start one first")
    for cid, points in cmd.awards.items():
        state.character(cid)
        if points < 0:
            raise TableError("structure/award", f"an award of {points} for {cid} is negative", fix="award 0 or more")
    chars = tuple(
        replace(c, hero=award_hero_points(end_adventure(end_scene(c.hero)), cmd.awards.get(c.id, 0)))
        for c in state.characters
    )
    s = replace(state.structure, in_adventure=False, in_session=False, in_scene=False, dramatic=False)
    awards = {k: v for k, v in cmd.awards.items() if v}
    summary: dict[str, Any] = {"text": "The adventure ends", "awards": awards}
    new = replace(state, characters=chars, structure=s)
    if state.ruleset is Ruleset.CONVICTION:  # closing the open scene and session closes their effects (R-T-1)
        if state.structure.in_scene:
            new, summary["regain_offered"] = cv_end_scene(new, state.structure.dramatic)
        new = cv_new_session(new) if state.structure.in_session else new
    return Outcome(new, summary)


@handles(StartSession)
def _start_session(state: TableState, cmd: StartSession, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_session:
        raise TableError("structure/session_open", "a game session is already running", fix="end it first")
    new = cv_new_session(state)  # three more Quotable Wit uses (R-CV-12)
    return _structure(new, replace(s, session=s.session + 1, in_session=True), f"Game session {s.session + 1}")


@handles(EndSession)
def _end_session(state: TableState, cmd: EndSession, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    if not state.structure.in_session:
        raise TableError("structure/no_session", "no game session is running", fix="start one first")
    return _structure(cv_new_session(state), replace(state.structure, in_session=False), "The game session ends")


@handles(StartScene)
def _start_scene(state: TableState, cmd: StartScene, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    s = state.structure
    if s.in_scene:
        raise TableError("structure/scene_open", "a scene is already running", fix="end it first")
    return _structure(
        state, replace(s, scene=s.scene + 1, in_scene=True, dramatic=cmd.dramatic), f"Scene {s.scene + 1} begins"
    )


@handles(MarkDramatic)
def _mark_dramatic(state: TableState, cmd: MarkDramatic, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    return _structure(state, replace(state.structure, dramatic=cmd.dramatic), "The GM marks the scene dramatic")


@handles(EndScene)
def _end_scene(state: TableState, cmd: EndScene, ctx: Ctx) -> Outcome:
    require_gm(state, ctx.user)
    _busy(state)
    if not state.structure.in_scene:
        raise TableError("structure/no_scene", "no scene is running", fix="start one first")
    chars = tuple(replace(c, hero=end_scene(c.hero)) for c in state.characters)
    s = replace(state.structure, in_scene=False)
    new = replace(state, characters=chars, structure=s, failed=())
    if state.ruleset is Ruleset.CONVICTION:  # scene effects end; a dramatic scene offers the regain check (R-CV-13)
        new, offered = cv_end_scene(new, state.structure.dramatic)
        return Outcome(new, {"text": "The scene ends", "dramatic": state.structure.dramatic, "regain_offered": offered})
    return Outcome(new, {"text": "The scene ends"})
