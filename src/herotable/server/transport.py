"""uvicorn's HTTP protocol with Nagle's algorithm off on every connection, however the listening socket was made.

asyncio turns Nagle's algorithm off (TCP_NODELAY) on the TCP connections it accepts, but only when the socket says
it is TCP (`proto` 6). The socket uvicorn binds itself for several workers is made with protocol 0, so on those
connections Nagle stays on: an answer written in two parts (head, then body) waits for the client's delayed
acknowledgement of the first, about 40 ms, on every request. `herotable serve` runs with this protocol, one worker
or many. Each process freezes its start-up heap before it serves, too (`freeze_start_up_heap`).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

NO_DELAY_HTTP = "herotable.server.transport:NoDelayHTTP"  # as uvicorn's `http` option (workers import it by name)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """Turn Nagle's algorithm off on a TCP connection (nothing for another kind, or one already closed)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):  # the peer is gone already: nothing to send faster
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTP(AutoHTTPProtocol):  # type: ignore[misc,valid-type]  # uvicorn picks the class it names at import
    """uvicorn's own HTTP protocol (httptools or h11, as uvicorn chooses), with TCP_NODELAY set on connecting; a
    WebSocket upgraded from it keeps the setting."""

    def connection_made(self, transport: Any) -> None:
        no_delay(transport)
        super().connection_made(transport)


def freeze_start_up_heap() -> None:
    """Keep the objects made at start-up out of every later garbage collection: the modules, the rules' tables and
    the templates, about 150,000 objects that live as long as the process. A full collection walks every object it
    tracks with the process standing still (100 ms or more for these on a small machine, stalling every request in
    flight); frozen, they are never walked again. Called once the app is built, before it serves."""
    gc.collect()
    gc.freeze()
