"""Behind a reverse proxy: whom a request came from, over which scheme, to which host, and whether a live socket's
Origin is this site.

`ForwardedHeaders` rewrites a request's client address, scheme and `Host` from `X-Forwarded-For`, `-Proto` and
`-Host`, but only when the TCP peer is one of the trusted proxies (`HEROTABLE_TRUSTED_PROXIES`); anyone else's
forwarded headers are ignored. It sits outside every other part of the app, so limits, links, cookies and the
Origin check all see the request as the proxy received it.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]
Network = ipaddress.IPv4Network | ipaddress.IPv6Network

HOST = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$")  # a name or address, and a port
DEFAULT_PORTS = {"http": 80, "https": 443}
ORIGINAL_PEER = "herotable.peer"  # in a rewritten request's scope: the trusted proxy's own address


def parse_proxies(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """The networks of `HEROTABLE_TRUSTED_PROXIES` (checked already by the settings)."""
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def address_of(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """An IP address, an IPv4 one written as IPv6 (`::ffff:127.0.0.1`) read as the IPv4 it is; None for no address."""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return mapped or ip


def within(text: str, networks: tuple[Network, ...]) -> bool:
    ip = address_of(text)
    return ip is not None and any(ip in network for network in networks)


def trusted(address: str, proxies: tuple[Network, ...]) -> bool:
    return within(address, proxies)


def forwarded_client(hops: list[str], proxies: tuple[Network, ...]) -> str | None:
    """The client among `X-Forwarded-For`'s hops: read from the right, the first that is not a trusted proxy."""
    for hop in reversed(hops):
        if not trusted(hop, proxies):
            return hop
    return hops[0] if hops else None


def _nearest(headers: list[tuple[bytes, bytes]], name: bytes) -> str:
    """The value the nearest proxy gave header `name`: the last of its comma-separated values over all its lines (a
    proxy that appends puts its own last; what came before may be the client's)."""
    values = [v.strip() for n, raw in headers if n == name for v in raw.decode("latin-1").split(",") if v.strip()]
    return values[-1] if values else ""


class ForwardedHeaders:
    """The request as the trusted proxy in front received it (see the module's docstring)."""

    def __init__(self, app: ASGIApp, proxies: tuple[Network, ...]) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        peer = scope.get("client")
        if scope["type"] in ("http", "websocket") and peer and self.proxies and trusted(peer[0], self.proxies):
            self._rewrite(scope)
        await self.app(scope, receive, send)

    def _rewrite(self, scope: Scope) -> None:
        headers: list[tuple[bytes, bytes]] = list(scope["headers"])
        hops = [
            hop.strip()
            for name, value in headers
            if name == b"x-forwarded-for"
            for hop in value.decode("latin-1").split(",")
            if hop.strip()
        ]
        client = forwarded_client(hops, self.proxies)
        scope[ORIGINAL_PEER] = scope["client"][0]
        if client is not None:
            scope["client"] = (client, 0)
        proto = _nearest(headers, b"x-forwarded-proto").lower()
        if proto in ("http", "https"):
            secure = proto == "https"
            scope["scheme"] = ("wss" if secure else "ws") if scope["type"] == "websocket" else proto
        host = _nearest(headers, b"x-forwarded-host")
        if host and HOST.match(host):
            scope["headers"] = [(n, v) for n, v in headers if n != b"host"] + [(b"host", host.encode("latin-1"))]


def origin_of(url: str) -> tuple[str, str, int] | None:
    """(scheme, host, port) of an address, the default port filled in; None when it is not http(s)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = {"ws": "http", "wss": "https"}.get(parts.scheme.lower(), parts.scheme.lower())
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


def same_site(origin: str, *, public_url: str | None, scheme: str, host: str | None) -> bool:
    """Whether a live socket's Origin is this site: scheme, host and port equal to the public URL's, or without one
    to the request's own scheme and `Host` (as a trusted proxy reports them)."""
    mine = origin_of(public_url) if public_url else origin_of(f"{scheme}://{host}") if host else None
    theirs = origin_of(origin)
    return mine is not None and theirs == mine
