"""The app factory: one FastAPI app per settings, no module-level state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import APIRouter, FastAPI

from . import demo
from .auth import Services, TokenStore
from .db import Database
from .errors import install_error_handlers
from .openapi import install_openapi
from .params import BoundedRequest
from .routes import (
    alarms,
    app_servers,
    device_import,
    device_profiles,
    devices,
    frames,
    multicast,
    network,
    operator_partners,
    partners,
    station_admin,
    station_alarms,
    station_monitoring,
    station_radio,
    stations,
    subscription,
    token,
)
from .settings import SandboxSettings


def create_app(settings: SandboxSettings, db: Database | None = None) -> FastAPI:
    """The sandbox API on `settings.db_path` (created and seeded when new). An open `db`
    may be passed in by a caller that prepared it already (the CLI)."""
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
    app.state.services = Services(
        settings=settings, db=database, tokens=TokenStore(database, settings.token_lifetime_s)
    )
    install_error_handlers(app)
    api = APIRouter(prefix=settings.api_prefix)
    api.include_router(subscription.router)
    # Collection paths (/devices/alarms, /devices/import...) before /devices/{deviceUid}.
    api.include_router(alarms.router)
    api.include_router(device_import.router)
    api.include_router(device_profiles.router)
    api.include_router(devices.router)
    api.include_router(frames.router)
    api.include_router(multicast.router)
    api.include_router(app_servers.router)
    api.include_router(network.router)
    api.include_router(partners.router)
    api.include_router(operator_partners.router)
    # /bss/alarms... before /bss/{bsUid}.
    api.include_router(station_alarms.router)
    api.include_router(stations.router)
    api.include_router(station_admin.router)
    api.include_router(station_monitoring.router)
    api.include_router(station_radio.router)
    app.include_router(api)
    app.include_router(token.install(settings.token_path))
    install_openapi(app)
    return app
