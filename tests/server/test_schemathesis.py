"""Generated requests against every API operation and every form: no answer is a server error, and every answer
matches the schema its operation documents, a problem (RFC 9457) included.

The API is called on both demo campaigns as the demo's GM and as one of its players, each logged in (a cookie and a
CSRF token), and with two personal API tokens (`Authorization: Bearer …`, nothing else): the GM's of scope gm, and a
player's of scope play bound to one campaign, so that a token's reach and its refusals are generated too. The web
pages' forms are no part of the API's schema (`/openapi.json`): they are fuzzed through a schema of their own, made
from the app's page routes, as the GM and the player.

The schemas are read when the test runs, not when the suite is collected: building every operation's cases takes
seconds, and each parallel worker collects the whole suite. One test runs every API operation and one every form,
each operation as a subtest named by its method and path.

Bounded for CI: a few examples per operation, each sent by everyone (`EXAMPLES`); a longer hunt runs with
`HEROTABLE_SCHEMATHESIS_EXAMPLES=500 .venv/bin/pytest tests/server/test_schemathesis.py`."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.python import asgi
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from herotable.dice import SeededRng
from herotable.server import problems
from herotable.server.app import PAGES, create_app
from herotable.server.games.demo import DEMO_PASSWORD, seed_demo
from herotable.server.settings import Settings
from herotable.server.tokens import make_token
from herotable.store.memory import MemoryEventStore
from isolation import CHEAP_HASHES

from .clients import SteadyClock

EXAMPLES = int(os.environ.get("HEROTABLE_SCHEMATHESIS_EXAMPLES", "5"))
CAMPAIGNS = ("demo-ltl", "demo-cv")
CHECKS = [not_a_server_error, response_schema_conformance]
# the API documents every answer it gives, a problem included: its status and its content type too
API_CHECKS = [*CHECKS, status_code_conformance, content_type_conformance]


# Operations that may end the session they are sent in (logins, registrations, logouts, password changes). After
# one, a person whose session ended logs in again. Any other operation answering 401 fails the test: a session ended
# unseen would leave every later request meeting only the login check.
MAY_END_THE_SESSION = re.compile(r"^/api/v1/auth/|^/(login|register|logout)$|^/account/")


class Person:
    """A demo member logged in: the cookies and CSRF token the generated requests are sent with."""

    campaigns = CAMPAIGNS

    def __init__(self, app: FastAPI, clock: SteadyClock, username: str) -> None:
        self.client = TestClient(app)
        self.clock = clock
        self.username = username
        self.log_in()

    def log_in(self) -> None:
        # past the waits the generated failed logins earned
        self.clock.advance(Settings.model_fields["login_window_s"].default)
        self.client.cookies.clear()
        csrf = self.client.get("/api/v1/csrf").json()["csrf_token"]
        answer = self.client.post(
            "/api/v1/auth/login",
            json={"username": self.username, "password": DEMO_PASSWORD},
            headers={"X-CSRF-Token": csrf},
        )
        assert answer.status_code == 200, answer.text
        self.cookies = dict(self.client.cookies)
        self.csrf = answer.json()["csrf_token"]

    def logged_in(self) -> bool:
        return self.client.get("/api/v1/me").status_code == 200

    def call(self, case: Any, caller: Any) -> Any:
        return case.call(session=caller, headers={"X-CSRF-Token": self.csrf}, cookies=self.cookies)


class Bot:
    """A demo member's personal API token, sent to one campaign (as a bot follows one): the generated requests carry
    it and nothing else. No request may end it (a token cannot change its account), so none may answer 401."""

    def __init__(self, app: FastAPI, username: str, scope: str, campaign: str, *, bound: bool) -> None:
        services = app.state.services
        user = services.accounts.user_by_name(username)
        self.text, _ = make_token(services.accounts, user, f"fuzz {scope}", scope, campaign if bound else None, None)
        self.username = f"{username}'s {scope} token"
        self.campaigns = (campaign,)

    def call(self, case: Any, caller: Any) -> Any:
        return case.call(session=caller, headers={"Authorization": f"Bearer {self.text}"})


class Demo:
    """The demo (both campaigns, its GM and players) on a store in memory; the GM and one player logged in, and
    their tokens."""

    def __init__(self) -> None:
        clock = SteadyClock()
        self.app = create_app(
            Settings(secret_key="schemathesis-secret-0123456789", token_commands_per_minute=10_000, **CHEAP_HASHES),
            store=MemoryEventStore(),
            rng=SeededRng("api"),
            clock=clock,
            ticks=clock,
        )
        seed_demo(self.app.state.services)
        # generated webhooks are made, listed, tested and removed, but their deliveries are never sent: the generated
        # addresses are anyone's (the client below runs the app's lifespan, which would start the delivery thread)
        self.app.state.courier.start = lambda: None
        self.people = [Person(self.app, clock, "gwen"), Person(self.app, clock, "ana")]
        self.bots = [
            Bot(self.app, "gwen", "gm", "demo-ltl", bound=False),
            Bot(self.app, "ana", "play", "demo-cv", bound=True),
        ]


@pytest.fixture(scope="module")
def demo() -> Demo:
    return Demo()


@pytest.fixture(scope="module")
def caller(demo: Demo) -> Iterator[Any]:
    """One in-process client for every generated request, not one per request, and blind to the environment's
    proxy settings (read twice a request otherwise): a third of the run was spent on both."""
    with asgi.get_client(demo.app) as client:
        client.trust_env = False
        yield client


def _named(request: pytest.FixtureRequest) -> None:
    # schemathesis names each operation's subtest through the node's `_nodeid`, which pytest 9.2 no longer has
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


@pytest.fixture
def api_schema(demo: Demo, request: pytest.FixtureRequest) -> Any:
    _named(request)
    return schemathesis.openapi.from_asgi("/openapi.json", demo.app)


@pytest.fixture
def form_schema(demo: Demo, request: pytest.FixtureRequest) -> Any:
    """The forms' own schema, as FastAPI describes their routes (with the problems they answer), served to no one."""
    _named(request)
    routes = [route for router in PAGES for route in router.routes]
    made = problems.documented(get_openapi(title="herotable's pages", version="0", routes=routes))
    loaded = schemathesis.openapi.from_dict(made)
    loaded.app = demo.app
    return loaded


