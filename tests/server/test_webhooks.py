"""Outgoing webhooks: what the whole table sees goes to Discord or a signed-JSON receiver, and nothing else ever does;
delivery never sits on a command's path, is retried with a growing wait (Discord's 429 as it says), gives up after 8
tries with the receiver's answer shown to the GM, and reaches no private address unless the operator allows it.

Deliveries are sent here by calling the courier (`deliver_due`) with the app's clock standing still, so retries and
waits are checked by moving that clock, not by waiting; one test runs the real worker thread to show that a receiver
that never answers holds no command."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client import generate_latest

from herotable.ltl.samples import CAPTAIN_COMET, DOCTOR_ENTROPY
from herotable.server.settings import Settings
from herotable.server.webhooks import MAX_TRIES, Reach, Unreachable, backoff_s, check_url, reach_for
from herotable.store.sql import open_store

from .clients import SteadyClock, make_app, table, until
from .receiver import Receiver

PUBLIC_URL = "http://localhost:8000"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


def app_with(clock: SteadyClock | None = None, store: Any = None, rng: Any = None, **settings: Any) -> Any:
    settings.setdefault("webhook_private_addresses", True)  # the receiver is on this machine
    settings.setdefault("public_url", PUBLIC_URL)
    return make_app(store=store, rng=rng, clock=clock or SteadyClock(), **settings)


def hook(gm: Any, cid: str, url: str, fmt: str = "discord", name: str = "") -> dict[str, Any]:
    made = gm.post(f"/api/v1/campaigns/{cid}/webhooks", {"url": url, "format": fmt, "name": name})
    assert made.status_code == 201, made.text
    found: dict[str, Any] = made.json()
    return found


def drain(app: Any) -> int:
    """Send everything due now; how many deliveries were tried."""
    courier = app.state.courier
    tried = 0
    while True:
        n = courier.deliver_due()
        if not n:
            return tried
        tried += n


def deliveries(gm: Any, cid: str) -> dict[str, list[dict[str, Any]]]:
    return {h["name"]: h["recent"] for h in gm.get(f"/api/v1/campaigns/{cid}/webhooks").json()}


def test_what_the_table_sees_reaches_discord_and_json_and_no_secret_ever_does(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/discord", name="dice channel")
    made = hook(m["gm"], cid, receiver.url + "/json", "json", "bot")
    assert made["secret"] and made["url"].endswith("/json")
    gm, pat, sam = m["gm"], m["pat"], m["sam"]
    pat.command(cid, type="character.create_ltl", character="comet", sheet=CAPTAIN_COMET)
    gm.command(cid, type="character.create_ltl", character="entropy", sheet=DOCTOR_ENTROPY, npc=True, hidden=True)
    assert pat.command(cid, type="table.roll", expression="2d6", label="Harbour swim").status_code == 200
    assert gm.command(cid, type="table.roll", expression="1d20", label="Ambush odds", secret=True).status_code == 200
    assert pat.command(cid, type="chat.say", text="the password is swordfish", to=sam.user_id).status_code == 200
    assert pat.command(cid, type="chat.say", text="table talk for the table").status_code == 200
    assert gm.command(cid, type="ltl.karma.try_again", character="entropy").status_code == 200
    secret = gm.command(cid, type="ltl.challenge", character="entropy", difficulty="Hard", secret=True)
    secret_task = secret.json()["events"][0]["fact"]["task"]
    gm.command(cid, type="ltl.settle", task=secret_task)
    call = gm.command(cid, type="ltl.call", character="comet", difficulty="Hard").json()["command_id"]
    pending = pat.command(cid, type="ltl.challenge", character="comet", call=call, style="Flight")
    pending_task = next(e for e in pending.json()["events"] if e["type"] == "ltl.task_opened")["fact"]["task"]
    drain(app)
    before_settling = {g.json()["command_id"] for g in receiver.got if g.path == "/json"}
    assert pending.json()["command_id"] not in before_settling  # a pending roll is not announced
    pat.command(cid, type="ltl.settle", task=pending_task)
    drain(app)

    sent = [g for g in receiver.got if g.path.startswith("/discord")]
    signed = [g.json() for g in receiver.got if g.path == "/json"]
    assert sent and len(sent) == len(signed)
    everything = json.dumps([g.json() for g in sent]) + json.dumps(signed)
    for secret_text in ("Ambush", "swordfish", "Decay", secret_task, "table talk"):
        assert secret_text not in everything
    # what was sent is exactly what a spectator's own stream holds: no command they cannot see
    spectator = m["sly"].get(f"/api/v1/campaigns/{cid}/events?limit=500").json()["events"]
    seen = {e["command_id"] for e in spectator}
    assert {s["command_id"] for s in signed} <= seen
    gm_only = {e["command_id"] for e in gm.get(f"/api/v1/campaigns/{cid}/events?limit=500").json()["events"]} - seen
    assert gm_only and not gm_only & {s["command_id"] for s in signed}
    # the public roll: who, the dice faces as rolled, a link back; mentions never ping
    swim = next(s for s in signed if any("Harbour swim" in line for line in s["lines"]))
    rolled = next(e for e in spectator if e["command_id"] == swim["command_id"])["fact"]["dice"]
    assert [[d["sides"], d["face"]] for d in swim["dice"]] == rolled
    assert swim["who"] == "Pat" and swim["campaign"]["url"] == f"{PUBLIC_URL}/campaigns/{cid}/table"
    message = next(g for g in sent if "Harbour swim" in g.body.decode())
    assert message.path == "/discord?wait=true"
    [embed] = message.json()["embeds"]
    assert message.json()["allowed_mentions"] == {"parse": []}
    assert embed["author"]["name"] == "Pat" and embed["url"] == swim["campaign"]["url"]
    assert embed["fields"][0]["value"] == " · ".join(f"d{s} **{f}**" for s, f in rolled)
    settled = [s for s in signed if s["command_id"] == pending.json()["command_id"]]
    assert not settled  # the challenge's opening stayed the player's until it was settled …
    states = {d["state"] for hooks in deliveries(gm, cid).values() for d in hooks}
    assert states <= {"sent", "skipped"}


def test_an_undo_edits_the_discord_message_and_tells_the_json_receiver(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/api/webhooks/1/abc", name="Discord")
    hook(m["gm"], cid, receiver.url + "/json", "json", "bot")
    rolled = m["pat"].command(cid, type="table.roll", expression="3d6", label="Leap").json()["command_id"]
    drain(app)
    [posted] = [g for g in receiver.got if g.method == "POST" and g.path.startswith("/api/webhooks")]
    assert m["gm"].command(cid, type="table.undo").status_code == 200
    drain(app)
    [edit] = [g for g in receiver.got if g.method == "PATCH"]
    message = json.loads(posted.answer)["id"]  # the message the roll made (`wait=true` gave its id)
    assert edit.path == f"/api/webhooks/1/abc/messages/{message}"
    [embed] = edit.json()["embeds"]
    assert embed["title"].startswith("Undone") and "Leap" in embed["description"] and "undone" in embed["description"]
    assert posted.json()["embeds"][0]["title"] != embed["title"]
    undo = [g.json() for g in receiver.got if g.path == "/json"][-1]
    assert undo["type"] == "undo" and undo["undoes"] == [rolled]


def test_signed_json_carries_a_verifiable_signature_and_the_same_id_on_every_try(receiver: Receiver) -> None:
    clock = SteadyClock()
    app = app_with(clock)
    cid, m = table(app)
    secret = hook(m["gm"], cid, receiver.url + "/in", "json", "bot")["secret"]
    receiver.script.append((500, {}, b"database down"))
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1
    [failing] = deliveries(m["gm"], cid)["bot"]
    assert (failing["state"], failing["tries"], failing["answer"]) == ("pending", 1, "HTTP 500: database down")
    assert drain(app) == 0  # not due again before its wait
    clock.advance(backoff_s(1))
    assert drain(app) == 1
    first, second = receiver.got
    assert first.body == second.body and first.headers["herotable-delivery"] == second.headers["herotable-delivery"]
    assert json.loads(second.body)["id"] == second.headers["herotable-delivery"]
    for got in (first, second):
        stamp = got.headers["herotable-timestamp"]
        mac = hmac.new(secret.encode(), stamp.encode() + b"." + got.body, hashlib.sha256).hexdigest()
        assert got.headers["herotable-signature"] == f"v1={mac}"
        assert abs(int(stamp) - clock.now) < backoff_s(1) + 5  # by the app's clock: a receiver can refuse old ones
    forged = hmac.new(b"not the secret", second.headers["herotable-timestamp"].encode() + b"." + second.body, "sha256")
    assert second.headers["herotable-signature"] != f"v1={forged.hexdigest()}"
    assert deliveries(m["gm"], cid)["bot"][0]["state"] == "sent"


def test_a_failing_receiver_is_tried_8_times_with_growing_waits_then_shown_failed_to_the_gm(
    receiver: Receiver,
) -> None:
    clock = SteadyClock()
    app = app_with(clock)
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    receiver.always = (503, {}, b"<h1>Service Unavailable</h1>")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    waits = []
    for tries in range(1, MAX_TRIES + 1):
        assert drain(app) == 1
        [row] = deliveries(m["gm"], cid)["bot"]
        assert row["tries"] == tries
        if tries < MAX_TRIES:
            waits.append(backoff_s(tries))
            clock.advance(backoff_s(tries) - 1)
            assert drain(app) == 0  # a second early: still waiting
            clock.advance(1)
    assert waits == [10, 20, 40, 80, 160, 320, 640]
    [row] = deliveries(m["gm"], cid)["bot"]
    assert row["state"] == "failed" and "503" in row["answer"] and "Service Unavailable" in row["answer"]
    clock.advance(3600)
    assert drain(app) == 0 and len(receiver.got) == MAX_TRIES
    page = m["gm"].get(f"/campaigns/{cid}/webhooks").text
    assert "failed</strong> after 8 tries" in page and "Service Unavailable" in page
    metrics = generate_latest(app.state.services.metrics.registry).decode()
    assert 'herotable_webhook_deliveries_total{outcome="retried"} 7.0' in metrics
    assert 'herotable_webhook_deliveries_total{outcome="failed"} 1.0' in metrics


def test_discords_429_is_waited_out_and_a_webhook_it_says_is_gone_stops_until_a_test_reaches_it(
    receiver: Receiver,
) -> None:
    clock = SteadyClock()
    app = app_with(clock)
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/api/webhooks/1/abc", name="Discord")
    receiver.script.append((429, {"Retry-After": "2.5"}, b'{"message": "You are being rate limited."}'))
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1
    clock.advance(2.4)
    assert drain(app) == 0
    clock.advance(0.2)
    assert drain(app) == 1
    assert deliveries(m["gm"], cid)["Discord"][0]["state"] == "sent"
    receiver.script.append((404, {}, b'{"message": "Unknown Webhook", "code": 10015}'))
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1
    latest = deliveries(m["gm"], cid)["Discord"][0]
    assert latest["state"] == "failed" and "Unknown Webhook" in latest["answer"] and latest["tries"] == 1
    # a webhook Discord says is gone is stopped: nothing more is queued for it, until a test reaches it again
    [stopped] = m["gm"].get(f"/api/v1/campaigns/{cid}/webhooks").json()
    assert stopped["stopped_at"] and "Unknown Webhook" in stopped["stopped_why"]
    assert "<strong>Stopped</strong>" in m["gm"].get(f"/campaigns/{cid}/webhooks").text
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 0 and len(deliveries(m["gm"], cid)["Discord"]) == 2
    assert m["gm"].post(f"/api/v1/campaigns/{cid}/webhooks/{stopped['webhook_id']}/test").status_code == 202
    assert drain(app) == 1
    [again] = m["gm"].get(f"/api/v1/campaigns/{cid}/webhooks").json()
    assert again["stopped_at"] is None and again["recent"][0]["state"] == "sent"
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1  # sent again


def test_messages_to_one_webhook_keep_their_order_behind_one_that_is_retried(receiver: Receiver) -> None:
    clock = SteadyClock()
    app = app_with(clock)
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    receiver.script.append((500, {}, b""))
    for label in ("first", "second", "third"):
        m["pat"].command(cid, type="table.roll", expression="1d8", label=label)
    assert drain(app) == 1  # the first failed: the others wait behind it
    clock.advance(backoff_s(1))
    assert drain(app) == 3
    labels = [json.loads(g.body)["lines"][0].split(":")[0] for g in receiver.got]
    assert labels == ["first", "first", "second", "third"]


def test_no_command_waits_for_a_receiver_that_is_down_or_never_answers(receiver: Receiver) -> None:
    down = Receiver()
    down_url = down.url
    down.close()
    down.listening.close()  # nothing listens there now
    app = app_with(webhook_timeout_s=0.5)
    cid, m = table(app)
    down_hook = hook(m["gm"], cid, down_url + "/in", "json", "down")["webhook_id"]
    slow_hook = hook(m["gm"], cid, receiver.url + "/in", "json", "slow")["webhook_id"]
    held = receiver.hang()
    with m["pat"].client:  # the app's lifespan: its delivery thread runs
        assert m["pat"].command(cid, type="table.roll", expression="1d6").status_code == 200
        assert held.entered.wait(60)  # the thread is inside a request the receiver does not answer …
        for _ in range(5):  # … and commands are answered meanwhile, each writing its outbox rows
            assert m["pat"].command(cid, type="table.roll", expression="1d6").status_code == 200
        store = app.state.courier.store
        assert until(lambda: store.deliveries(slow_hook, 10)[-1].tries == 1)  # the receiver's time ran out
        held.released.set()
    down_rows, slow_rows = store.deliveries(down_hook, 10), store.deliveries(slow_hook, 10)
    assert len(down_rows) == len(slow_rows) == 6  # every command's row kept
    assert down_rows[-1].state == "pending" and "could not connect" in down_rows[-1].answer
    assert slow_rows[-1].state == "pending" and slow_rows[-1].answer == "no answer within 0.5 s"


def test_delivery_resumes_after_a_restart_and_a_lease_taken_by_a_stopped_process_runs_out(
    receiver: Receiver, tmp_path: Any
) -> None:
    url = f"sqlite:///{tmp_path / 'hooks.db'}"
    clock = SteadyClock()
    first = app_with(clock, store=open_store(url))
    cid, m = table(first)
    hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    courier = first.state.courier
    [taken] = courier.store.claim(clock(), courier.lease_s, 8)  # taken, and the process stops before sending it
    second = app_with(clock, store=open_store(url))  # after a restart
    assert drain(second) == 0  # leased to the stopped process for a while …
    clock.advance(courier.lease_s)
    assert drain(second) == 1  # … then sent: at least once
    assert json.loads(receiver.got[0].body)["id"] == f"{taken.webhook_id}.{taken.delivery_id}"


def test_private_addresses_are_refused_unless_allowed_and_the_servers_own_never_reached(receiver: Receiver) -> None:
    app = app_with(webhook_private_addresses=False)
    cid, m = table(app)
    named = receiver.url.replace("127.0.0.1", "localhost")  # a name: checked when it is sent to, where it resolves
    hook(m["gm"], cid, named + "/in", "json", "local")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1
    [row] = deliveries(m["gm"], cid)["local"]
    assert row["state"] == "failed" and "is a loopback or private address" in row["answer"]
    assert receiver.got == []
    allowed = Reach(allow_private=True, guarded_ports=frozenset({6379, 8000}), forbidden=frozenset({("1.2.3.4", 6379)}))
    closed = Reach()
    own = (
        ("127.0.0.1", 6379),
        ("127.0.0.2", 6379),
        ("::1", 6379),
        ("::ffff:127.0.0.1", 6379),
        ("127.0.0.1", 8000),
        ("10.1.2.3", 8000),
        ("1.2.3.4", 6379),  # a Redis on a public address, by the address its name has
    )
    for address, port in own:
        with pytest.raises(Unreachable, match="herotable's own server, its Redis or its database"):
            allowed.check(address, port)
    private = (
        "10.0.0.1",
        "192.168.1.2",
        "::1",
        "fd00::1",
        "fec0::1",
        "100.64.0.1",
        "::ffff:10.0.0.1",
        "::127.0.0.1",  # IPv4-compatible
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo, its client 127.0.0.1
    )
    for address in private:
        with pytest.raises(Unreachable, match="loopback or private"):
            closed.check(address, 443)
    for address in ("169.254.169.254", "fe80::1", "64:ff9b::a9fe:a9fe"):  # cloud metadata: never, even when allowed
        with pytest.raises(Unreachable, match="link-local"):
            allowed.check(address, 80)
    for address in ("0.0.0.0", "224.0.0.1"):
        with pytest.raises(Unreachable):
            allowed.check(address, 80)
    closed.check("93.184.215.14", 443)  # a public address passes
    allowed.check("127.0.0.1", 9000)
    with pytest.raises(Unreachable, match="does not resolve") as failed:
        closed.addresses("no-such-host.invalid", 443)
    assert not failed.value.final  # a name that does not resolve now may later: tried again
    settings = Settings(
        secret_key="x" * 32,
        redis_url="redis://127.0.0.1:6379/0",
        database_url="postgresql+psycopg://u@127.0.0.1:5433/db",
        port=8123,
    )
    reach = reach_for(settings)
    assert {6379, 8123, 5433} <= reach.guarded_ports
    assert ("127.0.0.1", 6379) in reach.forbidden and ("127.0.0.1", 8123) in reach.forbidden


def test_addresses_that_cannot_be_sent_to_are_refused_when_the_webhook_is_made() -> None:
    for bad, said in (
        ("https://exämple.com/x", "beyond ASCII"),
        ("https://example.com/a b", "spaces"),
        ("https://example.com:0/x", "port 0"),
        ("https://example.com:99999/x", "not a URL"),
        ("javascript:alert(1)", "https://"),
        ("https://example.com/x#frag", "fragment"),
    ):
        assert said in (check_url(bad) or ""), bad
    assert check_url("https://discord.com/api/webhooks/123/abc-DEF_ghi?thread_id=9") is None


def test_a_name_that_does_not_resolve_is_tried_again_and_a_redirect_is_not_followed(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    hook(m["gm"], cid, "http://no-such-host.invalid/in", "json", "nowhere")
    hook(m["gm"], cid, receiver.url + "/old", "json", "moved")
    receiver.script.append((301, {"Location": "http://169.254.169.254/latest/meta-data"}, b""))
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 2
    rows = deliveries(m["gm"], cid)
    [nowhere], [moved] = rows["nowhere"], rows["moved"]
    assert nowhere["state"] == "pending" and "does not resolve" in nowhere["answer"]
    assert moved["state"] == "failed" and "moved to http://169.254.169.254" in moved["answer"]
    assert [g.path for g in receiver.got] == ["/old"]  # the redirect was not followed


def test_a_receiver_that_drips_its_answer_is_cut_off_at_the_delivery_time_in_all(receiver: Receiver) -> None:
    import socket as sockets
    import threading

    listening = sockets.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(8)
    stop = threading.Event()

    def drip() -> None:  # a status line, then a header byte every 50 ms for a minute: no single read waits long
        conn, _ = listening.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(1200):
            if stop.wait(0.05):
                break
            try:
                conn.sendall(b"X")
            except OSError:
                break
        conn.close()

    threading.Thread(target=drip, daemon=True).start()
    app = app_with(webhook_timeout_s=0.5)
    cid, m = table(app)
    hook(m["gm"], cid, f"http://127.0.0.1:{listening.getsockname()[1]}/in", "json", "drip")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 1
    stop.set()
    listening.close()
    [row] = deliveries(m["gm"], cid)["drip"]
    assert row["state"] == "pending" and row["answer"] == "no answer within 0.5 s"


def test_a_slow_receiver_holds_no_other_webhooks_delivery(receiver: Receiver) -> None:
    other = Receiver()
    try:
        app = app_with(webhook_timeout_s=120)
        cid, m = table(app)
        hook(m["gm"], cid, receiver.url + "/slow", "json", "slow")
        elsewhere = m["gm"].post("/api/v1/campaigns", {"name": "Elsewhere", "ruleset": "ltl"}).json()["campaign_id"]
        hook(m["gm"], elsewhere, other.url + "/quick", "json", "quick")
        held = receiver.hang()
        with m["gm"].client:  # the app's lifespan: its delivery thread runs
            m["gm"].command(cid, type="table.roll", expression="1d6")
            assert held.entered.wait(60)
            m["gm"].command(elsewhere, type="table.roll", expression="1d6")
            assert until(lambda: len(other.got) == 1)  # sent while the slow one is still held
            held.released.set()
    finally:
        other.close()


def test_a_worker_that_outlived_its_lease_does_not_overwrite_the_outcome(receiver: Receiver) -> None:
    clock = SteadyClock()
    app = app_with(clock)
    cid, m = table(app)
    hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    courier = app.state.courier
    [stale] = courier.store.claim(clock(), courier.lease_s, 8)  # a worker takes it, and stalls
    clock.advance(courier.lease_s + 1)
    assert drain(app) == 1  # another takes it once the lease ran out, and sends it
    late = courier.deliver(stale)  # the first wakes up and sends it again (at least once) …
    assert late == stale
    [row] = deliveries(m["gm"], cid)["bot"]
    assert row["state"] == "sent" and row["tries"] == 1  # … but the outcome recorded is the second's


def test_chat_leaves_no_row_and_a_webhook_keeps_its_latest_50_deliveries(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    made = hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    store = app.state.courier.store
    for n in range(3):
        m["pat"].command(cid, type="chat.say", text=f"hello {n}")
    assert store.deliveries(made["webhook_id"], 100) == [] and drain(app) == 0
    for _ in range(55):
        m["pat"].command(cid, type="table.roll", expression="1d4")
        drain(app)
    kept = store.deliveries(made["webhook_id"], 100)
    assert len(kept) == 50 and len(receiver.got) == 55
    first = m["gm"].post(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}/test")
    again = m["gm"].post(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}/test")
    assert first.status_code == 202 and again.status_code == 409 and "already on its way" in again.text
    drain(app)
    assert m["gm"].post(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}/test").status_code == 202


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_outbox_is_written_with_the_command_and_taken_once_by_competing_workers(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any, receiver: Receiver
) -> None:
    url = f"sqlite:///{tmp_path / 'out.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    clock = SteadyClock()
    app = app_with(clock, store=open_store(url))
    other = app_with(clock, store=open_store(url))  # a second server process on the same database
    cid, m = table(app)
    store = app.state.courier.store
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert store.claim(clock(), 60, 8) == []  # no webhook: no row
    made = hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    second = hook(m["gm"], cid, receiver.url + "/two", "json", "two")
    refused = m["pat"].command(cid, type="table.roll", expression="not dice")
    assert refused.status_code == 409  # refused by the rules: nothing recorded, nothing to send
    m["gm"].command(cid, type="table.roll", expression="1d4", secret=True)  # the GM's alone: nothing to send
    for _ in range(3):
        m["pat"].command(cid, type="table.roll", expression="1d8")
    mine = store.claim(clock(), 60, 8)
    theirs = other.state.courier.store.claim(clock(), 60, 8)
    assert {r.webhook_id for r in mine} == {made["webhook_id"], second["webhook_id"]}  # the oldest of each
    assert theirs == []  # each oldest is taken; the rest wait behind it
    for row in mine:
        app.state.courier.deliver(row)
    assert drain(other) == 4
    assert drain(app) == 0
    got = [json.loads(g.body)["id"] for g in receiver.got]
    assert len(got) == len(set(got)) == 6
    store.stop_webhook(made["webhook_id"], "2026-12-04T10:00:00+00:00", "HTTP 404")  # its receiver is gone
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert [r.webhook_id for r in store.claim(clock(), 60, 8)] == [second["webhook_id"]]  # the stopped one: no row
    assert store.webhook(made["webhook_id"]).stopped_why == "HTTP 404"


def test_a_courier_with_nothing_due_takes_no_write_lock(tmp_path: Any) -> None:
    """The courier looks for rows after every command the table sees, in every campaign; when none is due it must
    not wait for SQLite's write lock, which every command's append takes too (here another holds it)."""
    import sqlite3
    import time

    from herotable.store.webhooks import SqlWebhookStore

    store = open_store(f"sqlite:///{tmp_path / 'quiet.db'}")
    holder = sqlite3.connect(tmp_path / "quiet.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # a writer in the middle of its transaction
        # (waiting for the lock, the claim would give up after 30 s: "database is locked")
        assert SqlWebhookStore(store.engine).claim(time.time(), 60, 8) == []
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        store.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_campaign_from_before_webhooks_keeps_its_log_and_gains_them_after_the_upgrade(
    backend: str, request: pytest.FixtureRequest, tmp_path: Any, receiver: Receiver
) -> None:
    from alembic import command

    from herotable.store.engine import create_store_engine
    from herotable.store.migrate import _config, current_revision
    from herotable.store.sql import parse_database_url

    url = f"sqlite:///{tmp_path / 'old.db'}" if backend == "sqlite" else request.getfixturevalue("postgres_schema")()
    clock = SteadyClock()
    app = app_with(clock, store=open_store(url))
    cid, m = table(app)
    m["pat"].command(cid, type="table.roll", expression="2d6", label="before")
    app.state.services.table.store.close()
    engine = create_store_engine(parse_database_url(url))
    with engine.begin() as connection:  # the schema as revision 0010 left it, with the campaign in it
        command.downgrade(_config(connection), "0010")
    assert current_revision(engine) == "0010"
    engine.dispose()
    upgraded = app_with(clock, store=open_store(url))  # opening upgrades SQLite; the test's PostgreSQL the same way
    state = upgraded.state.services.table.state(cid)
    assert state.name == "Harbour Nights" and state.seq > 0
    gm = type(m["gm"])(type(m["gm"].client)(upgraded), m["gm"].user_id, m["gm"].csrf)
    gm.client.cookies = m["gm"].client.cookies
    hook(gm, cid, receiver.url + "/in", "json", "bot")
    m["pat"].client.app = upgraded
    assert m["pat"].command(cid, type="table.roll", expression="1d8", label="after").status_code == 200
    assert drain(upgraded) == 1
    assert json.loads(receiver.got[0].body)["lines"][0].startswith("after")


def test_the_gm_sets_webhooks_on_a_page_of_their_own_and_nobody_else_may(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    gm = m["gm"]
    for who in ("pat", "sly"):
        assert m[who].get(f"/campaigns/{cid}/webhooks").status_code == 403
        refused = m[who].client.post(
            f"/campaigns/{cid}/webhooks", data={"url": receiver.url, "csrf_token": m[who].csrf}
        )
        assert refused.status_code == 403
        assert m[who].get(f"/api/v1/campaigns/{cid}/webhooks").status_code == 403
    settings = gm.get(f"/campaigns/{cid}/settings").text
    assert f'href="/campaigns/{cid}/webhooks"' in settings
    page = gm.get(f"/campaigns/{cid}/webhooks")
    assert page.status_code == 200 and "Add a webhook" in page.text

    def add(**form: str) -> Any:
        return gm.client.post(f"/campaigns/{cid}/webhooks", data={"csrf_token": gm.csrf, **form})

    for bad, said in (
        ("ftp://example.com/x", "it must start with https://"),
        ("https://user:pw@example.com/x", "must not carry a user name or password"),
        ("not a url at all", "it must start with https://"),
        ("", "url"),
    ):
        answer = add(url=bad, format="discord")
        assert answer.status_code == 422 and said in answer.text and "Nothing was added" in answer.text
        assert f'value="{bad}"' in answer.text  # what was typed is kept
    assert add(url=receiver.url + "/x", format="carrier pigeon").status_code == 422
    assert gm.get(f"/api/v1/campaigns/{cid}/webhooks").json() == []  # nothing written by any of them

    made = add(url=receiver.url + "/hook/secret-token-123", format="json", name="our bot")
    assert made.status_code == 201 and "secret-token-123" in made.text and 'id="made-secret"' in made.text
    assert made.headers["cache-control"] == "no-store"
    again = add(url=receiver.url + "/hook/secret-token-123", format="json", name="our bot")  # the form sent again
    assert again.status_code == 422 and "webhooks. Tip: send it a test instead" in again.text
    [listed] = gm.get(f"/api/v1/campaigns/{cid}/webhooks").json()
    later = gm.get(f"/campaigns/{cid}/webhooks").text
    assert "secret-token-123" not in later and "made-secret" not in later  # the address and secret: shown once
    assert "secret-token-123" not in json.dumps(listed) and "secret" not in listed
    tested = gm.client.post(
        f"/campaigns/{cid}/webhooks/{listed['webhook_id']}/test", data={"csrf_token": gm.csrf}, follow_redirects=False
    )
    assert tested.status_code == 303
    assert drain(app) == 1
    test_message = json.loads(receiver.got[0].body)
    assert test_message["type"] == "test" and "our bot" in test_message["lines"][0]
    assert "sent" in gm.get(f"/campaigns/{cid}/webhooks").text
    assert gm.client.post(f"/campaigns/{cid}/webhooks/nope/test", data={"csrf_token": gm.csrf}).status_code == 404
    no_csrf = gm.client.post(f"/campaigns/{cid}/webhooks/{listed['webhook_id']}/remove")
    assert no_csrf.status_code == 403
    removed = gm.client.post(f"/campaigns/{cid}/webhooks/{listed['webhook_id']}/remove", data={"csrf_token": gm.csrf})
    assert removed.status_code == 200 and "The webhook is removed" in removed.text
    assert gm.get(f"/api/v1/campaigns/{cid}/webhooks").json() == []
    m["pat"].command(cid, type="table.roll", expression="1d8")
    assert drain(app) == 0  # nothing more is sent to it


def test_the_api_sets_webhooks_for_the_gm_and_a_token_of_scope_gm(receiver: Receiver) -> None:
    app = app_with()
    cid, m = table(app)
    gm = m["gm"]
    made = hook(gm, cid, receiver.url + "/a", "discord")
    assert made["name"] == "Discord" and made["secret"] is None and made["url"] == receiver.url + "/a"
    assert made["shown_url"] == receiver.url + "/…"  # a path of one part may be all of its secret
    assert hook(gm, cid, receiver.url + "/api/webhooks/123/tok-en", "discord")["shown_url"] == receiver.url + "/api/…"
    for n in range(3):
        hook(gm, cid, receiver.url + f"/more{n}", "json")
    full = gm.post(f"/api/v1/campaigns/{cid}/webhooks", {"url": receiver.url + "/six"})
    assert full.status_code == 422 and full.json()["code"] == "webhook/too_many" and "at most 5" in full.text
    assert full.headers["content-type"] == "application/problem+json"
    assert gm.post(f"/api/v1/campaigns/{cid}/webhooks", {"url": receiver.url, "colour": "red"}).status_code == 422
    queued = gm.post(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}/test")
    assert queued.status_code == 202 and queued.json()["delivery_id"] > 0
    assert gm.delete(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}").json() == {"removed": made["webhook_id"]}
    assert gm.delete(f"/api/v1/campaigns/{cid}/webhooks/{made['webhook_id']}").status_code == 404
    other_cid = gm.post("/api/v1/campaigns", {"name": "Elsewhere", "ruleset": "ltl"}).json()["campaign_id"]
    [kept, *_] = gm.get(f"/api/v1/campaigns/{cid}/webhooks").json()
    assert gm.delete(f"/api/v1/campaigns/{other_cid}/webhooks/{kept['webhook_id']}").status_code == 404
    for never in ("http://169.254.169.254/latest", "http://[::ffff:169.254.169.254]/", "http://127.0.0.1:8000/metrics"):
        refused = gm.post(f"/api/v1/campaigns/{other_cid}/webhooks", {"url": never})
        assert refused.status_code == 422 and "never reach" in refused.text  # said when it is made, not later

    def token(scope: str) -> Any:
        made_token = gm.post("/api/v1/tokens", {"name": scope, "scope": scope}).json()["token"]
        return type(gm.client)(app, headers={"Authorization": f"Bearer {made_token}"})

    reader, gm_bot = token("read"), token("gm")
    assert reader.get(f"/api/v1/campaigns/{cid}/webhooks").status_code == 200
    assert reader.post(f"/api/v1/campaigns/{cid}/webhooks", json={"url": receiver.url}).status_code == 403
    assert gm_bot.delete(f"/api/v1/campaigns/{cid}/webhooks/{kept['webhook_id']}").status_code == 200


def test_deleting_a_campaign_takes_its_webhooks_and_outbox_with_it(receiver: Receiver, tmp_path: Any) -> None:
    app = app_with(store=open_store(f"sqlite:///{tmp_path / 'gone.db'}"))
    cid, m = table(app)
    made = hook(m["gm"], cid, receiver.url + "/in", "json", "bot")
    m["pat"].command(cid, type="table.roll", expression="1d8")
    app.state.services.table.delete_campaign(cid, m["gm"].user_id)
    store = app.state.courier.store
    assert store.webhook(made["webhook_id"]) is None and store.deliveries(made["webhook_id"]) == []
    assert drain(app) == 0


def test_names_and_lines_reach_discord_as_typed_never_as_formatting_or_a_mention() -> None:
    from herotable.server.webhooks import Told, discord_body, plain

    assert plain("**Bold** <@&123> ~~x~~ [link](http://e.x)") == (
        r"\*\*Bold\*\* \<@&123\> \~\~x\~\~ \[link\]\(http://e.x\)"
    )
    told = Told("action", "c", "Camp", None, "k", "", "@everyone", "Dice", ("@here rolls *big*",), ((6, 3),))
    body = discord_body(told)
    assert body["allowed_mentions"] == {"parse": []}  # nobody is pinged, whatever a name says
    assert body["embeds"][0]["description"] == r"@here rolls \*big\*"
    assert body["embeds"][0]["fields"] == [{"name": "Dice", "value": "d6 **3**", "inline": False}]
