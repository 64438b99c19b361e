"""The die ladder (R-LTL-1) and the random sources."""

from __future__ import annotations

import pytest

from herotable.dice import Rating, RecordingRng, ScriptedRng, ScriptError, SeededRng, SystemRng, step_up


def test_positions_of_the_dice():
    # R-LTL-1: d4=1 … d12=5, d20=7
    assert [Rating.of(d).position for d in ("d4", "d6", "d8", "d10", "d12", "d20")] == [1, 2, 3, 4, 5, 7]


def test_d12_to_d20_is_two_levels_each_way():
    # R-LTL-1
    assert Rating.of("d20").lowered(2) == Rating.of("d12")
    assert Rating.of("d12").raised(2) == Rating.of("d20")


def test_d20_survives_one_loss_and_still_rolls_d20():
    # R-LTL-1: position 6 is a d20 that has lost one level
    hurt = Rating.of("d20").lowered(1)
    assert hurt.position == 6 and hurt.sides == 20
    assert hurt.lowered(1) == Rating.of("d12")
    assert hurt.raised(1) == Rating.of("d20")


def test_a_single_level_on_a_d12_is_wasted():
    # R-LTL-1
    assert Rating.of("d12").raised(1) == Rating.of("d12")
    assert Rating.of("d10").raised(2) == Rating.of("d12")
    assert Rating.of("d10").raised(3) == Rating.of("d20")


def test_nothing_goes_above_d20_or_below_below_d4():
    # R-LTL-1
    assert Rating.of("d20").raised(5) == Rating.of("d20")
    below = Rating.of("d6").lowered(9)
    assert below.position == 0 and below.sides is None and not below.usable
    assert below.name == "below d4"


def test_step_up_is_one_die_step():
    # R-LTL-11: pushing d12 reaches d20
    assert [step_up(p) for p in range(1, 8)] == [2, 3, 4, 5, 7, 7, 7]


@pytest.mark.parametrize("text", ["d7", "d100", "8", "dx", ""])
def test_off_ladder_dice_are_refused_with_the_choices(text):
    with pytest.raises(ValueError, match=r"d4|die"):
        Rating.of(text)


def test_scripted_rng_fails_on_extra_dice():
    rng = ScriptedRng([3])
    assert rng.roll(6) == 3
    with pytest.raises(ScriptError, match="only 1 faces"):
        rng.roll(6)


def test_scripted_rng_fails_on_unrolled_faces():
    with pytest.raises(ScriptError, match="1 dice but 2"), ScriptedRng([3, 4]) as rng:
        rng.roll(6)


def test_scripted_rng_fails_on_impossible_face_and_wrong_die():
    with pytest.raises(ScriptError, match="cannot show 7"):
        ScriptedRng([7]).roll(6)
    with pytest.raises(ScriptError, match="scripted as a d8"):
        ScriptedRng([(8, 3)]).roll(6)


def test_seeded_rng_is_reproducible_and_uniform():
    first = SeededRng(42)
    second = SeededRng(42)
    faces = [first.roll(6) for _ in range(6000)]
    assert faces == [second.roll(6) for _ in range(6000)]
    assert faces[:20] != [SeededRng(43).roll(6) for _ in range(20)]
    counts = [faces.count(f) for f in range(1, 7)]
    assert all(850 < c < 1150 for c in counts), counts  # every face within ~4 sigma of 1000


def test_system_and_recording_rng_give_legal_faces():
    rec = RecordingRng(SystemRng())
    faces = [rec.roll(20) for _ in range(200)]
    assert all(1 <= f <= 20 for f in faces)
    assert rec.rolled == [(20, f) for f in faces]