def _send(case: Any, caller: Any, senders: list[Person | Bot], checks: list[Any]) -> None:
    """Send the case as each of `senders`, on a real campaign where it names one (each person on both, each token on
    its own), and check every answer."""
    in_a_campaign = "campaign_id" in (case.path_parameters or {})
    may_end_the_session = MAY_END_THE_SESSION.search(case.path)
    for sender in senders:
        for campaign in sender.campaigns if in_a_campaign else (None,):
            if campaign is not None:
                case.path_parameters["campaign_id"] = campaign  # a real campaign: requests reach the table's rules
            response = sender.call(case, caller)
            caller.cookies.clear()  # what an answer set is not sent with the next request
            case.validate_response(response, checks=checks)
            if not may_end_the_session or isinstance(sender, Bot):
                assert response.status_code != 401, f"{sender.username} was logged out before {case.method} {case.path}"
        # a web page answers a logged-out visitor without a 401: ask whether the session is still there
        maybe_ended = isinstance(sender, Person) and (may_end_the_session or not case.path.startswith("/api/"))
        if maybe_ended and not sender.logged_in():
            assert may_end_the_session, f"{case.method} {case.path} ended {sender.username}'s session"
            sender.log_in()


api = schemathesis.pytest.from_fixture("api_schema")
forms = schemathesis.pytest.from_fixture("form_schema")
BOUNDED = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@api.parametrize()
@BOUNDED
def test_no_generated_api_request_makes_a_server_error_or_an_undocumented_answer(
    case: Any, demo: Demo, caller: Any
) -> None:
    _send(case, caller, [*demo.people, *demo.bots], API_CHECKS)


@forms.parametrize()
@BOUNDED
def test_no_generated_form_makes_a_server_error(case: Any, demo: Demo, caller: Any) -> None:
    _send(case, caller, list(demo.people), CHECKS)
