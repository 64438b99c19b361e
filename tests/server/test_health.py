"""/healthz and /readyz, as a load balancer or monitor reads them: no login, plain JSON, and /readyz 503 with the
reason while the database or Redis does not answer."""

from __future__ import annotations

from fastapi.testclient import TestClient

from herotable.store.sql import open_store

from .clients import make_app


def test_healthz_answers_and_readyz_checks_the_database_and_redis(tmp_path, shared_redis):
    app = make_app(store=open_store(f"sqlite:///{tmp_path / 'table.sqlite'}"), redis_url=shared_redis)
    client = TestClient(app)
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", "checks": {"database": "ok", "redis": "ok"}}
    assert "/readyz" not in client.get("/openapi.json").text  # for operators, not the API


def test_readyz_says_what_does_not_answer(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'table.sqlite'}")
    app = make_app(store=store, redis_url="redis://127.0.0.1:1/0")  # nothing listens there
    client = TestClient(app)
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json() == {"status": "not ready", "checks": {"database": "ok", "redis": "does not answer"}}
    store.engine.dispose()
    (tmp_path / "table.sqlite").unlink()
    (tmp_path / "table.sqlite").mkdir()  # the database's file is gone and cannot come back
    assert client.get("/readyz").json()["checks"]["database"].startswith("does not answer")
    assert client.get("/healthz").status_code == 200  # the process itself still answers


def test_head_is_answered_wherever_get_is() -> None:
    from fastapi.testclient import TestClient

    from .clients import make_app

    client = TestClient(make_app())
    for path in ("/healthz", "/readyz", "/", "/rules", "/docs"):
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == got.headers["content-type"]
    assert client.head("/no/such/page").status_code == 404
