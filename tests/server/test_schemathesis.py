"""Generated requests against every API operation, as the demo's GM and as one of its players, on both demo
campaigns: no answer is a server error, and every documented answer matches its schema.

Bounded for CI: a few examples per operation and person (`EXAMPLES`); a longer hunt runs with
`HEROTABLE_SCHEMATHESIS_EXAMPLES=500 .venv/bin/pytest tests/server/test_schemathesis.py`."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from herotable.dice import SeededRng
from herotable.server.app import create_app
from herotable.server.demo_seed import DEMO_PASSWORD, seed_demo
from herotable.server.settings import Settings
from herotable.store.memory import MemoryEventStore
from isolation import CHEAP_HASHES

EXAMPLES = int(os.environ.get("HEROTABLE_SCHEMATHESIS_EXAMPLES", "5"))


@dataclass(frozen=True)
class Person:
    cookies: dict[str, str]
    csrf: str


def _demo() -> tuple[FastAPI, list[Person]]:
    """The demo (both campaigns, its GM and players) on a store in memory, and the GM and one player logged in."""
    app = create_app(
        Settings(secret_key="schemathesis-secret-0123456789", **CHEAP_HASHES),
        store=MemoryEventStore(),
        rng=SeededRng("api"),
    )
    seed_demo(app.state.services)
    people = []
    for username in ("gwen", "ana"):
        client = TestClient(app)
        csrf = client.get("/api/v1/csrf").json()["csrf_token"]
        answer = client.post(
            "/api/v1/auth/login",
            json={"username": username, "password": DEMO_PASSWORD},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status_code == 200, answer.text
        people.append(Person(dict(client.cookies), answer.json()["csrf_token"]))
    return app, people


APP, PEOPLE = _demo()  # the schema is read when the tests are collected
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_generated_request_makes_a_server_error(case: Any) -> None:
    if case.path.endswith("/auth/logout"):
        return  # would end the session the other examples use
    for person in PEOPLE:
        for campaign in ("demo-ltl", "demo-cv"):
            if case.path_parameters and "campaign_id" in case.path_parameters:
                case.path_parameters["campaign_id"] = campaign  # a real campaign: requests reach the table's rules
            response = case.call(headers={"X-CSRF-Token": person.csrf}, cookies=person.cookies)
            case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])
