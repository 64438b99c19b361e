"""The wheel is the product an operator installs: built from this checkout, installed into a fresh virtual
environment and started from an empty directory, it serves the front page, the rules reference (package data, not
the checkout's files), a login and a roll. The new environment borrows the test environment's dependencies through
a path file rather than downloading them again; herotable itself comes only from the wheel."""

from __future__ import annotations

import os
import shutil
import site
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
START_WAIT_S = 60  # a process start on a loaded machine; passing never waits it out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run(*cmd: str | Path, cwd: Path | None = None) -> str:
    done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{cmd}: {done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_wheel_installs_and_serves_rules_a_login_and_a_roll_from_an_empty_directory(tmp_path: Path) -> None:
    dist, venv, empty, source = tmp_path / "dist", tmp_path / "venv", tmp_path / "empty", tmp_path / "source"
    empty.mkdir()
    # built from a copy of what a build reads, so the checkout gains no build/ or egg-info of the test's
    for part in ("pyproject.toml", "README.md", "LICENSE"):
        (source / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / part, source / part)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", dist, source)
    [wheel] = dist.glob("herotable-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {"herotable/server/rules/ltl.md", "herotable/server/rules/conviction.md"} <= set(names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.startswith("herotable/bench")]  # the benches stay in the checkout

    _run(sys.executable, "-m", "venv", venv)
    python = venv / "bin" / "python"
    inside = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    (Path(inside) / "borrowed-dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run(venv / "bin" / "pip", "install", "-q", "--no-deps", "--no-index", wheel)
    assert _run(python, "-c", "import herotable; print(herotable.__file__)").startswith(str(venv))
    assert _run(venv / "bin" / "herotable", "--version").strip() == "herotable 0.1.0"

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HEROTABLE_")}
    server = subprocess.Popen(
        [str(venv / "bin" / "herotable"), "serve", "--port", str(port)],
        cwd=empty,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        client = httpx.Client(base_url=base, timeout=10)
        deadline = time.monotonic() + START_WAIT_S
        while True:
            try:
                front = client.get("/")
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stdout.read().decode() if server.stdout else "it stopped"
                assert time.monotonic() < deadline, "the installed server did not start"
                time.sleep(0.2)
        assert front.status_code == 200 and "herotable" in front.text
        rules = client.get("/rules")
        assert rules.status_code == 200 and 'id="R-LTL-9"' in rules.text and 'id="R-CV-4"' in rules.text
        csrf = client.get("/api/v1/csrf").json()["csrf_token"]
        headers = {"X-CSRF-Token": csrf}
        account = {"username": "gwen", "password": "correct horse battery", "display_name": "Gwen"}
        registered = client.post("/api/v1/auth/register", json=account, headers=headers)
        assert registered.status_code == 201, registered.text
        headers = {"X-CSRF-Token": registered.json()["csrf_token"]}
        made = client.post("/api/v1/campaigns", json={"name": "Harbour", "ruleset": "ltl"}, headers=headers)
        cid = made.json()["campaign_id"]
        rolled = client.post(
            f"/api/v1/campaigns/{cid}/commands", json={"type": "table.roll", "expression": "2d6"}, headers=headers
        )
        assert rolled.status_code == 200 and rolled.json()["events"][0]["type"] == "table.dice_rolled"
        assert (empty / "data").is_dir()  # its database and key live where it was started, not in the checkout
    finally:
        server.terminate()
        server.wait(timeout=30)
