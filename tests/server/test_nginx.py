"""herotable behind a real nginx (Debian's package) speaking TLS, configured by the very block docs/operations.md
gives: a Chromium logs in over https, opens the table, rolls, and another player's page receives the live frame
through the proxy. Also: the Caddyfile and the systemd unit of the docs pass their own tools' checks where those are
installed."""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from .test_browser import ARGS, CHROMIUM, WAIT_MS, Player, Server, open_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
HEROTABLE = str(Path(sys.executable).with_name("herotable"))
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PASSWORD = "through-the-proxy-0123"


def docs_block(language: str) -> str:
    """The first fenced block of `language` in docs/operations.md."""
    found = re.search(rf"```{language}\n(.*?)```", DOCS.read_text(), re.S)
    assert found, f"docs/operations.md has no {language} block"
    return found.group(1)


def certificate(where: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1, made for this test only."""
    crt, key = where / "table.crt", where / "table.key"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(crt)],
        check=True, capture_output=True,
    )  # fmt: skip
    return crt, key


def nginx_conf(where: Path, upstream: int, listening: socket.socket) -> Path:
    """A whole nginx.conf around the docs' block: its certificate, its upstream and its port swapped for the test's,
    every file nginx writes kept in `where`."""
    crt, key = certificate(where)
    port = listening.getsockname()[1]
    block = (
        docs_block("nginx")
        .replace("server 127.0.0.1:8000;", f"server 127.0.0.1:{upstream};")
        .replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
        .replace("/etc/letsencrypt/live/table.example/fullchain.pem", str(crt))
        .replace("/etc/letsencrypt/live/table.example/privkey.pem", str(key))
    )
    assert f"127.0.0.1:{upstream}" in block and str(crt) in block and f":{port} ssl" in block
    temp = "".join(
        f"    {kind}_temp_path {where / kind};\n" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = where / "nginx.conf"
    conf.write_text(
        f"pid {where / 'nginx.pid'};\nerror_log {where / 'error.log'} warn;\nevents {{}}\n"
        f"http {{\n    access_log off;\n{temp}{block}}}\n"
    )
    return conf


@pytest.fixture
def herotable(tmp_path: Path) -> Iterator[Callable[[dict[str, str]], int]]:
    """`herotable serve` on a port of the system's choosing, with the given settings; gives its port."""
    running: list[subprocess.Popen[str]] = []

    def start(env: dict[str, str]) -> int:
        process = subprocess.Popen(
            [HEROTABLE, "serve", "--port", "0"],
            env={**os.environ, "HEROTABLE_DATA_DIR": str(tmp_path / "data"), **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        running.append(process)
        assert process.stderr is not None
        for line in process.stderr:
            if found := re.search(r"running on http://127\.0\.0\.1:(\d+)", line):
                threading.Thread(target=process.stderr.read, daemon=True).start()
                return int(found.group(1))
        pytest.fail(f"herotable serve ended (exit code {process.wait()}) without listening")

    yield start
    for process in running:
        process.terminate()
        process.wait(20)


@pytest.fixture
def nginx(tmp_path: Path, needs: Callable[[str], None]) -> Iterator[Callable[[int, socket.socket], None]]:
    """nginx on a socket the test has bound and listens on (handed over as nginx's own upgrade does, through the
    NGINX variable), so it is reachable the moment it starts and no port is raced for."""
    if not Path(NGINX).exists():
        needs("the proxy test needs Debian's nginx (apt-get install nginx; .ci/run does it)")
    running: list[subprocess.Popen[bytes]] = []

    def start(upstream: int, listening: socket.socket) -> None:
        listening.set_inheritable(True)
        conf = nginx_conf(tmp_path, upstream, listening)
        checked = subprocess.run([NGINX, "-t", "-c", str(conf), "-p", str(tmp_path)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        fd = listening.fileno()
        running.append(
            subprocess.Popen(
                [NGINX, "-c", str(conf), "-p", str(tmp_path), "-g", "daemon off;"],
                env={**os.environ, "NGINX": f"{fd};"},
                pass_fds=(fd,),
                stderr=subprocess.DEVNULL,
            )
        )
        listening.close()  # nginx holds its own copy

    yield start
    for process in running:
        process.terminate()
        process.wait(20)


class TlsPlayer(Player):
    """A player whose browser accepts the test's own certificate."""

    def __init__(self, browser: Any, server: Server, name: str) -> None:
        super().__init__(browser, server, name)
        self.context.close()
        self.context = browser.new_context(ignore_https_errors=True, viewport={"width": 1280, "height": 900})
        self.context.set_default_timeout(WAIT_MS)
        self.page = self.context.new_page()
        self.page.on("pageerror", lambda err: self.errors.append(str(err)))

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """A call from this browser (its cookies), with the CSRF token of its session."""
        token = self.context.request.get(f"{self.server.url}/api/v1/csrf").json()["csrf_token"]
        answer = self.context.request.fetch(
            f"{self.server.url}{path}", method=method, data=body, headers={"X-CSRF-Token": token}
        )
        assert answer.ok, answer.text()
        return answer.json()


@pytest.fixture(scope="module")
def browser(needs: Callable[[str], None]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        needs("browser tests need Debian's Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run does it)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


def test_a_table_plays_live_through_nginx_with_tls(herotable: Any, nginx: Any, browser: Any) -> None:
    listening = socket.socket()  # nginx's socket, bound first: its port is in the public URL herotable is told
    listening.bind(("127.0.0.1", 0))
    listening.listen(128)
    url = f"https://127.0.0.1:{listening.getsockname()[1]}"
    upstream = herotable(
        {
            "HEROTABLE_PUBLIC_URL": url,
            "HEROTABLE_TRUSTED_PROXIES": "127.0.0.1",
            "HEROTABLE_HASH_MEMORY_KIB": "256",
            "HEROTABLE_HASH_ROUNDS": "1",
        }
    )
    nginx(upstream, listening)
    server = Server(url)

    gm, ana = TlsPlayer(browser, server, "Gwen"), TlsPlayer(browser, server, "Ana")
    for player in (gm, ana):
        player.api(
            "POST",
            "/api/v1/auth/register",
            {"username": player.name.lower(), "display_name": player.name, "password": PASSWORD},
        )
    gm.context.clear_cookies()
    gm.goto("/login")  # Gwen logs in through the page, over https
    gm.page.fill("#login-username", "gwen")
    gm.page.fill("#login-password", PASSWORD)
    gm.page.click("form[action='/login'] button[type=submit]")
    expect(gm.page.locator("body")).to_contain_text("Gwen")
    session = [c for c in gm.context.cookies() if c["httpOnly"]]
    assert session and all(c["secure"] for c in session)  # an https public URL: Secure cookies

    cid = gm.api("POST", "/api/v1/campaigns", {"name": "Through the Proxy", "ruleset": "ltl"})["campaign_id"]
    invite = gm.api("POST", f"/api/v1/campaigns/{cid}/invites", {"role": "player"})
    assert invite["link"].startswith(f"{url}/join/")
    ana.api("POST", f"/api/v1/join/{invite['code']}", {})

    for player in (gm, ana):
        open_table(player, f"{url}/campaigns/{cid}")  # "live": the WebSocket came up through nginx
    gm.act("bar", "table.roll", {"expression": "3d6"})
    expect(ana.page.locator("#log")).to_contain_text("3d6")  # the live frame reached Ana through the proxy
    assert not gm.errors and not ana.errors, gm.errors + ana.errors

    # a page of another origin gets no socket through the proxy, even with Gwen's cookie
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in gm.context.cookies())
    insecure = ssl.create_default_context()
    insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE
    with pytest.raises(InvalidStatus) as refused:  # closed before it was accepted: the handshake answers 403
        connect(
            f"wss{url.removeprefix('https')}/ws/campaigns/{cid}",
            ssl=insecure,
            origin="https://evil.example",  # type: ignore[arg-type]
            additional_headers={"Cookie": cookie},
        )
    assert refused.value.response.status_code == 403
    with connect(  # the same from the public URL's origin opens
        f"wss{url.removeprefix('https')}/ws/campaigns/{cid}",
        ssl=insecure,
        origin=url,  # type: ignore[arg-type]
        additional_headers={"Cookie": cookie},
    ) as ws:
        assert '"hello"' in str(ws.recv(timeout=WAIT_MS / 1000))


def test_the_docs_caddyfile_is_valid(tmp_path: Path) -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("Caddy is not installed here; the nginx configuration is checked always")
    (tmp_path / "Caddyfile").write_text(docs_block("caddy"))
    checked = subprocess.run([caddy, "validate", "--config", str(tmp_path / "Caddyfile")], capture_output=True)
    assert checked.returncode == 0, checked.stderr


def test_the_docs_systemd_units_are_valid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd is not installed here; the nginx configuration is checked always")
    units = re.findall(r"```ini\n# /etc/systemd/system/(\S+)\n(.*?)```", DOCS.read_text(), re.S)
    assert [name for name, _ in units] == ["herotable.service", "herotable-backup.service", "herotable-backup.timer"]
    for name, unit in units:
        assert "/opt/herotable/bin/herotable" in unit or name.endswith(".timer")
        (tmp_path / name).write_text(unit.replace("/opt/herotable/bin/herotable", HEROTABLE))
    paths = [str(tmp_path / name) for name, _ in units]
    checked = subprocess.run([analyze, "verify", *paths], capture_output=True, text=True)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr
    environment = re.search(r"```sh\n# /etc/herotable/herotable.env\n(.*?)```", DOCS.read_text(), re.S)
    assert environment is not None
    from herotable.server.settings import Settings

    pairs = [line.split("=", 1) for line in environment.group(1).splitlines() if line.strip()]
    assert pairs and all(name.removeprefix("HEROTABLE_").lower() in Settings.model_fields for name, _ in pairs)
    for name, value in pairs:
        monkeypatch.setenv(name, value)
    loaded = Settings.load()  # every value there is one the server takes
    assert loaded.workers == 2 and loaded.cookies_secure and loaded.log_format == "json"
