"""Log text, rendered from facts when read: nothing English is stored, so any wording can change and an old log
then reads in the new words. The table renders its own facts; each game renders its own (`Game.render`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from herotable.table import campaign_settings, chat, journal, recap_notes, sheet_edits, travel
from herotable.table.core import (
    AdventureEnded,
    AdventureStarted,
    CampaignCreated,
    CharacterJoined,
    MemberJoined,
    MemberLeft,
    RoleChanged,
    SceneEnded,
    SceneMarkedDramatic,
    SceneStarted,
    SessionEnded,
    SessionStarted,
)
from herotable.table.dice_roll import DiceRolled
from herotable.table.facts import Fact
from herotable.table.game import game_for, game_of
from herotable.table.requests import RequestAnswered, RequestOpened
from herotable.table.state import Ruleset, TableState
from herotable.table.undo import ActionUndone, UndoneTold

Names = Mapping[str, str]
_CORE: dict[str, Callable[[Any, Names], str | None]] = {}


def _says(cls: type[Fact]) -> Callable[[Callable[[Any, Names], str]], Callable[[Any, Names], str]]:
    def register(fn: Callable[[Any, Names], str]) -> Callable[[Any, Names], str]:
        _CORE[cls.type] = fn
        return fn

    return register


def humanize(command_type: str) -> str:
    """A command type in words: "ltl.karma.try_again" → "karma try again"."""
    return command_type.split(".", 1)[-1].replace(".", " ").replace("_", " ")


@_says(CampaignCreated)
def _created(f: CampaignCreated, n: Names) -> str:
    return f"{f.gm_name} created {f.name!r}, a {game_for(Ruleset(f.ruleset)).title} campaign"


@_says(MemberJoined)
def _joined(f: MemberJoined, n: Names) -> str:
    return f"{f.name} joined as {'a spectator' if f.role == 'spectator' else 'a player'}"


@_says(RoleChanged)
def _role(f: RoleChanged, n: Names) -> str:
    return f"{n.get(f.user, f.user)} is now {'a spectator' if f.role == 'spectator' else 'a player'}"


@_says(MemberLeft)
def _left(f: MemberLeft, n: Names) -> str:
    return f"{n.get(f.user, 'A member')} left the campaign; their characters pass to {n.get(f.heir, 'the GM')}"


@_says(CharacterJoined)
def _character(f: CharacterJoined, n: Names) -> str:
    return f"{f.name} joins the table" + (" as an NPC" if f.npc else "") + (" (the sheet is the GM's)" * f.hidden)


@_says(AdventureStarted)
def _adventure_started(f: AdventureStarted, n: Names) -> str:
    return f"Adventure {f.number} begins"


@_says(AdventureEnded)
def _adventure_ended(f: AdventureEnded, n: Names) -> str:
    return f"Adventure {f.number} ends"


@_says(SessionStarted)
def _session_started(f: SessionStarted, n: Names) -> str:
    return f"Game session {f.number} begins"


@_says(SessionEnded)
def _session_ended(f: SessionEnded, n: Names) -> str:
    return f"Game session {f.number} ends"


@_says(SceneStarted)
def _scene_started(f: SceneStarted, n: Names) -> str:
    return f"Scene {f.number} begins" + (", a dramatic scene" if f.dramatic else "")


@_says(SceneMarkedDramatic)
def _dramatic(f: SceneMarkedDramatic, n: Names) -> str:
    return "The GM marks the scene dramatic" if f.dramatic else "The GM marks the scene as not dramatic"


@_says(SceneEnded)
def _scene_ended(f: SceneEnded, n: Names) -> str:
    return f"Scene {f.number} ends" + (" (it was dramatic)" if f.dramatic else "")


@_says(RequestOpened)
def _asked(f: RequestOpened, n: Names) -> str:
    about = f" for {n.get(f.character, f.character)}" if f.character else ""
    return f"{n.get(f.user, f.user)} asks the GM ({f.kind.replace('_', ' ')}){about}" + (
        f": {f.text}" if f.text else ""
    )


@_says(RequestAnswered)
def _answered(f: RequestAnswered, n: Names) -> str:
    verdict = "grants" if f.granted else "refuses"
    asked = f" ({f.kind.replace('_', ' ')}" + (f": {f.asked})" if f.asked else ")")
    return f"The GM {verdict} {n.get(f.user, f.user)}'s request{asked}" + (f": {f.answer}" if f.answer else "")


@_says(DiceRolled)
def _dice(f: DiceRolled, n: Names) -> str:
    return (f"{f.label}: " if f.label else "") + f"{f.text}"


@_says(UndoneTold)
@_says(ActionUndone)
def _undone(f: ActionUndone, n: Names) -> str:
    back = f"; {len(f.revealed)} revealed roll(s) are pending again, marked as seen" if f.revealed else ""
    return f"Undone: {n.get(f.actor, f.actor)}'s {humanize(f.undone_type)}" + back


CORE_TITLES = {
    CampaignCreated.type: "Campaign",
    MemberJoined.type: "Members",
    RoleChanged.type: "Members",
    MemberLeft.type: "Members",
    CharacterJoined.type: "New character",
    AdventureStarted.type: "Adventure",
    AdventureEnded.type: "Adventure",
    SessionStarted.type: "Game session",
    SessionEnded.type: "Game session",
    SceneStarted.type: "Scene",
    SceneMarkedDramatic.type: "Scene",
    SceneEnded.type: "Scene",
    RequestOpened.type: "Request to the GM",
    RequestAnswered.type: "The GM answers",
    DiceRolled.type: "Dice",
    ActionUndone.type: "Undo",
    UndoneTold.type: "Undo",
    **journal.TITLES,
    **chat.TITLES,
    **sheet_edits.TITLES,
    **campaign_settings.TITLES,
    **recap_notes.TITLES,
    **travel.TITLES,
}
_CORE.update(chat.RENDERERS)
_CORE.update(journal.RENDERERS)
_CORE.update(sheet_edits.SAYS)
_CORE.update(campaign_settings.SAYS)
_CORE.update(recap_notes.SAYS)
_CORE.update(travel.SAYS)


def render(state: TableState, f: Fact, names: Names | None = None) -> str | None:
    """One fact in words, or None when it says nothing worth a line."""
    n = names if names is not None else state.names()
    core = _CORE.get(f.type)
    if core is not None:
        return core(f, n)
    return game_of(state).render(f, n)


def title(state: TableState, f: Fact, command_type: str = "") -> str:
    """A log entry's heading: its command's, where the game names one; else its first fact's."""
    game = game_of(state)
    return (
        game.command_titles.get(command_type) or CORE_TITLES.get(f.type) or game.titles.get(f.type) or humanize(f.type)
    )


