"""What a request asks of Redis fails fast: once Redis has failed it is left alone for a moment (the requests fall back
to the database meanwhile), then one request tries it again; an outage is logged once."""

from __future__ import annotations

import logging
import socket
from typing import Any

import pytest
import redis

from herotable.server.redis_link import BACK_OFF_S, RedisAway, RedisLink

from .clients import anonymous, make_app, register
from .test_account_security import login


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_failed_redis_is_left_alone_for_a_moment_then_one_request_tries_it_again(caplog: Any) -> None:
    ticks = Ticks()
    link = RedisLink("redis://127.0.0.1:9/0", ticks=ticks)  # never asked: the requests below stand in for Redis
    asked: list[str] = []

    def fails(client: Any) -> str:
        asked.append("fails")
        raise redis.exceptions.ConnectionError("gone")

    def answers(client: Any) -> str:
        asked.append("answers")
        return "pong"

    def probing(client: Any) -> str:  # while one request tries Redis again, the others do not wait for it
        with pytest.raises(RedisAway):
            link.ask(answers)
        return fails(client)

    caplog.set_level(logging.INFO, logger="herotable.server.redis_link")
    assert link.ask(answers) == "pong"
    with pytest.raises(RedisAway):
        link.ask(fails)
    ticks.now += BACK_OFF_S - 0.01
    with pytest.raises(RedisAway):
        link.ask(answers)  # left alone
    ticks.now += 0.01
    with pytest.raises(RedisAway):
        link.ask(probing)  # tried again, and still away
    ticks.now += BACK_OFF_S
    assert link.ask(answers) == "pong" and link.ask(answers) == "pong"  # back: asked every time
    assert asked == ["answers", "fails", "fails", "answers", "answers"]
    with pytest.raises(RedisAway):
        link.ask(fails)  # a new outage
    said = [(r.levelname, r.getMessage().split(" (")[0].split(":")[0]) for r in caplog.records]
    assert said == [("WARNING", "Redis is away"), ("INFO", "Redis answers again"), ("WARNING", "Redis is away")]


def test_a_redis_that_hangs_costs_one_request_a_short_wait_and_the_others_none() -> None:
    """A Redis that takes the connection and never answers (a hung server, a lost network): the first request gives up
    after a short timeout and counts in the database; the next ones, within the back-off, do not connect at all."""
    with socket.socket() as hung:
        hung.bind(("127.0.0.1", 0))
        hung.listen(8)  # the kernel completes connections; nothing ever reads or answers them
        app = make_app(redis_url=f"redis://127.0.0.1:{hung.getsockname()[1]}/0")
        register(app, "gwen")  # its registration waited for Redis, then counted without it
        client = anonymous(app)
        assert [login(client, "gwen", "wrong guess").status_code for _ in range(5)] == [401] * 5
        assert login(client, "gwen", "correct horse").status_code == 429  # counted, in the database
        hung.setblocking(False)
        waiting, _ = hung.accept()  # the one connection made
        waiting.close()
        with pytest.raises(BlockingIOError):
            hung.accept()  # and no other
