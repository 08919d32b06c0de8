"""The app factory: one FastAPI app per settings, no module-level state."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from . import demo
from .auth import Services, TokenStore
from .db import Database
from .errors import install_error_handlers
from .openapi import install_openapi
from .params import BoundedRequest
from .routes import (
    alarms,
    app_servers,
    dashboard,
    device_import,
    device_profiles,
    devices,
    frames,
    key_manager,
    km_devices,
    km_import,
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
    # Each module's routes straight into the app, worked out once (routes/_router.py).
    # Collection paths (/devices/alarms, /bss/alarms...) come before /devices/{deviceUid}
    # and /bss/{bsUid}.
    for module in (
        subscription,
        alarms,
        device_import,
        device_profiles,
        devices,
        frames,
        multicast,
        app_servers,
        network,
        partners,
        operator_partners,
        station_alarms,
        stations,
        station_admin,
        station_monitoring,
        station_radio,
        key_manager,
        km_import,
        km_devices,
        dashboard,
    ):
        module.router.add_to(app, settings.api_prefix)
    app.include_router(token.install(settings.token_path))
    install_openapi(app)
    return app