@dataclass(frozen=True)
class Seen:
    """A fact as one viewer reads it: its place in the viewer's own stream, never the global sequence."""

    position: int
    command_id: str
    actor: str | None
    at: str
    visibility: str
    fact: Fact
    command_type: str = ""


@dataclass(frozen=True)
class LogEntry:
    """One action in a viewer's log: its facts in words, with every die face."""

    position: int
    command_id: str
    who: str
    title: str
    lines: tuple[str, ...]
    dice: tuple[tuple[int, int], ...]
    private: str  # "", "owner" or "gm": who else sees it
    undone: bool
    at: str


def log_entries(state: TableState, seen: Iterable[Seen]) -> list[LogEntry]:
    """The viewer's facts, grouped by action, in the order given. A roll made in private (its roller and the GM) and
    announced to everyone later in these facts is no longer marked private: the table has seen it since."""
    names = state.names()
    out: list[LogEntry] = []
    seen = list(seen)
    announced = {
        getattr(s.fact, s.fact.reveals) for s in seen if s.fact.reveals is not None and s.visibility == "public"
    }
    for s in seen:
        line = render(state, s.fact, names)
        dice = s.fact.dice_faces()
        private = "" if s.visibility == "public" or s.command_id in announced else s.visibility
        if out and out[-1].command_id == s.command_id:
            last = out[-1]
            if s.fact.copied and line in last.lines:  # another reader's copy: the GM reads it once
                continue
            out[-1] = LogEntry(
                last.position,
                last.command_id,
                last.who,
                last.title,
                last.lines + ((line,) if line else ()),
                last.dice + dice,
                # a fact that says nothing in words (the GM's record of a show) leaves the mark as its readers saw it
                last.private if last.private == private or line is None else (last.private or private),
                last.undone,
                last.at,
            )
            continue
        out.append(
            LogEntry(
                s.position,
                s.command_id,
                names.get(s.actor or "", s.actor or ""),
                title(state, s.fact, s.command_type),
                (line,) if line else (),
                dice,
                private,
                s.command_id in state.undone,
                s.at,
            )
        )
    return out
