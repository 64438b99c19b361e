"""Answers are not held back by Nagle's algorithm, one worker or many (docs/web.md, "Several processes")."""

from __future__ import annotations

import asyncio
import platform
import socket

import pytest
import uvicorn
from uvicorn.protocols.http.auto import AutoHTTPProtocol
from uvicorn.server import ServerState

from herotable.server.transport import NO_DELAY_HTTP, NoDelayHTTP


async def _no_delay_of_accepted(protocol: type[asyncio.Protocol]) -> int:
    """TCP_NODELAY on the server side of one connection accepted, with `protocol`, on a socket bound as uvicorn binds
    it for several workers (`socket.socket(AF_INET)`: protocol 0, which asyncio does not take for TCP)."""
    listening = socket.socket(socket.AF_INET)
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    assert listening.proto == 0
    config = uvicorn.Config(lambda scope, receive, send: None, log_level="warning")
    config.load()
    state = ServerState()
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(protocol):  # type: ignore[misc,valid-type]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            if not seen.done():
                seen.set_result(transport.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    server = await asyncio.get_running_loop().create_server(
        lambda: Probe(config=config, server_state=state, app_state={}), sock=listening
    )
    try:
        _, writer = await asyncio.open_connection(*listening.getsockname())
        got = await asyncio.wait_for(seen, 10)
        writer.close()
        return got
    finally:
        server.close()
        for connection in list(state.connections):
            connection.shutdown()
        await server.wait_closed()


def test_the_served_protocol_turns_nagle_off_on_a_socket_uvicorn_bound_for_workers() -> None:
    assert asyncio.run(_no_delay_of_accepted(NoDelayHTTP)) == 1


def test_uvicorn_takes_the_protocol_by_the_name_serve_gives_it() -> None:
    # `herotable serve` names the class (workers import it by name): uvicorn must still load a class named so
    config = uvicorn.Config(lambda scope, receive, send: None, http=NO_DELAY_HTTP, log_level="warning")
    config.load()
    assert config.http_protocol_class is NoDelayHTTP


def test_uvicorn_s_own_protocol_leaves_nagle_on_there() -> None:
    # why the protocol exists: without it every answer from several workers waited ~40 ms for a delayed ACK
    if asyncio.run(_no_delay_of_accepted(AutoHTTPProtocol)) != 0:
        pytest.fail("uvicorn now turns Nagle off itself: NoDelayHTTP may go (server/transport.py)")


def test_each_served_worker_keeps_its_start_up_heap_out_of_garbage_collection(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A full garbage collection walks every object it tracks with the process standing still: the app's start-up
    objects (modules, the rules' tables, templates) are frozen once it is built, so it walks only what came after."""
    import os
    import subprocess
    import sys

    probe = (
        "import gc; from herotable.server.app import served_app; from herotable.server.transport import Tenure; "
        "served_app(); print(gc.get_freeze_count(), len(gc.get_objects()), "
        "sum(isinstance(c, Tenure) for c in gc.callbacks))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEROTABLE_")}
    env.update(HEROTABLE_DATABASE_URL=f"sqlite:///{tmp_path / 'w.db'}", HEROTABLE_DATA_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    frozen, walked, tenures = map(int, done.stdout.split())
    assert frozen > 50_000  # the start-up heap: well over a hundred thousand objects
    assert walked < frozen / 20  # what a collection still walks
    assert tenures == 1  # and what outlives a full collection is kept out of the next ones (`Tenure`), once


TENURE_PROBE = """
import gc, json, weakref
from herotable.server.transport import Tenure, tenure_survivors

gc.collect()
gc.freeze()
base = max(gc.get_freeze_count(), 20_000)
tenure = tenure_survivors(growth=1.0)
tenure.base = base  # the bound, whatever this interpreter's start-up left frozen
seen = {"again": tenure_survivors() is tenure, "installed": sum(isinstance(c, Tenure) for c in gc.callbacks)}

class Node:
    pass

def ring():  # two objects that refer to each other: only a collection that walks them frees them
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a

kept = [[n] for n in range(base // 4)]  # long-lived: they outlive a full collection
rings = [ring() for _ in range(100)]
frozen = gc.get_freeze_count()
gc.collect(0)
gc.collect(1)
seen["younger_ignored"] = (tenure.partial, gc.get_freeze_count() == frozen)
gc.collect()
seen["kept_frozen"] = gc.get_freeze_count() - frozen >= len(kept) + 200
seen["first"] = (tenure.partial, tenure.complete, tenure.walking_all)
probe = weakref.ref(rings[0])
del rings  # garbage now, in cycles among frozen objects
gc.collect()
seen["cycle_waits"] = probe() is not None
for _ in range(6):  # as many objects again as the base, each time replacing the last (as states are): no growth
    churn = [[n] for n in range(base // 2)]
    gc.collect()
seen["churn"] = (tenure.partial, tenure.complete, tenure.walking_all, probe() is not None, tenure.counted > 0)
more = [[n] for n in range(base)]  # now the frozen objects grow past twice the base
gc.collect()
seen["over"] = (tenure.partial, tenure.walking_all)
gc.collect()  # complete: it walks everything, frees the cycles, and freezes what is left
seen["cycle_freed"] = probe() is None
seen["complete"] = (tenure.complete, tenure.walking_all, tenure.base >= len(kept) + len(more) + len(churn))
seen["all_frozen_again"] = gc.get_freeze_count() >= len(kept) + len(more) + len(churn)
print(json.dumps(seen))
"""


def test_what_outlives_a_full_collection_is_kept_out_of_the_next_until_it_doubles() -> None:
    """A server with thousands of sockets holds hundreds of thousands of long-lived objects, and each full collection
    walked them all (300 to 500 ms on a small machine, every half minute under load). `Tenure` freezes what survived
    each full collection, so the next walks only what came since; objects replaced (as each command replaces its
    campaign's state) leave the frozen as many as before; once the frozen objects are twice what the last complete
    collection left, all are unfrozen, so the next full collection frees the garbage in cycles among them. Run in a
    process of its own: the collector's state is the process's."""
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", TENURE_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["again"] and seen["installed"] == 1  # installed once
    assert seen["younger_ignored"] == [0, True]  # a young generation's collection changes nothing
    assert seen["kept_frozen"]  # the survivors of a full collection are frozen
    assert seen["first"] == [1, 0, False]  # a partial collection, below the bound
    assert seen["cycle_waits"]  # cyclic garbage among the frozen is not walked by a partial collection...
    assert seen["churn"] == [8, 0, False, True, True]  # ...nor after objects replaced, however many (counted)...
    assert seen["over"] == [9, True]  # ...until the frozen objects doubled: everything is unfrozen
    assert seen["cycle_freed"]  # ...and the next full collection frees it
    assert seen["complete"] == [1, False, True]  # counted, the bound now from what it left
    assert seen["all_frozen_again"]


RESIDENT_PROBE = """
import gc, json, weakref
from herotable.server.transport import resident_bytes, tenure_survivors

gc.collect()
gc.freeze()
tenure = tenure_survivors(growth=1.0)
start = {"base": tenure.base, "resident": tenure.resident_base}

class Node:
    pass

def ring(payload):  # a cycle of two objects holding a large buffer, as a closed socket may
    a, b = Node(), Node()
    a.other, b.other, a.payload = b, a, payload
    return a

megabytes = tenure.resident_base // (1 << 20) + 16  # more than the whole resident memory at the start
rings = [ring(bytearray(1 << 20)) for _ in range(megabytes)]
probe = weakref.ref(rings[0])
gc.collect()  # partial: the objects grew by a few hundred, the resident memory more than doubled
seen = {
    "objects_grown": tenure.kept,  # what this partial collection froze, before unfreezing everything
    "over": (tenure.partial, tenure.walking_all, tenure.counted),
}
del rings  # garbage, in cycles: only a collection that walks them frees them and their buffers
gc.collect()  # complete
seen["freed"] = (probe() is None, tenure.complete, tenure.walking_all)
seen["resident_back"] = resident_bytes() < start["resident"] + (megabytes << 20) // 2
seen["start"] = start
print(json.dumps(seen))
"""


def test_a_heap_whose_resident_memory_doubled_is_walked_whole_though_its_objects_did_not() -> None:
    """Garbage in a cycle of a few objects may hold a large buffer (a closed socket's): counting objects alone, the
    frozen ones would let gigabytes of it wait. A doubling of the process's resident memory since the last complete
    collection unfreezes them too."""
    import json
    import subprocess
    import sys

    if sys.platform != "linux":
        pytest.skip("the resident memory is read from /proc")
    done = subprocess.run([sys.executable, "-c", RESIDENT_PROBE], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["start"]["resident"] > 0
    assert 0 < seen["objects_grown"] < seen["start"]["base"]  # far from doubling the frozen objects...
    assert seen["over"] == [1, True, 0]  # ...but the resident memory doubled: unfrozen, without a count
    assert seen["freed"] == [True, 1, False]  # the next full collection walked them all and freed the cycles
    assert seen["resident_back"]  # and their buffers


def test_tenure_refuses_a_growth_that_would_never_walk_everything_again() -> None:
    from herotable.server.transport import Tenure

    with pytest.raises(ValueError, match="growth must be above 0"):
        Tenure(0)


KEPT_PROBE = """
from herotable.server.transport import give_large_blocks_back
def resident():
    return int([l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]) // 1024
applied = give_large_blocks_back() if {give} else None
before = resident()
for _ in range(3):  # a large block freed, as a decoded picture is, then another of the same size
    block = bytearray(16 * 1024 * 1024)
    del block
print(applied, resident() - before)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the threshold is glibc's")
def test_a_large_block_freed_goes_back_to_the_system() -> None:
    """glibc keeps a large block once one of its size was freed; a served process has it give them back, so the
    memory of a decoded portrait is the system's again when the decode ends."""
    import subprocess
    import sys

    def kept(give: bool) -> tuple[str, int]:
        probe = KEPT_PROBE.format(give=give)
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
        applied, mib = done.stdout.split()
        return applied, int(mib)

    applied, mib = kept(True)
    assert applied == "True" and mib <= 1
    if kept(False)[1] < 16:  # why it is needed: with glibc's own threshold the block stays in the process
        pytest.fail("glibc now gives large freed blocks back itself: give_large_blocks_back may go (transport.py)")
