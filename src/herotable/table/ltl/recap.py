"""A Larger Than Life game session in words, for its recap (`Game.recap`): conflicts and who won them, rolls
settled, defeats, Karma and Heroism burned, levels lost and healed, Hero Points, Power Stunts. It reads only the
facts its reader may see (`history.Session`), so a GM secret roll or a hidden sheet's numbers never reach a player's
recap."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from herotable.table.core import SceneStarted
from herotable.table.history import Session
from herotable.table.ltl import facts as lf
from herotable.table.ltl import render
from herotable.table.ltl.contests import ContestDecided
from herotable.table.recap_parts import GameRecap, counted, listed, only_gm, sections, uses


@dataclass
class _Spent:
    """Levels of one resource a character burned, and on what."""

    levels: int = 0
    on: Counter[str] = field(default_factory=Counter)
    told: set[str] = field(default_factory=set)  # the visibilities of the facts that told it


@dataclass
class _Conflict:
    scene: int
    started: lf.ConflictStarted | None  # None: begun before this session
    wins: Counter[str] = field(default_factory=Counter)  # exchanges won, by character


def recap(session: Session, names: Mapping[str, str]) -> GameRecap:
    """The session's Larger Than Life facts as a recap's sections (R-LTL-5, R-LTL-10, R-LTL-11, R-LTL-12,
    R-LTL-16)."""

    def n(cid: str | None) -> str:
        return "the GM" if cid is None else names.get(cid, cid)

    conflicts: list[str] = []
    contests: list[str] = []
    rolls: list[str] = []
    defeats: list[str] = []
    karma: dict[str, _Spent] = {}
    heroism: dict[str, _Spent] = {}
    lost: dict[str, Counter[str]] = {}
    healed: dict[str, Counter[str]] = {}
    told: dict[tuple[str, str], set[str]] = {}  # ("lost" or "healed", character): the facts' visibilities
    points: list[str] = []
    stunts: list[str] = []
    scene = 0
    open_conflict: _Conflict | None = None

    def conflict_line(c: _Conflict, end: str) -> str:
        if c.started is None:
            head = f"The conflict begun before this session, in scene {c.scene}" if c.scene else "A conflict"
        else:
            sides: dict[str, list[str]] = {}
            for cid, side, _ in c.started.fighters:
                sides.setdefault(side, []).append(n(cid))
            teams = " against ".join(f"{listed(who)} ({side})" for side, who in sides.items())
            stakes = c.started.stakes.replace("_", "-")
            head = f"In scene {c.scene}, a conflict with {stakes} stakes: {teams}" if c.scene else teams
        won = listed(f"{n(cid)} won {counted(k, 'exchange')}" for cid, k in c.wins.most_common())
        return f"{head}; {end}" + (f". {won}" if won else "")

    for s in session.facts:
        f = s.fact
        gm = only_gm([s.visibility])
        if isinstance(f, SceneStarted):
            scene = f.number
        elif isinstance(f, lf.ConflictStarted):
            open_conflict = _Conflict(scene, f)
        elif isinstance(f, lf.TaskSettled):
            if f.in_conflict:
                open_conflict = open_conflict or _Conflict(0, None)
                if f.winner is not None and f.loser is not None:
                    open_conflict.wins[f.winner] += 1
            else:
                said = render.render(f, names)
                if said:
                    rolls.append(said + gm)
        elif isinstance(f, lf.ConflictEnded):
            c = open_conflict or _Conflict(0, None)
            conflicts.append(conflict_line(c, f"the {f.winner} side won" if f.winner else "no side won"))
            open_conflict = None
        elif isinstance(f, lf.RoundEnded) and f.defeated:
            defeats.append(f"{listed(n(c) for c in f.defeated)} out of the fight at the end of round {f.round}")
        elif isinstance(f, lf.DefeatRecorded):
            if f.consequence is None:
                defeats.append(f"{n(f.character)} is no longer defeated{gm}")
            else:
                defeats.append(f"{n(f.character)} is defeated: {f.consequence.replace('_', ' ')}{gm}")
        elif isinstance(f, lf.KarmaBurned | lf.HeroismBurned):
            spent = (karma if isinstance(f, lf.KarmaBurned) else heroism).setdefault(f.character, _Spent())
            spent.levels += f.levels
            spent.on[f.use] += 1
            spent.told.add(s.visibility)
        elif isinstance(f, lf.LevelsLost):
            lost.setdefault(f.character, Counter())[f.kind.replace("_", "-")] += f.levels
            told.setdefault(("lost", f.character), set()).add(s.visibility)
        elif isinstance(f, lf.LossesRecovered) and f.levels:
            healed.setdefault(f.character, Counter())[f.cause] += f.levels
            told.setdefault(("healed", f.character), set()).add(s.visibility)
        elif isinstance(f, lf.HeroPointsAwarded):
            points.append(f"{n(f.character)} earned {counted(f.points, 'Hero Point')} ({f.total} in all){gm}")
        elif isinstance(f, lf.HeroPointsSpent):
            improvement = f.improvement.replace("_", " ")
            points.append(
                f"{n(f.character)} spent {counted(f.cost, 'Hero Point')}: {improvement} ({f.target}), "
                f"{f.before} → {f.after}{gm}"
            )
        elif isinstance(f, ContestDecided) and f.places:
            first = listed(n(c) for c in f.places[0])
            if f.race:
                order = "; ".join(f"{i}. {listed(n(c) for c in place)}" for i, place in enumerate(f.places, 1))
                contests.append(f"A race: {order}{gm}")
            else:
                beaten = f" over {listed(n(c) for c in f.losers)}" if f.losers else ""
                contests.append(f"{first} won a quick contest{beaten}{gm}")
        elif isinstance(f, lf.StuntPulledOff):
            stunts.append(f"{n(f.character)} pulled off the Power Stunt {f.stunt}{gm}")
    if open_conflict is not None:
        conflicts.append(conflict_line(open_conflict, "still going when the session ended"))

    def burned(what: str, by: dict[str, _Spent]) -> list[str]:
        return [
            f"{n(cid)} burned {counted(s.levels, 'level')} of {what} ({uses(s.on)}){only_gm(s.told)}"
            for cid, s in by.items()
        ]

    levels = [
        f"{n(cid)} lost {counted(sum(k.values()), 'level')} ({', '.join(f'{v} {kind}' for kind, v in k.items())})"
        + only_gm(told[("lost", cid)])
        for cid, k in lost.items()
    ]
    levels += [
        f"{n(cid)} recovered {counted(sum(k.values()), 'level')} ({', '.join(c.replace('_', ' ') for c in k)})"
        + only_gm(told[("healed", cid)])
        for cid, k in healed.items()
    ]
    return sections(
        ("Conflicts", conflicts),
        ("Contests and races", contests),
        ("Rolls", rolls),
        ("Defeats", defeats),
        ("Karma and Heroism", burned("Karma", karma) + burned("Heroism", heroism)),
        ("Levels lost and healed", levels),
        ("Hero Points", points),
        ("Power Stunts", stunts),
    )
