"""docs/table.md names every command and every fact kind the table knows, each fact at its current version."""

from __future__ import annotations

import re
from pathlib import Path

from herotable.table import kinds  # noqa: F401  (registers every command and fact)
from herotable.table.commands import COMMANDS
from herotable.table.facts import FACT_TYPES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "table.md").read_text()
CATALOGUE = DOC[DOC.index("## The fact catalogue") :]


def test_every_command_is_in_the_table_docs():
    missing = [kind for kind in COMMANDS if f"`{kind}`" not in DOC and f"`…{kind.rpartition('.')[2]}`" not in DOC]
    assert missing == []


def test_every_fact_kind_is_in_the_catalogue_at_its_version():
    rows = {}
    for line in CATALOGUE.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) >= 2 and cells[1].isdigit():
            for name in re.findall(r"`([^`]+)`", cells[0]):
                rows[name] = int(cells[1])
    for kind, cls in FACT_TYPES.items():
        shown = rows.get(kind)
        if shown is None:  # a row like `structure.adventure_started`, `…_ended`
            for name, version in rows.items():
                if (
                    name.startswith("…")
                    and kind.endswith(name[1:])
                    and any(other.rpartition("_")[0] == kind.rpartition("_")[0] for other in rows)
                ):
                    shown = version
        assert shown == cls.version, f"{kind} (version {cls.version}) is not in the catalogue at its version"
