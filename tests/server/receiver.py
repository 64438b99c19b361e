"""A webhook receiver on 127.0.0.1 for the tests: it records every request and answers as the test scripts it (200 by
default, with a Discord-like message id; or a status, headers and body; or no answer until the test lets it go)."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .clients import listening_socket, port_of


@dataclass
class Got:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    answer: bytes = b""  # what the receiver answered

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Hang:
    """Answer nothing until `released` is set (the test sets it); `entered` is set once the request is held."""

    entered: threading.Event = field(default_factory=threading.Event)
    released: threading.Event = field(default_factory=threading.Event)


class Receiver:
    def __init__(self) -> None:
        self.got: list[Got] = []
        self.script: deque[tuple[int, dict[str, str], bytes] | Hang] = deque()
        self.always: tuple[int, dict[str, str], bytes] | None = None
        self._messages = 0
        self._lock = threading.Lock()
        self.hangs: list[Hang] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _any(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(size)
                got = Got(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                status, headers, answer = receiver.answer(got)
                got.answer = answer
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            do_POST = do_PATCH = do_GET = _any

        self.listening = listening_socket()
        self.server = ThreadingHTTPServer(("127.0.0.1", port_of(self.listening)), Handler, bind_and_activate=False)
        self.server.socket.close()
        self.server.socket = self.listening
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # a client that gave up waiting: not an error here
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{port_of(self.listening)}"

    def answer(self, got: Got) -> tuple[int, dict[str, str], bytes]:
        with self._lock:
            self.got.append(got)
            scripted = self.script.popleft() if self.script else self.always
        if isinstance(scripted, Hang):
            scripted.entered.set()
            scripted.released.wait()
            return 200, {}, b""
        if scripted is not None:
            return scripted
        with self._lock:
            self._messages += 1
            number = self._messages
        if got.method == "PATCH":
            return 200, {"Content-Type": "application/json"}, json.dumps({"id": got.path.split("/")[-1]}).encode()
        return 200, {"Content-Type": "application/json"}, json.dumps({"id": f"m{number}"}).encode()

    def hang(self) -> Hang:
        held = Hang()
        self.hangs.append(held)
        self.script.append(held)
        return held

    def close(self) -> None:
        for held in self.hangs:
            held.released.set()
        self.server.shutdown()
        self.server.server_close()
