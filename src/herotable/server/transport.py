"""uvicorn's HTTP protocol with Nagle's algorithm off on every connection, however the listening socket was made.

asyncio turns Nagle's algorithm off (TCP_NODELAY) on the TCP connections it accepts, but only when the socket says
it is TCP (`proto` 6). The socket uvicorn binds itself for several workers is made with protocol 0, so on those
connections Nagle stays on: an answer written in two parts (head, then body) waits for the client's delayed
acknowledgement of the first, about 40 ms, on every request. `herotable serve` runs with this protocol, one worker
or many. Each process freezes its start-up heap before it serves, too (`freeze_start_up_heap`), keeps what outlives a
full garbage collection out of the next ones (`tenure_survivors`), and has the C library give large blocks back to
the system as soon as they are freed (`give_large_blocks_back`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import gc
import os
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


TENURED_GROWTH = 1.0  # how much the frozen objects may grow between complete collections, as a share of the last


def resident_bytes() -> int | None:
    """This process's resident memory (Linux: /proc/self/statm), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


class Tenure:
    """Keep what outlived a full garbage collection out of the next ones, until the heap has doubled.

    A server holding many live sockets carries a large heap of long-lived objects (about 200 for each socket: its
    tasks, coroutines and buffers; 4,000 sockets make 770,000), and CPython walks all of them in each full
    collection, with the process standing still: 300 to 500 ms on a small machine. It runs one whenever a quarter as
    many objects as the heap holds have reached its oldest generation, counting those that died since: the states
    each command replaces do, so a busy table server stalled every half minute (`make bench`, `tables`).

    Installed as a `gc` callback: after each full collection, what survived it is frozen (`gc.freeze`), so the next
    full collection walks only what came since (tens of milliseconds). A frozen object is freed as usual once
    nothing refers to it, so the states replaced leave the frozen objects as many as before; garbage in a cycle
    among them stays, until a complete collection. So once the frozen objects number `1 + growth` times what the
    last complete collection left, or the process's resident memory is `1 + growth` times what it was then (a small
    cycle may hold a large buffer), they are all unfrozen, and the next full collection walks everything, frees
    that garbage, and freezes what is left. Garbage in cycles is so held below `growth` times the heap that was
    alive, in objects and in bytes (at 1, the heap at most doubles, as with a copying collector); a heap that only
    grows is walked whole each time it doubles.

    Where the collector is not generational (CPython's free-threaded or incremental builds run no full collection on
    their own), the callback is never called but by `gc.collect()`, and changes nothing of note."""

    def __init__(self, growth: float = TENURED_GROWTH) -> None:
        if growth <= 0:
            raise ValueError(f"growth must be above 0, not {growth}")
        self.growth = growth
        self.base = gc.get_freeze_count()  # what the last complete collection left (at first: the frozen start-up)
        self.resident_base = resident_bytes()  # the resident memory then (None: not known here)
        self.kept = 0  # objects frozen since by partial collections, less those found dead at the last count
        self.walking_all = False  # unfrozen: the next full collection is complete
        self.complete = 0  # complete collections since installed
        self.partial = 0  # full collections of only what came since the last freeze
        self.counted = 0  # walks through the frozen objects to count them

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase != "stop" or info.get("generation") != 2:
            return
        # right after a full collection its survivors are all in the oldest generation, and only they (those of
        # earlier ones are frozen): counting them walks only them (after a complete one, everything: what it left)
        survivors = len(gc.get_objects(2))
        gc.freeze()
        if self.walking_all:
            self.walking_all = False
            self.complete += 1
            self.base, self.kept, self.resident_base = survivors, 0, resident_bytes()
            return
        self.partial += 1
        self.kept += survivors
        if self._grown_past(resident_bytes(), self.resident_base) or (
            self.kept > self.base * self.growth and self._counted_past()
        ):
            gc.unfreeze()  # into the oldest generation: the next full collection walks everything
            self.walking_all = True

    def _grown_past(self, now: int | None, then: int | None) -> bool:
        return now is not None and then is not None and now > then * (1 + self.growth)

    def _counted_past(self) -> bool:
        """Whether the frozen objects grew past the bound: counted (a walk through them all, 10 to 90 ms for
        900,000), so only once what was frozen since could have taken them there."""
        self.counted += 1
        grown = gc.get_freeze_count() - self.base
        if grown > self.base * self.growth:
            return True
        self.kept = max(grown, 0)  # most of what was frozen has died since (replaced states): count on from here
        return False


def tenure_survivors(growth: float = TENURED_GROWTH) -> Tenure:
    """Install a `Tenure` in this process (once: a second call gives the one installed). Called by
    `ready_to_serve`, before the process serves."""
    for callback in gc.callbacks:
        if isinstance(callback, Tenure):
            return callback
    tenure = Tenure(growth)
    gc.callbacks.append(tenure)
    return tenure


def ready_to_serve() -> None:
    """What each serving process does once its app is built, before it serves: its start-up heap frozen
    (`freeze_start_up_heap`), what outlives a full collection kept out of the next ones (`tenure_survivors`), large
    blocks given back to the system when freed (`give_large_blocks_back`)."""
    freeze_start_up_heap()
    tenure_survivors()
    give_large_blocks_back()


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter: allocations of at least this many bytes are mapped on their own
LARGE_BLOCK_BYTES = 1024 * 1024


def give_large_blocks_back() -> bool:
    """Have the C library map every allocation of LARGE_BLOCK_BYTES or more on its own, so that freeing it gives it
    back to the system at once. glibc does so by default only until a large block is freed, then raises its threshold
    to that block's size (up to 32 MiB) and serves later ones from heaps that keep what they held: 12 portrait uploads
    decoded two at a time (`make bench`, `portraits`) peaked 20 to 100 MiB above the two decodes the slots allow, and
    the server kept up to 200 MiB after they were done. Called once, before the process serves; whether it applied
    (False with another C library)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES))
