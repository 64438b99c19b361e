"""Fixtures shared by every test directory: a PostgreSQL schema of one's own on the test server."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, settings
from sqlalchemy.engine import make_url

from isolation import CHEAP_HASH_ENV, RUN_ID

POSTGRES_ENV = "HEROTABLE_TEST_POSTGRES_URL"
HOW_TO = (
    f"PostgreSQL tests need {POSTGRES_ENV}, e.g. "
    f"{POSTGRES_ENV}=postgresql+psycopg://postgres@127.0.0.1:5432/test .venv/bin/pytest"
)

NewSchema = Callable[[], str]
for _name, _value in CHEAP_HASH_ENV.items():  # for the servers tests start as processes
    os.environ.setdefault(_name, _value)
IN_CI = os.environ.get("CI") == "true"

# Hypothesis never times an example: how fast the machine runs decides no outcome. Under CI the examples are
# derived from each test (derandomize), so a red run is the same red run again; locally they vary from run to
# run and find more. HYPOTHESIS_PROFILE=ci picks the CI profile by hand.
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("dev"), derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if IN_CI else "dev"))


def unavailable(reason: str) -> None:
    """A service a test needs is missing: skip it with the reason, except in CI (`CI=true`), where the run fails,
    so that a green CI means PostgreSQL, Redis and Chromium tests all ran."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: every service the tests use must be there)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def needs() -> Callable[[str], None]:
    """`unavailable`, for test modules: `needs("no Redis at …")` skips locally and fails in CI."""
    return unavailable


@pytest.fixture(scope="session")
def postgres_schema() -> Iterator[NewSchema]:
    """Makes fresh schemas on the test PostgreSQL server and gives their URLs. They live in a database of this test
    process's own (`ht_<run id>_<worker>`), created at first use and dropped at the end, schemas and all."""
    raw = os.environ.get(POSTGRES_ENV)
    if not raw:
        unavailable(HOW_TO)
    server = make_url(raw).set(drivername="postgresql+psycopg")
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    database = f"ht_{RUN_ID}".lower()
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"CREATE DATABASE {database}")
    except sa.exc.OperationalError as error:
        admin.dispose()
        unavailable(f"PostgreSQL at {server.render_as_string()} is not reachable ({error.orig}). {HOW_TO}")
    url = server.set(database=database)
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")

    def new_schema() -> str:
        schema = f"ht_{secrets.token_hex(6)}"
        with engine.connect() as connection:
            connection.exec_driver_sql(f"CREATE SCHEMA {schema}")
        return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)

    try:
        yield new_schema
    finally:
        engine.dispose()
        with admin.connect() as connection:  # FORCE: a pool a test left open does not keep the database alive
            connection.exec_driver_sql(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        admin.dispose()


@pytest.fixture(autouse=True, scope="session")
def _check_every_fold() -> Iterator[None]:
    """Every decision in the tests is held to the rules: the fold of its facts must land on the state the rules
    computed (see `herotable.table.fold.check_decisions`)."""
    from herotable.table import fold

    fold.check_decisions = True
    yield
    fold.check_decisions = False


# The longest tests start first, so that no worker is left running one alone at the end of a parallel run
# (`make test` prints the slowest; keep this list to the files that hold them).
LONGEST_FIRST = (
    "tests/server/test_schemathesis.py",
    "tests/table/test_legal_actions.py",
    "tests/server/test_browser",
    "tests/server/test_workers.py",
    "tests/server/test_bench_",
    "tests/store/test_memberships.py",
    "tests/table/test_race.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid.split("::")[0]
        return next((n for n, start in enumerate(LONGEST_FIRST) if path.startswith(start)), len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: within a rank, the files' own order
