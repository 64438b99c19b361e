from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from herotable.ltl.hero import Hero
from herotable.ltl.sheet import sheet_from_dict

HeroFactory = Callable[..., Hero]


def build_hero(name: str = "Hero", base: str = "d8", karma: str = "d8", heroism: str = "d8", **more: Any) -> Hero:
    return Hero.from_sheet(sheet_from_dict({"name": name, "base": base, "karma": karma, "heroism": heroism, **more}))


@pytest.fixture
def hero_of() -> HeroFactory:
    """Build a legal hero from sheet fields: hero_of("Nova", base="d10", styles={"Flight": "d12"})."""
    return build_hero
