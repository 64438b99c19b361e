"""herotable export / import / replay / audit, through the CLI, on SQLite files (R-T-1)."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from herotable.cli import app
from herotable.dice import SeededRng
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.store import open_store
from herotable.store.chain import hash_of
from herotable.store.export import digest
from herotable.store.port import StoredEvent
from herotable.table.ltl.commands import (
    Attack,
    CreateLtlCharacter,
    EndConflict,
    EndRound,
    Settle,
    StartConflict,
    TryAgain,
)
from herotable.table.state import Ruleset
from herotable.table.structure import EndAdventure, EndScene, Join, StartAdventure, StartScene
from herotable.table.undo import Undo

from .helpers import accept_others

runner = CliRunner()


def played_campaign(url: str) -> TableService:
    service = TableService(open_store(url), rng=SeededRng(11))
    service.create_campaign("gm", "Gwen", "Harbour Nights", Ruleset.LTL, campaign_id="hn")
    service.execute("hn", "pat", Join("Pat"))
    service.execute("hn", "pat", CreateLtlCharacter("comet", CAPTAIN_COMET))
    service.execute("hn", "gm", CreateLtlCharacter("entropy", DOCTOR_ENTROPY, npc=True, hidden=True))
    service.execute("hn", "gm", StartAdventure())
    service.execute("hn", "gm", StartScene())
    service.execute("hn", "gm", StartConflict((("comet", "h"), ("entropy", "v"))))
    for _ in range(3):
        service.execute("hn", "pat", Attack("comet", "entropy", style="Fisticuffs"))
        accept_others(service, "hn", "pat")
        service.execute("hn", "pat", Settle())
        service.execute("hn", "gm", EndRound())
    service.execute("hn", "pat", TryAgain("comet"))
    service.execute("hn", "gm", Undo())
    service.execute("hn", "gm", EndConflict())
    service.execute("hn", "gm", EndScene())
    service.execute("hn", "gm", EndAdventure({"comet": 10}))
    return service


def exported(tmp_path: Any) -> dict[str, Any]:
    source = f"sqlite:///{tmp_path / 'a.db'}"
    played_campaign(source)
    document: dict[str, Any] = json.loads(runner.invoke(app, ["export", "hn", "--database", source]).output)
    return document


def rechained(document: dict[str, Any]) -> None:
    """Recompute every hash and the digest, as someone who edits a log on purpose would."""
    prev = ""
    for e in document["events"]:
        e["prev_hash"] = prev
        e["hash"] = prev = hash_of(prev, StoredEvent(**{**e, "stream_pos": 0}))
    document["sha256"] = digest(document["campaign"], document["events"], document.get("images"))


def test_export_import_into_an_empty_database_gives_the_same_state(tmp_path):
    source = f"sqlite:///{tmp_path / 'a.db'}"
    target = f"sqlite:///{tmp_path / 'b.db'}"
    service = played_campaign(source)
    out = tmp_path / "hn.json"
    result = runner.invoke(app, ["export", "hn", "--out", str(out), "--database", source])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["import", str(out), "--database", target])
    assert result.exit_code == 0, result.output
    restored = TableService(open_store(target)).state("hn")
    assert restored == service.state("hn")
    assert restored.game.hero("comet").sheet.hero_points == 10
    replayed = runner.invoke(app, ["replay", str(out), "--json", "--database", target])
    assert replayed.exit_code == 0, replayed.output
    doc = json.loads(replayed.output)
    assert doc["replayed"] and doc["chain"] == "intact" and doc["matches_database"] is True
    assert doc["events"] == restored.seq


def test_tampered_or_truncated_exports_are_refused_and_import_nothing(tmp_path):
    target = f"sqlite:///{tmp_path / 'b.db'}"
    document = exported(tmp_path)
    truncated = {**document, "events": document["events"][:-1]}
    edited = json.loads(json.dumps(document))
    rolled = next(e for e in edited["events"] if e["type"] == "dice.rolled")
    rolled["data"]["faces"][0] = 1 if rolled["data"]["faces"][0] != 1 else 2
    fresh_digest = json.loads(json.dumps(edited))
    fresh_digest["sha256"] = digest(fresh_digest["campaign"], fresh_digest["events"], fresh_digest.get("images"))
    cases = {
        "truncated": (truncated, "event_count"),
        "edited": (edited, "was changed after it was recorded"),
        "fresh digest": (fresh_digest, "was changed after it was recorded"),
    }
    for name, (doc, reason) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        result = runner.invoke(app, ["import", str(path), "--database", target])
        assert result.exit_code == 1, name
        assert reason in result.output and "Nothing was imported" in result.output, result.output
    assert open_store(target).campaigns() == []
    (tmp_path / "junk.json").write_text("{not json")
    result = runner.invoke(app, ["import", str(tmp_path / "junk.json"), "--database", target])
    assert result.exit_code == 1 and "line 1" in result.output


def test_a_version_1_export_is_refused_with_its_version(tmp_path):
    document = exported(tmp_path)
    document["format_version"] = 1
    path = tmp_path / "old.json"
    path.write_text(json.dumps(document))
    for verb in ("import", "replay"):
        result = runner.invoke(app, [verb, str(path), "--database", f"sqlite:///{tmp_path / 'c.db'}"])
        assert result.exit_code in (1, 2) and "format version 1" in result.output, result.output


def test_audit_decides_every_command_again_and_agrees_with_an_honest_log(tmp_path):
    path = tmp_path / "hn.json"
    path.write_text(json.dumps(exported(tmp_path)))
    result = runner.invoke(app, ["audit", str(path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["commands"] == report["agreed"] > 20 and report["disagreed"] == [] and report["older_rules"] == []


def test_a_forged_roll_with_a_fresh_chain_folds_but_the_audit_reports_it(tmp_path):
    # the chain and digest hold against damage and careless edits; a deliberate forger can recompute them, but
    # the command's recorded dice no longer decide the facts the log claims
    document = exported(tmp_path)
    rolled = next(e for e in document["events"] if e["type"] == "dice.rolled" and e["data"]["roller"] == "comet")
    rolled["data"]["faces"] = [12] if rolled["data"]["faces"] != [12] else [1]
    rechained(document)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    assert runner.invoke(app, ["replay", str(path)]).exit_code == 0
    result = runner.invoke(app, ["audit", str(path)])
    assert result.exit_code == 1, result.output
    assert (
        f"event {rolled['seq'] - 3}: ltl.attack DISAGREES" in result.output or "ltl.attack DISAGREES" in result.output
    )


def test_commands_from_older_rules_are_listed_not_judged(tmp_path):
    document = exported(tmp_path)
    first_attack = next(
        e for e in document["events"] if (e["command"] or {}).get("body", {}).get("type") == "ltl.attack"
    )
    for e in document["events"]:
        if e["command_id"] == first_attack["command_id"]:
            e["rules_version"] = 0
    rechained(document)
    path = tmp_path / "older.json"
    path.write_text(json.dumps(document))
    report = json.loads(runner.invoke(app, ["audit", str(path), "--json"]).output)
    assert report["older_rules"] == [{"seq": first_attack["seq"], "command": "ltl.attack", "rules_version": 0}]
    assert report["disagreed"] == []
