"""A game session's recap, built for one reader from the facts they may see as they stand after undos
(`history.Session`): the shared part (the session's number, its adventure, when, its scenes, who took part, the GM's
own paragraph) and the game's part in words (`Game.recap`). Also the recap as Markdown and as plain JSON.

Pure: the caller reads the facts (`herotable.service.recaps` reads only the session's own stretch of the log).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from herotable.table.core import SceneEnded, SceneMarkedDramatic, SceneStarted, SessionStarted
from herotable.table.game import game_of
from herotable.table.history import Seen, Session
from herotable.table.journal import EntryShown
from herotable.table.recap_notes import RecapWritten
from herotable.table.recap_parts import RecapSection, listed
from herotable.table.state import Role, TableState

_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(\+00:00|Z)")
# the fields by which a fact names the characters it is about (a value that is no character's id is passed by)
CHARACTER_FIELDS = ("character", "actor", "target", "roller", "healer", "patient", "characters")


@dataclass(frozen=True)
class SceneRecap:
    """A scene of the session: its number, whether it was dramatic, whether it ended within the session."""

    number: int
    dramatic: bool
    ended: bool


@dataclass(frozen=True)
class Note:
    """The GM's own paragraph, as last written, and when."""

    text: str
    at: str


@dataclass(frozen=True)
class Recap:
    """One game session as one reader may know it. `running`: the session has not ended."""

    campaign_id: str
    campaign: str
    game: str
    session: int
    adventure: int
    started_at: str | None
    ended_at: str | None
    running: bool
    scenes: tuple[SceneRecap, ...]
    gm: str
    players: tuple[str, ...]
    characters: tuple[str, ...]
    sections: tuple[RecapSection, ...]
    note: Note | None

    @property
    def title(self) -> str:
        return session_title(self.session)

    @property
    def when(self) -> str:
        """When it was played, in words: "2026-12-04 19:02 UTC to 22:40 UTC"."""
        start, end = when(self.started_at), when(self.ended_at)
        if not start:
            return ""
        if self.running:
            return f"{start}, still going"
        if not end:
            return start
        same_day = end[:10] == start[:10]
        return f"{start} to {end[11:] if same_day else end}"


def session_title(number: int) -> str:
    """A session's name as a recap heads it: "Game session 2"; session 0 is "Before the first game session"."""
    return "Before the first game session" if number == 0 else f"Game session {number}"


def when(at: str | None) -> str:
    """A stored time (ISO 8601 in UTC, as the table records it) as a reader reads it, to the minute:
    "2026-12-04 19:02 UTC"; any other text as it is."""
    if not at or not _UTC.fullmatch(at):
        return at or ""
    return f"{at[:10]} {at[11:16]} UTC"


def note_of(session: Session, notes: Iterable[Seen]) -> Note | None:
    """The GM's paragraph for the session: the newest written after the session began (one written for a session
    whose start was later undone does not pass to the session that took its number); None when there is none or the
    newest took it out."""
    begun = next((s.seq for s in session.facts if isinstance(s.fact, SessionStarted)), 0)
    found = None
    for s in notes:
        if isinstance(s.fact, RecapWritten) and s.fact.session == session.number and s.seq > begun:
            found = s
    if found is None or not found.fact.text:
        return None
    return Note(found.fact.text, found.at)


def _scenes(session: Session) -> tuple[SceneRecap, ...]:
    scenes: dict[int, SceneRecap] = {}
    current = 0
    for s in session.facts:
        f = s.fact
        if isinstance(f, SceneStarted):
            current = f.number
            scenes[f.number] = SceneRecap(f.number, f.dramatic, False)
        elif isinstance(f, SceneMarkedDramatic) and current:
            scenes[current] = SceneRecap(current, f.dramatic, False)
        elif isinstance(f, SceneEnded):
            scenes[f.number] = SceneRecap(f.number, f.dramatic, True)
    return tuple(scenes[k] for k in sorted(scenes))


def _characters(state: TableState, session: Session, names: Mapping[str, str]) -> tuple[str, ...]:
    """The characters the session's facts are about, in the order they first appear."""
    ids = {c.id for c in state.characters} | {s.ref.id for s in state.retired} | {g for g, _ in state.gone}
    found: dict[str, None] = {}
    for s in session.facts:
        for name in CHARACTER_FIELDS:
            value = getattr(s.fact, name, None)
            for cid in value if isinstance(value, tuple) else (value,):
                if isinstance(cid, str) and cid in ids:
                    found.setdefault(cid)
    return tuple(names.get(cid, cid) for cid in found)


