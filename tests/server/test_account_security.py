"""Accounts hold: login and registration limits, bounded hashing, revocable sessions, invitation links, and live
sockets that follow their member. On SQLite and PostgreSQL wherever the store keeps the state."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from herotable.server.security import SESSION_COOKIE
from herotable.store import open_store
from herotable.store.accounts import Invite

from .clients import Member, SteadyClock, anonymous, make_app, register, table
from .test_live import receive

PASSWORD = "correct horse"


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'accounts.db'}"
    url: str = request.getfixturevalue("postgres_schema")()
    return url


def app_on(url: str, **settings: Any) -> Any:
    return make_app(store=open_store(url), **settings)


@pytest.fixture
def clock() -> SteadyClock:
    return SteadyClock()


def login(client: TestClient, username: str, password: str, **headers: str) -> Any:
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    return client.post(
        "/api/v1/auth/login",
        json={"username": username, "password": password},
        headers={"X-CSRF-Token": token, **headers},
    )


# --- 1. login limits ---


def test_concurrent_wrong_passwords_pass_only_the_free_attempts(db_url: str, clock: SteadyClock) -> None:
    app = app_on(db_url, hash_slots=8, clock=clock)
    register(app, "gwen")
    codes: list[int] = []
    start = threading.Barrier(30)

    def guess() -> None:
        client = anonymous(app)
        token = client.get("/api/v1/csrf").json()["csrf_token"]
        start.wait()
        r = client.post(
            "/api/v1/auth/login", json={"username": "gwen", "password": "wrong guess"}, headers={"X-CSRF-Token": token}
        )
        codes.append(r.status_code)

    threads = [threading.Thread(target=guess) for _ in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert codes.count(401) == 5 and codes.count(429) == 25  # login_attempts: 5 checked, the rest refused unchecked


def test_every_server_process_shares_the_count(db_url: str, clock: SteadyClock) -> None:
    first, second = app_on(db_url, clock=clock), app_on(db_url, clock=clock)
    register(first, "gwen")
    one, two = anonymous(first), anonymous(second)
    assert [login(one, "gwen", "wrong guess").status_code for _ in range(3)] == [401] * 3
    assert [login(two, "gwen", "wrong guess").status_code for _ in range(2)] == [401] * 2
    refused = login(one, "gwen", PASSWORD)
    assert refused.status_code == 429 and refused.json()["code"] == "auth/rate_limited"


def test_the_owner_waits_a_moment_instead_of_being_locked_out(clock: SteadyClock) -> None:
    app = make_app(clock=clock)
    register(app, "gwen")
    client = anonymous(app)
    assert [login(client, "gwen", "wrong guess").status_code for _ in range(5)] == [401] * 5
    refused = login(client, "gwen", PASSWORD)
    assert refused.status_code == 429
    wait = int(refused.headers["Retry-After"])
    assert wait == 1 and "try again in 1 s" in refused.json()["detail"]
    clock.advance(wait + 0.1)
    assert login(client, "gwen", PASSWORD).status_code == 200  # the same address, the right password


def test_waits_grow_with_each_further_wrong_password(clock: SteadyClock) -> None:
    app = make_app(login_attempts=1, clock=clock)
    register(app, "gwen")
    client = anonymous(app)
    waits = []
    for _ in range(3):
        assert login(client, "gwen", "wrong guess").status_code == 401
        refused = login(client, "gwen", "wrong guess")
        waits.append(int(refused.headers["Retry-After"]))
        clock.advance(waits[-1] + 0.1)
    assert waits == [1, 2, 4]


def test_one_address_guessing_many_accounts_is_limited(clock: SteadyClock) -> None:
    app = make_app(address_attempts=20, clock=clock)
    for n in range(10):
        register(app, f"user{n}")
    client = anonymous(app)
    codes = [login(client, f"user{n}", "wrong guess").status_code for n in range(10) for _ in range(5)]
    assert codes.count(401) == 20 and codes.count(429) == 30


def test_forwarded_for_is_ignored_unless_the_peer_is_a_trusted_proxy(clock: SteadyClock) -> None:
    app = make_app(address_attempts=3, login_attempts=100, clock=clock)
    register(app, "gwen")
    client = anonymous(app)
    codes = [
        login(client, "gwen", "wrong guess", **{"X-Forwarded-For": f"203.0.113.{n}"}).status_code for n in range(6)
    ]
    assert codes == [401, 401, 401, 429, 429, 429]  # rotating the header changes nothing

    proxied = make_app(address_attempts=3, login_attempts=100, trusted_proxies=("127.0.0.1", "10.0.0.0/8"), clock=clock)
    register(proxied, "gwen")
    behind = TestClient(proxied, client=("127.0.0.1", 40000))
    for n in range(4):  # each real client behind the proxy has its own count
        hops = f"203.0.113.{n}, 10.1.2.3"  # the client, then a second trusted proxy
        assert login(behind, "gwen", "wrong guess", **{"X-Forwarded-For": hops}).status_code == 401
    same = [login(behind, "gwen", "wrong guess", **{"X-Forwarded-For": "198.51.100.7"}).status_code for _ in range(4)]
    assert same == [401, 401, 401, 429]


def test_a_bad_trusted_proxy_setting_says_what_to_write() -> None:
    with pytest.raises(ValueError, match="holds 'localhost', which is not an IP address or network"):
        make_app(trusted_proxies=("localhost",))


# --- 2. hashing and registration ---


def test_password_hashing_is_bounded_and_a_full_server_answers_503() -> None:
    app = make_app(hash_slots=1, hash_wait_s=0.05)
    register(app, "gwen")
    client = anonymous(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    with app.state.services.guard.gate.slot():  # the one slot is busy
        for username in ("gwen", "nobody"):  # an unknown name is hashed too (against a dummy hash)
            busy = login(client, username, "wrong guess")
            assert busy.status_code == 503 and busy.headers["Retry-After"] == "2"
            assert "busy checking other passwords" in busy.json()["detail"]
        joined = client.post(
            "/api/v1/auth/register",
            json={"username": "newbie", "password": PASSWORD, "display_name": "N"},
            headers={"X-CSRF-Token": token},
        )
        assert joined.status_code == 503
    assert app.state.services.accounts.user_by_name("newbie") is None
    # the refused attempts were not counted: the five free ones are all still there
    assert [login(client, "gwen", "wrong guess").status_code for _ in range(5)] == [401] * 5
    assert login(client, "gwen", PASSWORD).status_code == 429


def test_registrations_are_limited_per_address(db_url: str, clock: SteadyClock) -> None:
    app = app_on(db_url, register_attempts=3, clock=clock)

    def join(name: str) -> Any:  # each from a fresh browser at the same address
        client = anonymous(app)
        token = client.get("/api/v1/csrf").json()["csrf_token"]
        body = {"username": name, "password": PASSWORD, "display_name": name}
        return client.post("/api/v1/auth/register", json=body, headers={"X-CSRF-Token": token})

    assert [join(f"user{n}").status_code for n in range(3)] == [201, 201, 201]
    refused = join("user3")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 60
    assert "too many registrations" in refused.json()["detail"]
    assert app.state.services.accounts.user_by_name("user3") is None
    client = anonymous(app)
    token = client.get("/api/v1/csrf").json()["csrf_token"]
    page = client.post(
        "/register", data={"username": "user4", "password": PASSWORD, "display_name": "U", "csrf_token": token}
    )
    assert page.status_code == 429 and "too many registrations" in page.text


# --- 3. sessions ---


def test_logout_ends_the_session_even_for_a_saved_cookie(db_url: str) -> None:
    app = app_on(db_url)
    gwen = register(app, "gwen")
    saved = gwen.client.cookies.get(SESSION_COOKIE)
    assert gwen.post("/api/v1/auth/logout").status_code == 200
    thief = TestClient(app, cookies={SESSION_COOKIE: saved})
    assert thief.get("/api/v1/me").status_code == 401
    assert "Log in" in thief.get("/").text


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(db_url: str) -> None:
    app = app_on(db_url)
    here = register(app, "gwen")
    there = anonymous(app)
    assert login(there, "gwen", PASSWORD).status_code == 200
    wrong = here.post("/api/v1/auth/password", {"current_password": "not it", "new_password": "a new secret"})
    assert wrong.status_code == 401 and "nothing was changed" in wrong.json()["detail"]
    short = here.post("/api/v1/auth/password", {"current_password": PASSWORD, "new_password": "short"})
    assert short.status_code == 422 and short.json()["field"] == "new_password"
    assert there.get("/api/v1/me").status_code == 200  # nothing changed yet
    changed = here.post("/api/v1/auth/password", {"current_password": PASSWORD, "new_password": "a new secret"})
    assert changed.status_code == 200 and changed.json() == {"other_sessions_ended": 1}
    assert here.get("/api/v1/me").status_code == 200 and there.get("/api/v1/me").status_code == 401
    assert login(anonymous(app), "gwen", PASSWORD).status_code == 401
    assert login(anonymous(app), "gwen", "a new secret").status_code == 200


def test_the_account_page_changes_the_password_and_logs_out_everywhere(db_url: str) -> None:
    app = app_on(db_url)
    here = register(app, "gwen")
    there = anonymous(app)
    assert login(there, "gwen", PASSWORD).status_code == 200
    page = here.client.get("/account")
    assert "Change your password" in page.text and "Log out everywhere" in page.text
    form = {"csrf_token": here.csrf, "current_password": "not it", "new_password": "a new secret"}
    wrong = here.client.post("/account/password", data=form)
    assert wrong.status_code == 401 and "The current password is wrong" in wrong.text
    done = here.client.post("/account/password", data={**form, "current_password": PASSWORD})
    assert done.status_code == 200 and "1 other session ended" in done.text
    assert there.get("/api/v1/me").status_code == 401
    assert login(there, "gwen", "a new secret").status_code == 200
    out = here.client.post("/account/logout-everywhere", data={"csrf_token": here.csrf}, follow_redirects=False)
    assert out.status_code == 303 and out.headers["location"] == "/login"
    assert here.get("/api/v1/me").status_code == 401 and there.get("/api/v1/me").status_code == 401


def test_log_out_everywhere_through_the_api() -> None:
    app = make_app()
    here = register(app, "gwen")
    there = anonymous(app)
    login(there, "gwen", PASSWORD)
    assert here.post("/api/v1/auth/logout-everywhere").json()["ended"] == 2
    assert here.get("/api/v1/me").status_code == 401 and there.get("/api/v1/me").status_code == 401


# --- 5. invitations ---


def invite(gm: Member, cid: str, **body: Any) -> Any:
    return gm.post(f"/api/v1/campaigns/{cid}/invites", {"role": "player", **body})


def test_invitation_links_expire_count_their_uses_and_show_who_joined(db_url: str) -> None:
    app = app_on(db_url)
    cid, m = table(app)
    made = invite(m["gm"], cid, days=2, max_uses=1)
    assert made.status_code == 201 and (made.json()["max_uses"], made.json()["uses"]) == (1, 0)
    assert made.json()["created_at"] < made.json()["expires_at"]
    nia, late = register(app, "nia"), register(app, "late")
    assert nia.post(f"/api/v1/join/{made.json()['code']}").status_code == 200
    used_up = late.post(f"/api/v1/join/{made.json()['code']}")
    assert used_up.status_code == 410 and "used as many times as the GM allowed" in used_up.json()["detail"]
    listed = {i["code"]: i for i in m["gm"].get(f"/api/v1/campaigns/{cid}/invites").json()}
    mine = listed[made.json()["code"]]
    assert mine["uses"] == 1 and [j["name"] for j in mine["joined"]] == ["Nia"]
    assert sum(len(i["joined"]) for i in listed.values()) == 4  # pat, sam and sly joined through theirs
    page = m["gm"].client.get(f"/campaigns/{cid}").text
    assert "used 1 of 1 time" in page and "Joined through it:" in page and "Nia (" in page
    for bad in ({"days": 0}, {"days": 31}, {"max_uses": 0}):
        assert invite(m["gm"], cid, **bad).status_code == 422
    expired = Invite("stale", cid, "player", "2024-01-01T00:00:00.000000+00:00", "2024-01-08T00:00:00.000000+00:00")
    app.state.services.accounts.add_invite(expired)
    refused = late.post("/api/v1/join/stale")
    assert refused.status_code == 410 and "has expired" in refused.json()["detail"]
    assert late.client.post("/join/stale", data={"csrf_token": late.csrf}).status_code == 410
    assert late.get(f"/api/v1/campaigns/{cid}").status_code == 403


def test_a_removed_member_cannot_rejoin_with_an_old_link(db_url: str) -> None:
    app = app_on(db_url)
    cid, m = table(app)
    code = invite(m["gm"], cid).json()["code"]
    pat = m["pat"]
    listed = m["gm"].get(f"/api/v1/campaigns/{cid}/invites").json()
    pats = next(i["code"] for i in listed if [j["user_id"] for j in i["joined"]] == [pat.user_id])
    assert m["gm"].delete(f"/api/v1/campaigns/{cid}/members/{pat.user_id}").status_code == 200
    for old in (code, pats):  # a link made before the removal, and the very link pat joined with
        refused = pat.post(f"/api/v1/join/{old}")
        assert refused.status_code == 403 and "removed you" in refused.json()["detail"]
    assert pat.get(f"/api/v1/campaigns/{cid}").status_code == 403
    nia = register(app, "nia")
    assert nia.post(f"/api/v1/join/{code}").status_code == 200  # the link still admits others
    fresh = invite(m["gm"], cid).json()["code"]
    assert pat.post(f"/api/v1/join/{fresh}").status_code == 200  # the GM welcomes pat back with a new link
    # a member who leaves of their own accord may come back through a link they hold
    sam = m["sam"]
    assert sam.delete(f"/api/v1/campaigns/{cid}/members/{sam.user_id}").status_code == 200
    assert sam.post(f"/api/v1/join/{code}").status_code == 200


# --- 6. live sockets follow their member ---


def test_sockets_close_on_removal_and_logout_and_follow_a_role_change(db_url: str) -> None:
    app = app_on(db_url)
    cid, m = table(app)
    with (
        m["pat"].client.websocket_connect(f"/ws/campaigns/{cid}") as pat_ws,
        m["sam"].client.websocket_connect(f"/ws/campaigns/{cid}") as sam_ws,
        m["sly"].client.websocket_connect(f"/ws/campaigns/{cid}") as sly_ws,
    ):
        for ws in (pat_ws, sam_ws, sly_ws):
            assert receive(ws)["role"] in ("player", "spectator")
        m["gm"].command(cid, type="member.set_role", user=m["sam"].user_id, role="spectator")
        frame = receive(sam_ws)
        assert (frame["type"], frame["role"]) == ("hello", "spectator")
        m["gm"].delete(f"/api/v1/campaigns/{cid}/members/{m['pat'].user_id}")
        with pytest.raises(WebSocketDisconnect) as removed:
            receive_until_closed(pat_ws)
        assert removed.value.code == 4403
        m["sly"].post("/api/v1/auth/logout")
        with pytest.raises(WebSocketDisconnect) as ended:
            receive_until_closed(sly_ws)
        assert ended.value.code == 4401


def receive_until_closed(ws: Any, timeout: float = 60.0) -> None:
    """Read frames until the server closes the socket (raising its WebSocketDisconnect); fail if it stays open."""
    box: queue.Queue[Any] = queue.Queue()

    def read() -> None:
        try:
            while True:
                ws.receive_json()
        except Exception as closed:
            box.put(closed)

    threading.Thread(target=read, daemon=True).start()
    try:
        closed = box.get(timeout=timeout)
    except queue.Empty:
        pytest.fail(f"the socket stayed open for {timeout} s")
    raise closed


def test_a_password_change_closes_the_users_sockets_on_another_process(tmp_path: Any, shared_redis: str) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = make_app(store=open_store(url), redis_url=shared_redis)
    second = make_app(store=open_store(url), redis_url=shared_redis)
    cid, m = table(first)
    pat_elsewhere = TestClient(second)
    assert login(pat_elsewhere, "pat", PASSWORD).status_code == 200
    with pat_elsewhere as client, client.websocket_connect(f"/ws/campaigns/{cid}") as ws:
        assert receive(ws)["type"] == "hello"
        body = {"current_password": PASSWORD, "new_password": "a new secret"}
        assert m["pat"].post("/api/v1/auth/password", body).status_code == 200
        with pytest.raises(WebSocketDisconnect) as ended:
            receive_until_closed(ws)
        assert ended.value.code == 4401


def test_limits_are_shared_through_redis_when_it_is_configured(shared_redis: str, clock: SteadyClock) -> None:
    name = f"gwen{time.time_ns() % 10**9}"  # Redis outlives the test: a name of its own
    # memory stores: nothing is shared but the limits, through Redis
    first, second = make_app(redis_url=shared_redis, clock=clock), make_app(redis_url=shared_redis, clock=clock)
    register(first, name)
    here = (f"192.0.2.{time.time_ns() % 250}", 1)
    assert [login(TestClient(first, client=here), name, "wrong guess").status_code for _ in range(5)] == [401] * 5
    assert login(TestClient(second, client=here), name, "wrong guess").status_code == 429


def test_redis_counts_an_attempt_that_read_the_time_before_a_racing_one_at_the_later_time(shared_redis: str) -> None:
    """As the database's throttle does (tests/store/test_accounts.py): a free attempt never waits for one that took no
    wait, whichever of two racing requests read the clock first."""
    from herotable.server.auth import RedisThrottle
    from herotable.server.redis_link import RedisLink
    from herotable.store.accounts import MemoryAccountStore
    from herotable.store.throttle import Policy

    from .clients import redis_prefix

    account = Policy(free=3, base_s=1.0, cap_s=8.0, forget_s=60.0)
    throttle = RedisThrottle(RedisLink(shared_redis), MemoryAccountStore().throttle, redis_prefix())
    assert throttle.attempt([("acct:pat", account)], 1000.0) == 0.0
    assert throttle.attempt([("acct:pat", account)], 999.5) == 0.0
    assert throttle.attempt([("acct:pat", account)], 999.0) == 0.0  # the 3rd, counted at 1000: waits until 1001
    assert throttle.attempt([("acct:pat", account)], 1000.25) == 0.75
