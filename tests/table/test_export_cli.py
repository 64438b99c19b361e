"""herotable export / import / replay, through the CLI, on SQLite files (R-T-1)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from herotable.cli import app
from herotable.dice import SeededRng
from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.service import TableService
from herotable.store import open_store
from herotable.table.campaign import CreateLtlCharacter, EndAdventure, EndScene, Join, StartAdventure, StartScene
from herotable.table.ltl_play import Attack, EndConflict, EndRound, Settle, StartConflict, TryAgain
from herotable.table.model import Ruleset
from herotable.table.undo import Undo

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
        service.execute("hn", "pat", Settle())
        service.execute("hn", "gm", EndRound())
    service.execute("hn", "pat", TryAgain("comet"))
    service.execute("hn", "gm", Undo())
    service.execute("hn", "gm", EndConflict())
    service.execute("hn", "gm", EndScene())
    service.execute("hn", "gm", EndAdventure({"comet": 10}))
    return service


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
    assert restored.character("comet").hero.sheet.hero_points == 10
    replayed = runner.invoke(app, ["replay", str(out), "--json", "--database", target])
    assert replayed.exit_code == 0, replayed.output
    doc = json.loads(replayed.output)
    assert doc["replayed"] and doc["matches_database"] is True and doc["events"] == restored.seq


def test_tampered_or_truncated_exports_are_refused_and_import_nothing(tmp_path):
    source = f"sqlite:///{tmp_path / 'a.db'}"
    target = f"sqlite:///{tmp_path / 'b.db'}"
    played_campaign(source)
    document = json.loads(runner.invoke(app, ["export", "hn", "--database", source]).output)
    truncated = {**document, "events": document["events"][:-1]}
    edited = json.loads(json.dumps(document))
    rolled = next(e for e in edited["events"] if e["data"]["faces"])
    rolled["data"]["faces"][0][1] = 1 if rolled["data"]["faces"][0][1] != 1 else 2
    cases = {"truncated": (truncated, "event_count"), "edited": (edited, "digest")}
    for name, (doc, reason) in cases.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        result = runner.invoke(app, ["import", str(path), "--database", target])
        assert result.exit_code == 2, name
        assert reason in result.output and "Nothing was imported" in result.output, result.output
    assert open_store(target).campaigns() == []
    (tmp_path / "junk.json").write_text("{not json")
    result = runner.invoke(app, ["import", str(tmp_path / "junk.json"), "--database", target])
    assert result.exit_code == 2 and "line 1" in result.output


def test_a_forged_roll_with_a_fresh_digest_fails_replay(tmp_path):
    # replay never trusts a log whose faces were changed, even when its digest was recomputed
    from herotable.store.export import digest

    source = f"sqlite:///{tmp_path / 'a.db'}"
    played_campaign(source)
    document = json.loads(runner.invoke(app, ["export", "hn", "--database", source]).output)
    attack = next(e for e in document["events"] if e["type"] == "ltl.attack")
    attack["data"]["faces"] = [[12, 12], [12, 1]]
    document["sha256"] = digest(document["campaign"], document["events"])
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(document))
    result = runner.invoke(app, ["replay", str(path)])
    assert result.exit_code == 1 and "replays to a different result" in result.output
