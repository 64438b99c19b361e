"""Portrait uploads as an attack: many of the costliest uploads at once against the real server (`herotable serve`
on SQLite, in a process of its own, with its default settings), while a member asks `GET /api/v1/me` over and over.

Two pictures, each sent `uploads` times at once to a fresh server:

- **thin**: the attack that was found, a 32 KB PNG of 1 x 16,777,216 one-bit pixels (within the pixel limit; it took
  480 MB to decode before its shape was checked);
- **costliest**: the picture that is still taken and costs the most to decode, an RGBA PNG as large as the memory
  budget allows (`portrait_image.MAX_DECODE_BYTES`), square.

For each: how the uploads were answered (303 kept, 503 busy, 422 refused), how long they took, the server's resident
memory before them and at its peak while they ran (the kernel's high-water mark, reset before they start, and
sampled every 10 ms), and the latency of every `GET /api/v1/me` answered meanwhile. Goals: the peak at most 300 MiB
above the memory before; `GET /api/v1/me` answered within 1 s.

Run by `make bench` (`herotable.bench`, the `portraits` key of bench/results.json), or alone:
`python -m herotable.bench.portraits`.
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import os
import secrets
import statistics
import struct
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from herotable.bench.live import DATABASE_URL_ENV, _env, _herotable_command, _running, _Table
from herotable.ltl.samples import CAPTAIN_COMET
from herotable.server.portrait_image import MAX_DECODE_BYTES, decode_bytes
from herotable.server.settings import Settings

UPLOADS = 12
TARGETS = {"rss_increase_mib": "under 300", "me_max_ms": "at most 1000"}
MiB = 1024 * 1024


def thin_png(width: int = 1, height: int = 16_777_216) -> bytes:
    """The attack: a PNG of `width` x `height` black one-bit pixels, a few KB for millions of pixels."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (1 + (width + 7) // 8)
    packer = zlib.compressobj(9)
    rows = b"".join(packer.compress(row * 65_536) for _ in range(height // 65_536))
    rows += packer.compress(row * (height % 65_536)) + packer.flush()
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", rows) + chunk(b"IEND", b"")


def costliest_side() -> int:
    """The side of the largest square RGBA picture whose decoding is within the budget."""
    side = 1
    while decode_bytes(side + 1, side + 1, "RGBA", alpha=True) <= MAX_DECODE_BYTES:
        side += 1
    return side


def costliest_png(side: int) -> bytes:
    """An RGBA PNG of `side` x `side` pixels: a gradient, half transparent, small as a file."""
    from PIL import Image

    grey = Image.linear_gradient("L").resize((side, side))
    out = io.BytesIO()
    Image.merge("RGBA", (grey, grey, grey, grey.point(lambda v: v // 2 + 64))).save(out, "PNG")
    return out.getvalue()


# --- the server's memory, from /proc ---


def _status(pid: int, field: str) -> float:
    """A field of /proc/PID/status (VmRSS, VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"/proc/{pid}/status has no {field}")


def _reset_peak(pid: int) -> bool:
    """Set the process's high-water mark of resident memory to what it holds now (Linux 4.0 and later)."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


class _Sampler:
    """The largest of `read()` (resident memory, in MiB) seen every `every_s` seconds, in a thread of its own."""

    def __init__(self, read: Callable[[], float], every_s: float = 0.01) -> None:
        self.read = read
        self.every_s = every_s
        self.peak = read()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.peak = max(self.peak, self.read())

    def __enter__(self) -> _Sampler:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()


# --- one load on one server ---


def _ms(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "p50": round(1000 * statistics.median(ordered), 1),
        "max": round(1000 * ordered[-1], 1),
        "count": len(ordered),
    }


async def _load(http: str, pid: int, picture: bytes, uploads: int) -> dict[str, Any]:
    """`uploads` uploads of `picture` at once, by a GM to one character's portrait, while another member asks
    `GET /api/v1/me` one request after another until every upload is answered."""
    table = _Table(http)
    try:
        gm = await table.member("gamemaster")
        watcher = await table.member("watcher")
        created = await gm.post("/api/v1/campaigns", json={"name": "Portraits", "ruleset": "ltl"})
        created.raise_for_status()
        cid = created.json()["campaign_id"]
        made = await gm.post(
            f"/api/v1/campaigns/{cid}/commands",
            json={"type": "character.create_ltl", "character": "comet", "sheet": CAPTAIN_COMET, "npc": True},
        )
        made.raise_for_status()
        address = f"/campaigns/{cid}/portraits/comet"

        async def upload(data: bytes) -> tuple[int, float]:
            sent = time.perf_counter()
            answer = await gm.post(address, files={"portrait": ("portrait.png", data, "image/png")})
            return answer.status_code, time.perf_counter() - sent

        # warm: the route, Pillow's plugins and the session are loaded before anything is measured
        warm, _ = await upload(costliest_png(64))
        if warm != 303:
            raise RuntimeError(f"a small portrait was answered {warm}, not 303")
        for _ in range(20):
            (await watcher.get("/api/v1/me")).raise_for_status()

        done = asyncio.Event()
        me: list[float] = []
        me_failed: Counter[int] = Counter()

        async def ask() -> None:
            while not done.is_set():
                sent = time.perf_counter()
                answer = await watcher.get("/api/v1/me")
                me.append(time.perf_counter() - sent)
                if answer.status_code != 200:
                    me_failed[answer.status_code] += 1

        before = _status(pid, "VmRSS")
        reset = _reset_peak(pid)
        with _Sampler(functools.partial(_status, pid, "VmRSS")) as sampler:
            asking = asyncio.create_task(ask())
            await asyncio.sleep(0.05)  # a few answers before the uploads start
            answered = await asyncio.gather(*(upload(picture) for _ in range(uploads)))
            done.set()
            await asking
        peak = max(sampler.peak, _status(pid, "VmHWM") if reset else 0.0)
        return {
            "file_kb": round(len(picture) / 1024, 1),
            "answers": dict(sorted(Counter(str(status) for status, _ in answered).items())),
            "upload_ms": _ms([seconds for _, seconds in answered]),
            "rss_before_mib": round(before, 1),
            "rss_peak_mib": round(peak, 1),
            "rss_increase_mib": round(peak - before, 1),
            "rss_after_mib": round(_status(pid, "VmRSS"), 1),
            "peak_from": "the kernel's high-water mark and samples every 10 ms" if reset else "samples every 10 ms",
            "me_ms": _ms(me),
            "me_failed": dict(me_failed),
        }
    finally:
        await table.aclose()


def _served(picture: bytes, uploads: int, tmp: Path) -> dict[str, Any]:
    """A fresh server on SQLite in `tmp`, one load against it, and the server stopped."""
    tmp.mkdir(parents=True)
    env = _env(
        **{
            DATABASE_URL_ENV: f"sqlite:///{tmp / 'portraits.db'}",
            "HEROTABLE_DATA_DIR": str(tmp),
            "HEROTABLE_SECRET_KEY": secrets.token_urlsafe(32),
            "HEROTABLE_TRUSTED_PROXIES": "127.0.0.1",  # the bench's users come from addresses of their own
        }
    )
    serve = [*_herotable_command(), "serve"]
    with _running((serve, env, tmp / "herotable.log")) as (server,):
        http = server.ready()
        return asyncio.run(_load(http, server.process.pid, picture, uploads))


def portraits(uploads: int = UPLOADS) -> dict[str, Any]:
    """The figures of both loads, `uploads` at once each, with the settings they ran under."""
    started = time.perf_counter()
    side = costliest_side()
    pictures = {
        "thin": ("a PNG of 1 x 16,777,216 one-bit pixels", thin_png()),
        "costliest": (f"an RGBA PNG of {side} x {side} pixels, the largest within the budget", costliest_png(side)),
    }
    defaults = Settings()
    results: dict[str, Any] = {
        "machine": {"cores": os.cpu_count(), "load_average_1m_at_start": round(os.getloadavg()[0], 2)},
        "uploads_at_once": uploads,
        "image_slots": defaults.image_slots,
        "image_wait_s": defaults.image_wait_s,
        "max_decode_mib": MAX_DECODE_BYTES / MiB,
        "targets": TARGETS,
    }
    with tempfile.TemporaryDirectory(prefix="herotable-bench-portraits-") as tmp:
        for key, (what, picture) in pictures.items():
            results[key] = {"picture": what, **_served(picture, uploads, Path(tmp, key))}
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


if __name__ == "__main__":
    print(json.dumps(portraits(), indent=2))
