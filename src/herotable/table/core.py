"""The table's own facts (campaign, members, characters, structure, requests, free dice, undo) and how each one
evolves the common core of the state. A game's facts evolve its own state (`Game.evolve`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from herotable.table.codec import evolved
from herotable.table.facts import Fact, fact
from herotable.table.state import CharacterRef, Member, Role, Ruleset, Structure, TableState, unread_by

CoreEvolve = Callable[[TableState, Any], TableState]
CORE_EVOLVE: dict[str, CoreEvolve] = {}
K = TypeVar("K", bound=type[Fact])


def evolves(cls: type[Fact]) -> Callable[[CoreEvolve], CoreEvolve]:
    """Register how a core fact kind changes the state."""

    def register(fn: CoreEvolve) -> CoreEvolve:
        CORE_EVOLVE[cls.type] = fn
        return fn

    return register


# --- campaign and members ---


@fact
@dataclass(frozen=True)
class CampaignCreated(Fact):
    type = "campaign.created"
    campaign_id: str
    name: str
    ruleset: str
    gm: str
    gm_name: str
    options: dict[str, Any]


@fact
@dataclass(frozen=True)
class MemberJoined(Fact):
    type = "member.joined"
    user: str
    name: str
    role: str


@fact
@dataclass(frozen=True)
class RoleChanged(Fact):
    type = "member.role_changed"
    user: str
    role: str


@fact
@dataclass(frozen=True)
class MemberLeft(Fact):
    """A member left or was removed; their characters pass to `heir` (the GM)."""

    type = "member.left"
    user: str
    heir: str


@fact
@dataclass(frozen=True)
class CharacterJoined(Fact):
    """A character came to the table. Its sheet is a game fact of its own (GM-only when hidden)."""

    type = "character.joined"
    character: str
    owner: str
    name: str
    npc: bool = False
    hidden: bool = False


@evolves(CampaignCreated)
def _created(state: TableState, f: CampaignCreated) -> TableState:
    from herotable.table.game import game_for

    ruleset = Ruleset(f.ruleset)
    return TableState(
        campaign_id=f.campaign_id,
        name=f.name,
        ruleset=ruleset,
        game=game_for(ruleset).new_state(f.options),
        members=(Member(f.gm, f.gm_name, Role.GM),),
    )


@evolves(MemberJoined)
def _joined(state: TableState, f: MemberJoined) -> TableState:
    return evolved(state, members=(*state.members, Member(f.user, f.name, Role(f.role))), done=(), befores=())


@evolves(RoleChanged)
def _role(state: TableState, f: RoleChanged) -> TableState:
    members = tuple(evolved(m, role=Role(f.role)) if m.user == f.user else m for m in state.members)
    return evolved(state, members=members, done=(), befores=())


@evolves(MemberLeft)
def _left(state: TableState, f: MemberLeft) -> TableState:
    chars = tuple(evolved(c, owner=f.heir) if c.owner == f.user else c for c in state.characters)
    members = tuple(m for m in state.members if m.user != f.user)
    journal = unread_by(state.journal, f.user)
    return evolved(state, members=members, characters=chars, journal=journal, done=(), befores=())


@evolves(CharacterJoined)
def _character(state: TableState, f: CharacterJoined) -> TableState:
    ref = CharacterRef(f.character, f.owner, f.name, f.npc, f.hidden)
    return evolved(state, characters=(*state.characters, ref))


# --- the structure of R-T-1 ---


@fact
@dataclass(frozen=True)
class AdventureStarted(Fact):
    type = "structure.adventure_started"
    number: int


@fact
@dataclass(frozen=True)
class AdventureEnded(Fact):
    type = "structure.adventure_ended"
    number: int


@fact
@dataclass(frozen=True)
class SessionStarted(Fact):
    type = "structure.session_started"
    number: int


@fact
@dataclass(frozen=True)
class SessionEnded(Fact):
    type = "structure.session_ended"
    number: int


@fact
@dataclass(frozen=True)
class SceneStarted(Fact):
    type = "structure.scene_started"
    number: int
    dramatic: bool = False


@fact
@dataclass(frozen=True)
class SceneMarkedDramatic(Fact):
    type = "scene.marked_dramatic"
    dramatic: bool


@fact
@dataclass(frozen=True)
class SceneEnded(Fact):
    type = "structure.scene_ended"
    number: int
    dramatic: bool = False


def _structure(state: TableState, **changes: Any) -> TableState:
    return evolved(state, structure=evolved(state.structure, **changes))


@evolves(AdventureStarted)
def _adventure_started(state: TableState, f: AdventureStarted) -> TableState:
    return _structure(state, adventure=f.number, in_adventure=True)


@evolves(AdventureEnded)
def _adventure_ended(state: TableState, f: AdventureEnded) -> TableState:
    s: Structure = state.structure
    return evolved(state, structure=evolved(s, in_adventure=False, in_session=False, in_scene=False, dramatic=False))


@evolves(SessionStarted)
def _session_started(state: TableState, f: SessionStarted) -> TableState:
    return _structure(state, session=f.number, in_session=True)


@evolves(SessionEnded)
def _session_ended(state: TableState, f: SessionEnded) -> TableState:
    return _structure(state, in_session=False)


@evolves(SceneStarted)
def _scene_started(state: TableState, f: SceneStarted) -> TableState:
    return _structure(state, scene=f.number, in_scene=True, dramatic=f.dramatic)


@evolves(SceneMarkedDramatic)
def _dramatic(state: TableState, f: SceneMarkedDramatic) -> TableState:
    return _structure(state, dramatic=f.dramatic)


@evolves(SceneEnded)
def _scene_ended(state: TableState, f: SceneEnded) -> TableState:
    return _structure(state, in_scene=False, dramatic=False)
