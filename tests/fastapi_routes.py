"""Each route an app includes from a router is built once per test process, not once per app.

FastAPI (0.16x) builds every route of an included router anew for each app that includes it: the pydantic models of
its parameters, body and answer, and its request handler; a sixth of a second of CPU for herotable's routes, paid at
an app's first requests and first link made with `url_for`. The tests make hundreds of apps from the same routers,
and that building was a large share of the suite's CPU time. What is built depends only on the route and on how it
was included (prefix, tags, dependencies, body limit…), which are the same for every app `create_app` makes: the
second app on gets the routes the first built. The one tie to the app, its dependency overrides, is kept apart: an
app that has overrides when its routes are built builds its own (no test overrides a dependency)."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from fastapi import routing


def share_built_routes() -> None:
    """Route building, memoised by route and inclusion; a FastAPI without the lazy included routes is left as is."""
    effective = getattr(routing, "_EffectiveRouteContext", None)
    build = getattr(getattr(effective, "from_api_route", None), "__func__", None)
    if effective is None or build is None or getattr(effective, "_built_once_by_the_tests", False):
        return
    built: dict[int, list[tuple[Any, Any]]] = {}  # by id(route), which lives as long as its module's router
    lock = threading.Lock()  # apps are served from many threads (test clients' portals, uvicorn in a thread)

    def from_api_route(cls: Any, *, original_route: Any, include_context: Any) -> Any:
        if getattr(include_context.dependency_overrides_provider, "dependency_overrides", None):
            return build(cls, original_route=original_route, include_context=include_context)
        how = dataclasses.replace(include_context, dependency_overrides_provider=None)
        with lock:
            for same, context in built.get(id(original_route), ()):
                if same == how:
                    return context
        context = build(cls, original_route=original_route, include_context=include_context)
        with lock:
            built.setdefault(id(original_route), []).append((how, context))
        return context

    effective.from_api_route = classmethod(from_api_route)
    effective._built_once_by_the_tests = True
