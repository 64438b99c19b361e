"""The API's documentation pages, /docs (Swagger UI) and /redoc (ReDoc), served from this server alone: their
scripts and styles come from the fastapi-offline package (no CDN, so they work offline), and the pages hold no
inline script, so the app's Content-Security-Policy lets them run. ReDoc's page also lets it start its search in a
worker of its own (`worker-src blob:`), and its script is served with the one address it would fetch from
elsewhere (its maker's logo) pointed at this server's icon."""

from __future__ import annotations

import functools
from importlib.resources import files

from fastapi import APIRouter, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from herotable.server.limits import SECURITY_HEADERS

ASSETS = "/static/apidocs"
router = APIRouter(include_in_schema=False)


def assets() -> StaticFiles:
    """Swagger UI's and ReDoc's files, as fastapi-offline packs them."""
    return StaticFiles(packages=[("fastapi_offline", "static")])


def _page(title: str, head: str, body: str) -> HTMLResponse:
    return HTMLResponse(
        f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{title} · herotable API</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  {head}
</head>
<body>
{body}
</body>
</html>
"""
    )


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui() -> HTMLResponse:
    """Swagger UI over /openapi.json: try each operation from the page (log in first in another tab)."""
    return _page(
        "Swagger UI",
        f'<link rel="stylesheet" href="{ASSETS}/swagger-ui.css">',
        f'<div id="swagger-ui"></div>\n<script src="{ASSETS}/swagger-ui-bundle.js"></script>\n'
        '<script src="/static/apidocs.js"></script>',
    )


REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
_CSP = dict(SECURITY_HEADERS)[b"content-security-policy"].decode()
REDOC_CSP = _CSP.replace("default-src 'self';", "default-src 'self'; worker-src 'self' blob:;")


@router.get("/redoc", response_class=HTMLResponse)
def redoc() -> HTMLResponse:
    """ReDoc over /openapi.json: the whole API on one page."""
    page = _page(
        "ReDoc",
        "",
        f'<redoc spec-url="/openapi.json"></redoc>\n<script src="{ASSETS}/redoc.standalone.js"></script>',
    )
    page.headers["content-security-policy"] = REDOC_CSP
    return page


@functools.cache
def _redoc_script() -> bytes:
    text = (files("fastapi_offline") / "static" / "redoc.standalone.js").read_text(encoding="utf-8")
    return text.replace(REDOC_LOGO, "/static/favicon.svg").encode()


@router.get(f"{ASSETS}/redoc.standalone.js")
def redoc_script() -> Response:
    return Response(_redoc_script(), media_type="text/javascript", headers={"cache-control": "public, max-age=86400"})
