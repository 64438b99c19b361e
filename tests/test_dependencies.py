"""Every runtime dependency is bounded below a next major release it was not tested with, and what is installed to
run these tests lies within the bounds (so the bounds describe what was tested)."""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def runtime() -> list[Requirement]:
    return [Requirement(r) for r in tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]]


def test_every_runtime_dependency_has_a_floor_and_a_ceiling() -> None:
    for requirement in runtime():
        operators = {spec.operator for spec in requirement.specifier}
        assert ">=" in operators and "<" in operators, f"{requirement.name} needs a >= and a < bound"


def test_the_versions_tested_here_lie_within_the_bounds() -> None:
    for requirement in runtime():
        installed = version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), f"{requirement.name} {installed}"
