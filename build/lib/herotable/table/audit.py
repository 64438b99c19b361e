"""Audit: decide every recorded command again, under the rules of today, from its recorded dice, and compare the
facts with the ones in the log. A report, never a refusal: folding a log never needs the rules, so a campaign whose
commands the current rules would decide differently still loads.

Commands recorded under another rules version are listed as such, not judged: a rules correction is expected to
decide some things differently from the version before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from herotable.dice import ScriptedRng, ScriptError
from herotable.errors import RulesError
from herotable.table.commands import command_from_json
from herotable.table.decide import decide
from herotable.table.facts import payload_of
from herotable.table.fold import apply, recorded_facts
from herotable.table.game import game_for
from herotable.table.state import Ruleset, TableState


@dataclass(frozen=True)
class Finding:
    """One command that did not decide again as recorded."""

    seq: int  # its first event
    command_id: str
    command: str
    problem: str


@dataclass
class AuditReport:
    commands: int = 0
    agreed: int = 0
    findings: list[Finding] = field(default_factory=list)
    older: list[tuple[int, str, int]] = field(default_factory=list)  # (seq, command, rules version)

    @property
    def clean(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "commands": self.commands,
            "agreed": self.agreed,
            "disagreed": [vars(f) for f in self.findings],
            "older_rules": [{"seq": s, "command": c, "rules_version": v} for s, c, v in self.older],
        }


def _groups(events: Sequence[Any]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for e in events:
        if out and out[-1][0].command_id == e.command_id:
            out[-1].append(e)
        else:
            out.append([e])
    return out


def _said(visibility: str, owner: str | None, f: Any) -> tuple[Any, ...]:
    return (f.type, f.version, payload_of(f), visibility, owner)


def audit(events: Sequence[Any]) -> AuditReport:
    """Decide each command of a whole log (stored events with their command records) again and compare."""
    report = AuditReport()
    state = TableState("", "", Ruleset.LTL)
    for group in _groups(events):
        first = group[0]
        facts = recorded_facts(group)
        record = first.command or {}
        body = record.get("body")
        report.commands += 1
        name = str(body.get("type", "?")) if isinstance(body, dict) else "?"
        ruleset = state.ruleset
        if not state.members and isinstance(body, dict):
            ruleset = Ruleset(str(body.get("ruleset", "ltl")))
        current = game_for(ruleset).rules_version
        if not isinstance(body, dict):
            report.findings.append(Finding(first.seq, first.command_id, name, "the log does not say which command"))
        elif first.rules_version != current:
            report.older.append((first.seq, name, first.rules_version))
        else:
            problem = _redecide(state, first, body, record.get("dice", []), group)
            if problem is None:
                report.agreed += 1
            else:
                report.findings.append(Finding(first.seq, first.command_id, name, problem))
        for rec in facts:
            state = apply(state, rec)
    return report


def _redecide(state: TableState, first: Any, body: dict[str, Any], dice: list[Any], group: list[Any]) -> str | None:
    if not state.members:
        state = TableState(first.command_id, "", Ruleset(str(body.get("ruleset", "ltl"))))
    script = ScriptedRng([(int(s), int(f)) for s, f in dice])
    try:
        decided = decide(state, command_from_json(body, stored=True), first.actor or "", script, first.command_id)
        script.finish()
    except RulesError as err:
        return f"the rules now refuse it: {err.reason} ({err.ruling})"
    except ScriptError as err:
        return f"the rules now roll other dice: {err}"
    now = [_said(e.visibility.value, e.owner, e.fact) for e in decided.facts]
    then = [_said(e.visibility, e.owner, r.fact) for e, r in zip(group, recorded_facts(group), strict=True)]
    if now == then:
        return None
    for i, (a, b) in enumerate(zip(then, now, strict=False)):
        if a != b:
            return f"fact {i + 1} was {a[0]} {a[2]} ({a[3]}), the rules now decide {b[0]} {b[2]} ({b[3]})"
    return f"{len(then)} facts were recorded, the rules now decide {len(now)}"
