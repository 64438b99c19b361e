"""A third game touches nothing in `herotable.server` (docs/web.md): a toy game of one command and one fact, with its
presenter, is registered and played through the API and the web table (`toy_game.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_a_toy_game_registered_from_outside_plays_through_the_api_and_the_web_table():
    # a process of its own: the game registers before the API is imported, as a built-in game does, and the two
    # real games' registries in this process stay as they are
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    ran = subprocess.run(
        [sys.executable, "-m", "server.toy_game"], cwd=TESTS, env=env, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
    assert ran.stdout.strip() == "played"
