"""The demo campaigns: distinct, playable characters in each game (different powers, stories, ratings, roles and
feats), so a GM and two players trying herotable meet three people, not one sheet three times."""

from __future__ import annotations

import itertools

import pytest

from herotable.dice import SeededRng
from herotable.server.app import create_app
from herotable.server.games.demo import seed_demo
from herotable.server.settings import Settings
from herotable.store.memory import MemoryEventStore
from isolation import CHEAP_HASHES


@pytest.fixture(scope="module")
def demo():
    app = create_app(
        Settings(secret_key="demo-seed-tests-secret-0123456789", **CHEAP_HASHES),
        store=MemoryEventStore(),
        rng=SeededRng(1),
    )
    seed_demo(app.state.services)
    return app.state.services


def distinct(values):
    return all(a != b for a, b in itertools.combinations(values, 2))


def test_the_larger_than_life_heroes_differ_in_story_powers_and_ratings(demo):
    heroes = demo.table.state("demo-ltl").game.heroes
    sheets = [heroes[cid].sheet for cid in ("comet", "nova", "entropy")]
    assert distinct([s.origin for s in sheets]) and distinct([s.motivation for s in sheets])
    assert distinct([s.costume for s in sheets]) and distinct([s.writer for s in sheets[:2]])
    assert distinct([tuple(p.name for p in s.superpowers) for s in sheets])
    assert distinct([(s.base, s.styles, s.karma, s.heroism) for s in sheets])
    assert distinct([tuple(s.specialties) for s in sheets])
    assert any(p.healing for p in heroes["nova"].sheet.superpowers)  # R-LTL-15: one hero can heal


def test_the_conviction_characters_differ_in_roles_abilities_skills_and_feats(demo):
    heroes = demo.table.state("demo-cv").game.heroes
    sheets = [heroes[cid].sheet for cid in ("kes", "moss", "rex")]
    assert distinct([tuple(s.roles) for s in sheets])
    assert distinct([s.abilities for s in sheets])
    assert distinct([tuple(s.skills) for s in sheets]) and distinct([s.nature for s in sheets])
    assert all(s.feats for s in sheets) and distinct([tuple(s.feats) for s in sheets])


@pytest.mark.parametrize(
    ("campaign", "mine"), [("demo-ltl", {"ana": "comet", "ben": "nova"}), ("demo-cv", {"ana": "kes", "ben": "moss"})]
)
def test_each_player_can_play_their_own_character_at_once(demo, campaign, mine):
    state = demo.table.state(campaign)
    for username, cid in mine.items():
        user = demo.accounts.user_by_name(username)
        assert state.character(cid).owner == user.user_id
        offered = demo.table.legal_actions(campaign, user.user_id)
        assert any(cid in a.fixed.values() and not a.type.startswith("character.") for a in offered), username
