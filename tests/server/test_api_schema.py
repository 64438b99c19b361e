"""The API's schema (/openapi.json) as a client's generator reads it: every operation's answer typed, every problem
it may answer declared as it is sent (`application/problem+json`, RFC 9457), and nothing in it but the API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient

from herotable.ltl.samples import CAPTAIN_COMET

from .clients import make_app, register, table

PROBLEM = {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
EVERYWHERE = {"400", "401", "403", "500", "503"}  # a NUL in the address, no login, no right, a failure, no database
SOCKET = json.loads((Path(__file__).resolve().parents[2] / "docs" / "socket-protocol.schema.json").read_text())


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return TestClient(make_app()).get("/openapi.json").json()


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def typed(spec: dict[str, Any], schema: dict[str, Any]) -> bool:
    """Whether a schema says what the body holds: an object with named members, or a list or map of such."""
    schema = resolve(spec, schema)
    if schema.get("type") == "array":
        return typed(spec, schema.get("items", {}))
    if schema.get("properties"):
        return True
    inner = schema.get("additionalProperties")
    return isinstance(inner, dict) and typed(spec, inner)


def test_typed_tells_a_described_body_from_a_bare_object(spec: dict[str, Any]) -> None:
    assert typed(spec, {"$ref": "#/components/schemas/Account"})
    assert typed(spec, {"type": "array", "items": {"$ref": "#/components/schemas/Token"}})
    assert not typed(spec, {})
    assert not typed(spec, {"type": "object", "additionalProperties": True})  # what a `dict[str, Any]` answer says
    assert not typed(spec, {"type": "array", "items": {"type": "object"}})


def test_every_api_operation_answers_a_typed_body(spec: dict[str, Any]) -> None:
    for path, method, operation in operations(spec):
        successes = [said for status, said in operation["responses"].items() if status.startswith("2")]
        assert len(successes) == 1, f"{method} {path}"
        content = successes[0]["content"]
        if path.endswith(".svg"):
            assert content == {"image/svg+xml": {"schema": {"type": "string"}}}
            continue
        assert list(content) == ["application/json"], f"{method} {path}"
        assert typed(spec, content["application/json"]["schema"]), f"{method} {path} answers an untyped body"


def test_every_api_operation_declares_its_problems_as_they_are_sent(spec: dict[str, Any]) -> None:
    for path, method, operation in operations(spec):
        problems = {status: said for status, said in operation["responses"].items() if status[0] in "45"}
        where = f"{method} {path}"
        assert set(problems) >= EVERYWHERE, where
        if operation.get("parameters") or "requestBody" in operation:
            assert "422" in problems, where
        if "requestBody" in operation:
            assert "413" in problems, where
        if "{campaign_id}" in path:
            assert {"404", "410"} <= set(problems), where
        for status, said in problems.items():
            assert said["content"] == PROBLEM, f"{where}: {status}"
            assert said["description"], f"{where}: {status}"
    commands = spec["paths"]["/api/v1/campaigns/{campaign_id}/commands"]["post"]["responses"]
    assert {"409", "429"} <= set(commands)  # the rules refuse; a token sent too many


def test_the_problem_is_rfc_9457s_with_the_tables_own_members(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    problem = schemas["Problem"]
    assert problem["required"] == ["type", "title", "status", "detail", "code"]
    assert {"fix", "ruling", "field", "problems", "errors"} <= set(problem["properties"])
    assert problem.get("additionalProperties") is not False  # RFC 9457: members may be added; clients ignore them
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas  # never sent


def test_no_page_or_form_is_in_the_schema(spec: dict[str, Any]) -> None:
    assert all(path.startswith("/api/v1/") for path in spec["paths"])
    assert "text/html" not in json.dumps(spec["paths"])


def test_a_command_answer_names_what_its_events_and_its_view_hold(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    answer = schemas["CommandAnswer"]["properties"]
    assert answer["events"]["items"] == {"$ref": "#/components/schemas/Event"}
    assert answer["view"]["$ref"] == "#/components/schemas/CampaignView"
    view = schemas["CampaignView"]
    assert {"members", "characters", "structure", "game"} <= set(view["required"])
    assert "ruleset" in view["properties"]["game"]["description"]  # each game's own part, said in words


def types_of(schema: dict[str, Any]) -> set[str]:
    """The JSON types a property may hold, however the schema spells them."""
    if "anyOf" in schema:
        return set().union(*(types_of(s) for s in schema["anyOf"]))
    kind = schema.get("type", "object" if "$ref" in schema or "additionalProperties" in schema else "any")
    return set(kind) if isinstance(kind, list) else {kind}


def test_the_api_and_the_live_socket_describe_a_fact_of_the_log_alike(spec: dict[str, Any]) -> None:
    api = spec["components"]["schemas"]["Event"]
    socket = SOCKET["$defs"]["event"]
    assert set(api["properties"]) == set(socket["properties"])
    assert set(api["required"]) == set(socket["required"])
    for name, said in socket["properties"].items():
        assert types_of(api["properties"][name]) == types_of(said), name


def test_problems_sent_match_the_documented_schema(spec: dict[str, Any]) -> None:
    app = make_app()
    cid, m = table(app)
    documented = {"$ref": "#/components/schemas/Problem", "components": spec["components"]}
    stranger = register(app, "stranger")
    sent = [
        m["pat"].post("/api/v1/auth/password", {"current_password": "", "new_password": "x"}),  # two errors
        m["pat"].command(cid, type="character.create_ltl", character="bad", sheet={**CAPTAIN_COMET, "base": "d7"}),
        m["gm"].command(cid, type="ltl.challenge", character="comet", difficulty="Impossible"),
        stranger.get(f"/api/v1/campaigns/{cid}"),
        m["pat"].get("/api/v1/campaigns/nowhere"),
        m["pat"].client.post(f"/api/v1/campaigns/{cid}/commands", json={"type": "chat.say", "text": "x"}),
    ]
    assert [r.status_code for r in sent] == [422, 422, 409, 403, 404, 403]
    for answer in sent:
        assert answer.headers["content-type"] == "application/problem+json"
        jsonschema.validate(answer.json(), documented)
    assert len(sent[0].json()["errors"]) == 2 and sent[1].json()["problems"] and sent[2].json()["ruling"]


def test_a_validation_error_names_the_field_as_the_client_sent_it_and_says_how_to_mend_it() -> None:
    app = make_app()
    cid, m = table(app)
    gm = m["gm"]
    unknown = gm.command(cid, type="table.fly", expression="2d6")
    assert unknown.status_code == 422
    [error] = unknown.json()["errors"]
    assert error["field"] == "type" and error["message"] == "type: there is no command type 'table.fly'"
    untyped = gm.command(cid, expression="2d6").json()["errors"][0]
    assert untyped["field"] == "type" and "GET /api/v1/commands" in untyped["fix"]
    in_body = gm.command(cid, type="table.roll", expression="2d6", command_id="c-1").json()["errors"][0]
    assert in_body["field"] == "command_id" and "?command_id=" in in_body["fix"]
    limited = gm.get(f"/api/v1/campaigns/{cid}/events?limit=-1").json()
    assert limited["field"] == "limit" and limited["errors"][0]["field"] == "limit"
    as_a_form = gm.client.post(
        f"/api/v1/campaigns/{cid}/commands",
        content=b"type=table.roll&expression=2d6",
        headers={**gm.headers, "content-type": "application/x-www-form-urlencoded"},
    ).json()
    assert "not a JSON object" in as_a_form["detail"] and "Content-Type: application/json" in as_a_form["fix"]
    wrong_method = gm.client.put(f"/api/v1/campaigns/{cid}/events", headers=gm.headers)
    assert wrong_method.status_code == 405 and wrong_method.json()["code"] == "method_not_allowed"


def test_a_body_past_its_limit_is_a_problem_every_operation_declares(spec: dict[str, Any]) -> None:
    app = make_app()
    cid, m = table(app)
    refused = m["gm"].client.request("GET", f"/api/v1/campaigns/{cid}/events", content=b"x" * (70 * 1024))
    assert refused.status_code == 413 and refused.headers["content-type"] == "application/problem+json"
    assert all("413" in op["responses"] for _, _, op in operations(spec))
