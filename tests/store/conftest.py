"""Backends for the store tests: memory, SQLite files per test, and PostgreSQL schemas per session.

`postgres_schema` comes from tests/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from herotable.store import EventStore, open_store


@pytest.fixture(scope="session")
def postgres_pair(postgres_schema: Callable[[], str]) -> list[str]:
    """Two migrated schemas, emptied by `_empty_postgres` before each test that uses them."""
    urls = [postgres_schema(), postgres_schema()]
    for url in urls:
        open_store(url).close()
    return urls


def _empty_postgres(request: pytest.FixtureRequest, which: int) -> str:
    url: str = request.getfixturevalue("postgres_pair")[which]
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "TRUNCATE memberships, portraits, snapshots, events, invite_uses, removals, invites, sessions, "
            "password_resets, api_tokens, throttles, webhook_outbox, webhooks, users, campaign_images, campaigns, "
            "library"
        )
    engine.dispose()
    return url


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend under test."""
    return str(request.param)


def _url(backend: str, request: pytest.FixtureRequest, tmp_path: Path, which: int) -> str:
    if backend == "memory":
        return "memory://"
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / f'herotable-{which}.db'}"
    return _empty_postgres(request, which)


@pytest.fixture
def store_url(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store's URL on the backend under test."""
    return _url(backend, request, tmp_path, 0)


@pytest.fixture
def store(store_url: str) -> Iterator[EventStore]:
    """An empty store on the backend under test."""
    opened = open_store(store_url)
    yield opened
    opened.close()


@pytest.fixture
def other_store(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EventStore]:
    """A second empty store on the same backend: where exports are imported."""
    opened = open_store(_url(backend, request, tmp_path, 1))
    yield opened
    opened.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store's URL that several processes can open at once."""
    return _url(str(request.param), request, tmp_path, 0)
