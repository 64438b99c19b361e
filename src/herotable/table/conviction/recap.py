"""A Conviction game session in words, for its recap (`Game.recap`): fights, checks announced, who was taken out or
hurt, Conviction spent and gained, levels reached, exits and Quotable Wit. It reads only the facts its reader may see
(`history.Session`), so a GM secret check or a hidden sheet's numbers never reach a player's recap."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from herotable.conviction.conditions import Lethal, NonLethal
from herotable.table.conviction import facts as cf
from herotable.table.core import SceneEnded, SceneStarted
from herotable.table.history import Session
from herotable.table.recap_parts import GameRecap, counted, listed, only_gm, sections, uses


@dataclass
class _Fight:
    scene: int
    rounds: int = 0
    who: list[str] = field(default_factory=list)


@dataclass
class _Points:
    points: int = 0
    on: Counter[str] = field(default_factory=Counter)
    told: set[str] = field(default_factory=set)  # the visibilities of the facts that told it


def recap(session: Session, names: Mapping[str, str]) -> GameRecap:
    """The session's Conviction facts as a recap's sections (R-CV-2, R-CV-3, R-CV-4, R-CV-8, R-CV-11, R-CV-12,
    R-CV-14)."""

    def n(cid: str | None) -> str:
        return "someone" if cid is None else names.get(cid, cid)

    fights: list[str] = []
    checks: list[str] = []
    spent: dict[str, _Points] = {}
    gained: dict[str, _Points] = {}
    levels: list[str] = []
    exits: list[str] = []
    wits: list[str] = []
    worst: dict[str, tuple[Lethal, NonLethal]] = {}
    hurt_told: dict[str, set[str]] = {}
    scene = 0
    fight: _Fight | None = None

    def fight_over() -> None:
        nonlocal fight
        if fight is not None and fight.rounds:
            where = f"In scene {fight.scene}, a" if fight.scene else "A"
            fights.append(f"{where} fight of {counted(fight.rounds, 'round')}: {listed(fight.who)}")
        fight = None

    for s in session.facts:
        f = s.fact
        gm = only_gm([s.visibility])
        if isinstance(f, SceneStarted):
            fight_over()
            scene = f.number
        elif isinstance(f, SceneEnded) or (isinstance(f, cf.InitiativeOrder) and f.how == "ended"):
            fight_over()
        elif isinstance(f, cf.RoundStarted):
            fight = fight or _Fight(scene)
            fight.rounds += 1
            fight.who += [n(c) for c in f.characters if n(c) not in fight.who]
        elif isinstance(f, cf.CheckAnnounced):
            verdict = "success" if f.succeeded else "failure"
            ruled = ", the GM's ruling" if f.overridden else ""
            outcome = f"{verdict} ({f.total} against {f.difficulty}{ruled})"
            checks.append(f"{n(f.character)}'s {f.label or f.kind}: {outcome}{gm}")
        elif isinstance(f, cf.ConvictionSpent | cf.ConvictionGained):
            by = spent if isinstance(f, cf.ConvictionSpent) else gained
            points = by.setdefault(f.character, _Points())
            points.points += f.points
            points.on[f.use if isinstance(f, cf.ConvictionSpent) else f.reason] += 1
            points.told.add(s.visibility)
        elif isinstance(f, cf.LevelRaised):
            levels.append(f"{n(f.character)} reached level {f.level}{gm}")
        elif isinstance(f, cf.ConditionsChanged) and ("lethal" in f.changes or "nonlethal" in f.changes):
            lethal, nonlethal = worst.get(f.character, (Lethal.NONE, NonLethal.NONE))
            worst[f.character] = (
                max(lethal, Lethal(f.changes.get("lethal", 0))),
                max(nonlethal, NonLethal(f.changes.get("nonlethal", 0))),
            )
            hurt_told.setdefault(f.character, set()).add(s.visibility)
        elif isinstance(f, cf.ExitResolved):
            verdict = "left the scene" if f.exits else "was held in the scene"
            exits.append(f"{n(f.character)} {verdict} ({f.exit_points} points against {f.interfering_points}){gm}")
        elif isinstance(f, cf.WitDesignated):
            wits.append(f"“{f.text}” ({f.speaker}), heard by {listed(f.heard_by)}")
        elif isinstance(f, cf.WitUsed):
            wits.append(f"{f.by} used Quotable Wit #{f.wit}" + (", turning it on its speaker" * f.hijacked))
    fight_over()

    hurt = []
    for cid, (lethal, nonlethal) in worst.items():
        said = [c.name.lower() for c in (lethal, nonlethal) if c]
        if not said:
            continue
        out = lethal >= Lethal.DISABLED or nonlethal is NonLethal.UNCONSCIOUS
        hurt.append(f"{n(cid)} was {'taken out' if out else 'hurt'}: at worst {listed(said)}{only_gm(hurt_told[cid])}")

    def tally(by: dict[str, _Points], verb: str) -> list[str]:
        return [f"{n(cid)} {verb} {p.points} Conviction ({uses(p.on)}){only_gm(p.told)}" for cid, p in by.items()]

    return sections(
        ("Fights", fights),
        ("Checks", checks),
        ("Defeats and injuries", hurt),
        ("Conviction", tally(spent, "spent") + tally(gained, "gained")),
        ("Levels", levels),
        ("Leaving the scene", exits),
        ("Quotable Wit", wits),
    )
