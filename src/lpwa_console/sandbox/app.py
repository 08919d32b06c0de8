"""The app factory: one FastAPI app per settings, no module-level state."""

from __future__ import annotations

import asyncio
import importlib
import itertools
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from types import ModuleType
from typing import Any

from fastapi import FastAPI
from pydantic.warnings import UnsupportedFieldAttributeWarning
from starlette.types import ASGIApp, Receive, Scope, Send

from . import demo
from .auth import Services, TokenStore
from .db import Database
from .errors import install_error_handlers
from .json_body import BoundedRoute
from .openapi import install_openapi
from .params import BoundedRequest
from .route_matching import SegmentRoute
from .routes import token
from .settings import SandboxSettings

# A request model is built on its first use (schema.common.RequestModel's defer_build), so
# FastAPI's adapter of a request body is too: on the first request, outside the filter that
# FastAPI puts around that build (fastapi/_compat/v2.py, ModelField) for the warning that the
# body's own `alias` is not a model field's. The same filter, for the same build.
warnings.filterwarnings(
    "ignore",
    message="The 'alias' attribute with value 'body'",
    category=UnsupportedFieldAttributeWarning,
)

# Every route module (routes/NAME.py), in the order their routes are matched: collection
# paths (/devices/alarms, /bss/alarms...) come before /devices/{deviceUid} and /bss/{bsUid}.
ROUTE_MODULES = (
    "subscription",
    "alarms",
    "device_import",
    "device_profiles",
    "devices",
    "frames",
    "multicast",
    "app_servers",
    "network",
    "partners",
    "operator_partners",
    "station_alarms",
    "stations",
    "station_admin",
    "station_monitoring",
    "station_radio",
    "key_manager",
    "km_import",
    "km_devices",
    "applications",
    "operations",
    "suppliers",
    "catalogs",
    "dashboard",
)
# What a console's first screen asks (the subscription, the first page of devices): a staged
# app serves these while it imports the other modules (`finish_routes`), half of its start.
FIRST_MODULES = ("subscription", "devices")
FIRST_PATHS = ("/subscriptions/mine", "/subscriptions/mine/devices")
# A path no route has: a request for it prepares every route FastAPI has (cli.warm_routes).
WARM_UP_PATH = "/-warm-up-"


class SandboxRoute(BoundedRoute, SegmentRoute):
    """Each route reads its JSON body once, bounded and strict (json_body.py), and takes
    each identifier from one raw path segment, literals first (route_matching.py)."""


def route_module(name: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.routes.{name}")


class RoutesGate:
    """Holds every request but the first screen's until all routes are in the app: before
    that, /devices/alarms would match /devices/{deviceUid}, or nothing at all."""

    def __init__(
        self, app: ASGIApp, open_paths: frozenset[str], first_page: str, state: Any
    ) -> None:
        self.app = app
        self.open_paths = open_paths
        self.first_page = first_page
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.state.all_routes:
            await self.app(scope, receive, send)
        elif scope["path"] in self.open_paths:
            await self.app(scope, receive, send)
            if scope["path"] == self.first_page:
                self.state.rest_wanted = True  # the first screen is served
        else:
            self.state.rest_wanted = True
            while not self.state.all_routes:
                await asyncio.sleep(0.005)
            await self.app(scope, receive, send)


async def rest_wanted(
    app: FastAPI, at_most_s: float, stopping: Callable[[], bool] = lambda: False
) -> None:
    """Until the first screen is served, or a request needs another route, or `at_most_s`,
    or the server is `stopping`: importing the other routes takes turns on the GIL with
    the first screen's requests."""
    deadline = asyncio.get_running_loop().time() + at_most_s
    while not app.state.rest_wanted and asyncio.get_running_loop().time() < deadline:
        if stopping():
            return
        await asyncio.sleep(0.01)


def create_app(
    settings: SandboxSettings, db: Database | None = None, *, staged: bool = False
) -> FastAPI:
    """The sandbox API on `settings.db_path` (created and seeded when new). An open `db`
    may be passed in by a caller that prepared it already (the CLI). A `staged` app has only
    the first screen's routes until `finish_routes`."""
    database = db or demo.prepare(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        simulator = getattr(app.state, "simulator", None)  # set by `serve --simulate`
        if simulator is not None:
            simulator.stop()
        database.close()

    app = FastAPI(
        title="LPWA sandbox",
        version="8.1",
        description="Sandbox implementation of the platform's REST API (Documents 1 and 2).",
        lifespan=lifespan,
        # Every route, current or future, refuses out-of-range input before using it.
        dependencies=[BoundedRequest],
    )
    app.router.route_class = SandboxRoute
    app.state.services = Services(
        settings=settings, db=database, tokens=TokenStore(database, settings.token_lifetime_s)
    )
    install_error_handlers(app)
    app.state.all_routes = not staged
    app.state.module_routes = {}
    for name in FIRST_MODULES if staged else ROUTE_MODULES:
        add_module(app, name, settings.api_prefix)
    app.include_router(token.install(settings.token_path))
    install_openapi(app)
    if staged:
        open_paths = {settings.token_path, WARM_UP_PATH}
        open_paths |= {settings.api_prefix + path for path in FIRST_PATHS}
        app.state.rest_wanted = False
        app.add_middleware(
            RoutesGate,
            open_paths=frozenset(open_paths),
            first_page=settings.api_prefix + FIRST_PATHS[-1],
            state=app.state,
        )
    return app


def finish_routes(app: FastAPI, settings: SandboxSettings) -> None:
    """The routes a staged app (`create_app(staged=True)`) left out, imported and added (in a
    thread, while the first ones are served), then all put in their matching order."""
    routes = app.router.routes
    first = list(routes)  # the first modules', the token's, the documentation's
    for name in ROUTE_MODULES:
        if name not in app.state.module_routes:
            add_module(app, name, settings.api_prefix)
    by_module: dict[str, list[Any]] = app.state.module_routes
    ordered = [route for name in ROUTE_MODULES for route in by_module[name]]
    placed = {id(route) for route in ordered}
    # FastAPI's own (the documentation) before, the token's after, as in a whole app.
    head = list(itertools.takewhile(lambda route: id(route) not in placed, first))
    tail = [route for route in first[len(head) :] if id(route) not in placed]
    routes[:] = head + ordered + tail  # one step: a request sees the old table or the new
    app.state.all_routes = True


def add_module(app: FastAPI, name: str, prefix: str) -> None:
    """The routes of routes/NAME.py into the app (appended), noted by module."""
    routes = app.router.routes
    start = len(routes)
    route_module(name).router.add_to(app, prefix)
    app.state.module_routes[name] = routes[start:]