def _handouts(session: Session) -> tuple[RecapSection, ...]:
    """The journal entries shown in the session, as its reader saw them shown (to them, or to everyone)."""
    titles = dict.fromkeys(f"“{s.fact.title}” was shown" for s in session.facts if isinstance(s.fact, EntryShown))
    return (RecapSection("Handouts", tuple(titles)),) if titles else ()


def build(state: TableState, session: Session, notes: Iterable[Seen] = ()) -> Recap:
    """The recap of `session` (its facts as one reader may see them) with the GM's newest paragraph among `notes`."""
    names = state.names()
    game = game_of(state)
    # who took part as they did then: the GM who started the session (only the GM does), and every other member who
    # acted in it, whatever their role or membership now (a spectator only talks)
    gm_then = next((s.actor for s in session.facts if isinstance(s.fact, SessionStarted) and s.actor), state.gm)
    acted = dict.fromkeys(s.actor for s in session.facts if s.actor and s.actor != gm_then)
    players = tuple(names.get(u, "a former member") for u in acted if state.role_of(u) is not Role.SPECTATOR)
    s = state.structure
    running = session.number > 0 and session.ended_at is None and s.in_session and s.session == session.number
    return Recap(
        campaign_id=state.campaign_id,
        campaign=state.name,
        game=game.title,
        session=session.number,
        adventure=session.adventure,
        started_at=session.started_at or (session.facts[0].at if session.facts else None),
        ended_at=session.ended_at,
        running=running,
        scenes=_scenes(session),
        gm=names.get(gm_then, "a former member"),
        players=players,
        characters=_characters(state, session, names),
        sections=(*game.recap(session, names).sections, *_handouts(session)),
        note=note_of(session, notes),
    )


# --- the recap as Markdown ---

# what Markdown would read as markup: escaped with a backslash, so a name or a paragraph reads as typed (and raw HTML
# in it stays text)
_MARKUP = re.compile(r"([\\`*_\[\]<>&~|])")
_LEADING = re.compile(r"^(\s*)(\d+)([.)])|^(\s*)([-+=#])", re.M)  # a list, a heading or a rule at a line's start


def md(text: str) -> str:
    """Text as Markdown shows it, markup escaped; line breaks kept."""
    escaped = _MARKUP.sub(r"\\\1", text)
    return _LEADING.sub(lambda m: f"{m[1]}{m[2]}\\{m[3]}" if m[2] else f"{m[4]}\\{m[5]}", escaped)


def head_line(recap: Recap) -> str:
    """The line under the title: game, adventure, when."""
    parts = [recap.game]
    if recap.adventure and recap.session:
        parts.append(f"adventure {recap.adventure}")
    if recap.when:
        parts.append(recap.when)
    return " · ".join(parts)


def scene_words(scene: SceneRecap) -> str:
    return f"Scene {scene.number}" + (", dramatic" if scene.dramatic else "") + ("" if scene.ended else ", still going")


def who_words(recap: Recap) -> list[str]:
    """Who took part, a sentence each: the GM, the players, the characters."""
    out = [f"GM: {recap.gm}."] if recap.gm else []
    if recap.players:
        out.append(f"Players: {listed(recap.players)}.")
    if recap.characters:
        out.append(f"Characters: {listed(recap.characters)}.")
    return out


def markdown(recap: Recap) -> str:
    """The recap as a Markdown document."""
    out = [f"# {md(recap.campaign)}: {recap.title}", "", md(head_line(recap)), ""]
    if recap.note is not None:
        out += ["## The GM's words", "", *(md(p) for p in recap.note.text.split("\n")), ""]
    out += ["## Scenes", ""]
    out += [f"- {scene_words(s)}" for s in recap.scenes] or ["No scene was played."]
    out += ["", "## Who took part", "", *(md(w) for w in who_words(recap)), ""]
    for section in recap.sections:
        out += [f"## {md(section.title)}", "", *(f"- {md(line)}" for line in section.lines), ""]
    if not recap.sections:
        out += ["Nothing else of note happened that you may see.", ""]
    return "\n".join(out)


def recap_json(recap: Recap) -> dict[str, Any]:
    """The recap as plain JSON (the API's answer)."""
    return {
        "campaign_id": recap.campaign_id,
        "campaign": recap.campaign,
        "game": recap.game,
        "session": recap.session,
        "title": recap.title,
        "adventure": recap.adventure,
        "started_at": recap.started_at,
        "ended_at": recap.ended_at,
        "running": recap.running,
        "scenes": [{"number": s.number, "dramatic": s.dramatic, "ended": s.ended} for s in recap.scenes],
        "gm": recap.gm,
        "players": list(recap.players),
        "characters": list(recap.characters),
        "sections": [{"title": s.title, "lines": list(s.lines)} for s in recap.sections],
        "note": None if recap.note is None else {"text": recap.note.text, "at": recap.note.at},
    }
