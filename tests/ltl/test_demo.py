"""`herotable demo`: a real conflict run by the engine, every die narrated."""

from __future__ import annotations

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
