"""Every route of an app with its full path, however FastAPI keeps included routers.

FastAPI up to 0.12x copies an included router's routes into the app (flat APIRoutes);
newer releases keep the routers nested and expose their routes as route contexts. Both give
items with `path_format`, `methods` and `matches(scope)`; `endpoint_route` gives the
APIRoute as declared (its dependant holds the endpoint's parameters and dependencies).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import fastapi.routing


def effective_routes(routes: Sequence[Any]) -> Iterator[Any]:
    iterate = getattr(fastapi.routing, "iter_route_contexts", None)
    yield from iterate(routes) if iterate is not None else routes


def endpoint_route(route: Any) -> Any:
    return getattr(route, "original_route", route)
