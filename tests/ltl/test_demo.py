"""`herotable demo`: a real conflict run by the engine, every die narrated."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from herotable.cli import app
from herotable.demo import run_demo
from herotable.dice import RecordingRng, SeededRng


def test_every_die_rolled_is_narrated_and_the_conflict_ends():
    for seed in range(8):
        rec = RecordingRng(SeededRng(seed))
        narration = run_demo(rec)
        assert narration.shown == rec.rolled and rec.rolled
        c = narration.conflict
        assert c is not None and c.over
        loser = next(f for f in c.fighters if f.side != c.winner)
        assert loser.hero.defeat in ("captured", "unconscious")
        assert narration.rounds[-1][0] == "Outcome"


def test_the_demo_uses_karma_and_heroism_somewhere_across_fights():
    text = "\n".join(line for seed in range(10) for _, lines in run_demo(SeededRng(seed)).rounds for line in lines)
    phrases = ("Try Again", "burns a level of Karma", "Pushes with Heroism", "Goes For Broke", "Automatic Success")
    for phrase in (*phrases, "will lose"):
        assert phrase in text, phrase


def test_same_seed_same_fight_other_seed_other_fight():
    assert run_demo(SeededRng(4)).rounds == run_demo(SeededRng(4)).rounds
    assert run_demo(SeededRng(4)).rounds != run_demo(SeededRng(5)).rounds


def test_demo_command_prints_the_fight():
    result = CliRunner().invoke(app, ["demo", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "Round 1" in result.output and "Outcome" in result.output
    assert "wins after" in result.output or "stalemate" in result.output


ROLL = re.compile(
    r"(?P<who>Captain Comet|Doctor Entropy) rolls d(?P<die>\d+) \[(?P<story>[^\]]*)\] \(d(?P<rolled>\d+)→"
)
SHEET = {"Captain Comet": "Fisticuffs d12", "Doctor Entropy": "Decay d12"}


def test_each_roll_names_the_sheet_die_and_every_change_in_force():
    # R-LTL-4: sheet die → losses and Going For Broke (levels) → Push → a critical's +1 / -1 (die types), R-LTL-8
    text = "\n".join(line for _, lines in run_demo(SeededRng(69)).rounds for line in lines)
    assert (
        "Captain Comet rolls d8 [Fisticuffs d12 on the sheet; 2 levels lost → d8; Pushed → d10; "
        "-1 die type from last round's critical → d8] (d8→4)"
    ) in text
    checked = 0
    for seed in range(12):
        rec = RecordingRng(SeededRng(seed))
        for _, lines in run_demo(rec).rounds:
            for line in lines:
                for m in ROLL.finditer(line):
                    # the die named is the die the engine rolled (every die shown is one rolled, in order)
                    assert m["die"] == m["rolled"], line
                    steps = m["story"].split("; ")
                    assert steps[0] == f"{SHEET[m['who']]} on the sheet", line
                    last = re.findall(r"d(\d+)", steps[-1])[-1]
                    assert last == m["die"], line
                    checked += 1
    assert checked > 50
