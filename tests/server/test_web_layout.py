"""The web layer's shape (issue 27's first step): one small router per resource under /api/v1, and pages that share
the routers' models and helpers but never call their route handlers."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from types import ModuleType

from herotable.server import api
from herotable.server.api import (
    accounts,
    campaigns,
    charts,
    commands,
    export,
    journal,
    members,
    odds,
    recaps,
    tokens,
    travel,
    webhooks,
)

WEB = (
    "pages",
    "manage",
    "chat",
    "portrait_routes",
    "live",
    "games/demo",
    "app",
    "chart_pages",
    "travel_pages",
    "journal_pages",
    "recap_pages",
    "webhook_pages",
)
SERVER = Path(api.__file__).resolve().parents[1]


def handlers() -> set[object]:
    return {route.endpoint for part in api.PARTS for route in part.router.routes}  # type: ignore[attr-defined]


def api_names_used(source: str) -> set[object]:
    """The objects of `herotable.server.api.*` a module's source reaches: names imported from an API module, and
    attributes read off an API module it imports."""
    tree = ast.parse(source)
    found: set[object] = set()
    aliases: dict[str, ModuleType] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("herotable.server.api"):
            for a in node.names:
                target = importlib.import_module(node.module)
                value = getattr(target, a.name)
                if isinstance(value, ModuleType):
                    aliases[a.asname or a.name] = value
                else:
                    found.add(value)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            found.add(getattr(aliases[node.value.id], node.attr))
    return found


def test_pages_never_call_an_api_route_handler():
    routes = handlers()
    called = {
        f"{name}: {getattr(obj, '__name__', obj)}"
        for name in WEB
        for obj in api_names_used((SERVER / f"{name}.py").read_text())
        if obj in routes
    }
    assert called == set()


def test_the_check_sees_a_route_handler_called_from_a_page():
    source = "from herotable.server.api import campaigns\nx = campaigns.create_campaign\n"
    assert campaigns.create_campaign in api_names_used(source) & handlers()
    assert campaigns.my_campaigns not in handlers()


def test_each_resource_has_its_own_small_router_and_the_commands_come_first(make_table):
    assert set(api.PARTS) == {
        commands,
        accounts,
        campaigns,
        members,
        export,
        odds,
        tokens,
        webhooks,
        charts,
        recaps,
        travel,
        journal,
    }
    assert all(len(p.router.routes) <= 8 for p in api.PARTS)
    # routes are tried in order: the command route, which serves the most requests, is the app's first API route
    schema = make_table("ltl").gm.client.get("/openapi.json").json()
    paths = [p for p in schema["paths"] if p.startswith("/api/v1/")]
    assert paths[0] == "/api/v1/campaigns/{campaign_id}/commands"
    operations = sum(len(methods) for p, methods in schema["paths"].items() if p.startswith("/api/v1/"))
    assert operations == sum(len(p.router.routes) for p in api.PARTS)


GAMES = ("herotable.ltl", "herotable.conviction", "herotable.table.ltl", "herotable.table.conviction")


TYPE_STRING = re.compile(r"""["'](?:ltl|cv)\.[a-z_]+(?:\.[a-z_]+)?["']""")


def test_outside_each_games_presenter_the_web_layer_names_no_game():
    # a third game adds its presenter under server/games/ and touches nothing else in server/ (docs/web.md)
    offending = []
    for path in sorted(SERVER.rglob("*.py")):
        if "games" in path.relative_to(SERVER).parts:
            continue
        source = path.read_text()
        tree = ast.parse(source)
        modules = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
        }
        offending += [f"{path.name} imports {m}" for m in modules if m.startswith(GAMES)]
        offending += [f"{path.name} spells {t}" for t in TYPE_STRING.findall(source)]
        offending += [f"{path.name} names {c}" for c in ("Ruleset.LTL", "Ruleset.CONVICTION") if c in source]
    assert offending == []


def test_only_the_templates_a_presenter_names_speak_of_its_game():
    from herotable.server import games  # noqa: F401  (registers the presenters)
    from herotable.server.presenter import PRESENTERS
    from herotable.table.game import game_for

    own = {name for p in PRESENTERS.values() for name in (p.sheets.template, p.sheets.view_template, p.panels) if name}
    titles = [game_for(r).title for r in PRESENTERS]
    spoken = []
    for path in sorted((SERVER / "templates").rglob("*.html")):
        name = path.relative_to(SERVER / "templates").as_posix()
        if name in own:
            continue
        text = path.read_text()
        spoken += [f"{name}: {t}" for t in titles if t in text]
        spoken += [f"{name}: {t}" for t in TYPE_STRING.findall(text)]
        spoken += [f"{name}: {r}" for r in PRESENTERS if f"'{r}'" in text or f'"{r}"' in text]
    assert spoken == []


def test_the_board_the_sheet_editor_and_the_action_layout_name_no_game():
    # each game's part of them is its presenter (`herotable.server.games`): these modules read it through
    # `presenter_for`, and import no game's module, not even inside a function
    for name in ("board", "sheets", "actions", "presenter"):
        source = (SERVER / f"{name}.py").read_text()
        modules = {n.module or "" for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)} | {
            a.name for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Import) for a in n.names
        }
        assert not [m for m in modules if m.startswith(GAMES)], name
        assert "Ruleset.LTL" not in source and "Ruleset.CONVICTION" not in source, name


def test_every_game_has_a_presenter():
    from herotable.server import games  # noqa: F401  (registers the presenters)
    from herotable.server.presenter import PRESENTERS
    from herotable.table import kinds  # noqa: F401  (registers the games)
    from herotable.table.game import GAMES as RULESETS

    assert set(PRESENTERS) == set(RULESETS)
