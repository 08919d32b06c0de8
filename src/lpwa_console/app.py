"""The composition root: settings -> client -> view-models -> main window, on a qasync loop."""

from __future__ import annotations

import asyncio
import importlib
import logging
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from .console import Console, Panes
from .models.crash_log import CrashHook
from .models.device_detail import DeviceDetailViewModel
from .models.device_export import DeviceExporter
from .models.device_import import DeviceImportViewModel
from .models.devices import DevicesViewModel
from .models.embedded import EmbeddedSandbox, default_data_dir
from .models.field_offline.mode import FieldMode
from .models.fleet_index.index import FleetIndex
from .models.palette import DeviceSearchViewModel
from .models.pane_access import (
    DEVICES,
    PARTNER,
    STATIONS,
    account_kind,
    client_for_data,
    client_for_pane,
    has_data,
    pane_visible,
)
from .models.profiles import ProfileStore, SecretStore
from .models.rights import AccountRights
from .models.secret_storage import SecretStorage
from .models.session import Session
from .models.subscription_settings import SubscriptionSettingsViewModel
from .models.tasks import TaskRunner
from .options import Options, make_settings
from .pane_factories import pane_factories
from .schema.devices import DevicePage
from .schema.subscription import Subscription
from .ui.fleet_index_status import follow_search_box
from .ui.idle_gc import not_idle_while
from .ui.lazy_pane import LazyPane
from .ui.main_window import MainWindow
from .ui.panes.devices import DevicesPane
from .ui.theme import apply_theme

log = logging.getLogger("lpwa_console")


def build(
    options: Options,
    *,
    settings: QSettings | None = None,
    secrets: SecretStore | None = None,
    embedded: EmbeddedSandbox | None = None,
) -> Console:
    settings = settings or make_settings(options.data_dir)
    runner = TaskRunner()
    app = QApplication.instance()
    if app is not None:
        not_idle_while(app, runner)  # a sync or an import under way is not an idle moment
    data_dir = options.data_dir or default_data_dir()
    # The keyring, or (without one) this session's memory or a passphrase-protected file.
    profiles = ProfileStore(settings, secrets or SecretStorage(data_dir))
    embedded = embedded or EmbeddedSandbox(data_dir)
    field = FieldMode(data_dir, runner)
    session = Session(profiles, runner, embedded, field=field)
    devices = DevicesViewModel(runner)

    def for_devices(set_client: Callable[[Any], None]) -> None:
        session.client_changed.connect(
            lambda client: set_client(client_for_pane("devices", session.role, client))
        )

    for_devices(devices.set_client)
    rights = AccountRights(runner)
    # A network partner's account has no subscription: its grants are its partner's.
    session.client_changed.connect(
        lambda client: rights.set_client(client, partner=account_kind(session.role) == PARTNER)
    )
    session.client_changed.connect(lambda client: field_follows(session, rights, client))
    detail = DeviceDetailViewModel(runner)
    for_devices(detail.set_client)
    exporter = DeviceExporter(runner)
    importer = DeviceImportViewModel(runner)
    for_devices(importer.set_client)
    devices_pane = DevicesPane(
        devices, detail_vm=detail, rights=rights, exporter=exporter, import_vm=importer
    )
    tiles_dir = (options.data_dir or default_data_dir()) / "tiles"
    # The other panes are made when first shown (ui/lazy_pane.py): their imports and
    # view-models are most of a start otherwise.
    panes = Panes({"devices": devices_pane})
    fleet_index = follow_fleet(session, profiles, data_dir, devices)
    follow_search_box(
        fleet_index,
        devices_pane.search,
        fragment="Name, DevEUI, IMEI or tag",
        prefix="Any part of them once the fleet index is ready",
    )
    factories = pane_factories(session, runner, rights, settings, tiles_dir, fleet_index)
    for key, (title, factory) in factories.items():
        panes.add(LazyPane(key, title, factory))
    subscription = SubscriptionSettingsViewModel(runner)
    session.client_changed.connect(subscription.set_client)
    device_search = DeviceSearchViewModel(runner)
    device_search.index = fleet_index
    # The palette finds devices for an account that has some (a partner's would be refused).
    session.client_changed.connect(
        lambda client: device_search.set_client(
            client_for_data("devices", "devices", session.role, client)
        )
    )
    window = MainWindow(
        session,
        runner,
        profiles,
        panes.hosts(),
        settings,
        subscription=subscription,
        rights=rights,
        pane_keys=list(panes.keys()),
        device_search=device_search,
        data_dir=embedded.data_dir,
        fleet_index=fleet_index,
    )
    return Console(
        settings,
        runner,
        profiles,
        embedded,
        session,
        devices,
        window,
        panes,
        subscription,
        fleet_index=fleet_index,
    )


def field_follows(session: Session, rights: AccountRights, client: object) -> None:
    """Offline, the platform's actions are disabled with the reason; back online, the
    edits made offline are sent back (models/field_offline)."""
    field = session.field
    if field is None:
        return
    rights.set_offline(field.offline_reason if client is not None else "")
    if client is not None and not field.offline and field.pending():
        field.sync(client)  # type: ignore[arg-type]


def follow_fleet(
    session: Session, profiles: ProfileStore, data_dir: Path, devices: DevicesViewModel
) -> FleetIndex:
    """The fleet index (issue 23) of whoever is signed in: started after sign-in, stopped at
    sign-out, deleted with its profile; the devices' search box and edits go through it."""
    index = FleetIndex(data_dir)

    def client(value: object) -> None:
        profile = session.profile
        # Offline (a snapshot, models/field_offline) there is no platform to sync from: the
        # lists search the snapshot by prefix, as the platform does.
        # Operators and suppliers have neither devices nor base stations to index.
        fleet = has_data(DEVICES, session.role) or has_data(STATIONS, session.role)
        if value is None or profile is None or session.offline_text or not fleet:
            index.close()
        else:
            index.open(
                profile.name, f"{session.account_name}\n{session.role}", session.sync_source()
            )

    session.client_changed.connect(client)
    profiles.removed.connect(index.delete_profile)
    devices.fragments = index
    devices.saved.connect(index.follow_device)
    devices.gone.connect(lambda euis: index.forget("device", euis))
    devices.retagged.connect(index.follow_device)
    return index


def show_loading(console: Console) -> None:
    """The status bar says "Loading devices…" from sign-in to the first page of devices
    (for an account that has a devices pane)."""
    window, devices = console.window, console.devices

    def client(value: object) -> None:
        loading = value is not None and pane_visible("devices", console.session.role)
        window.show_progress("Loading devices…" if loading else "")

    console.session.client_changed.connect(client)
    devices.first_page_loaded.connect(lambda *_: window.show_progress(""))
    devices.error.connect(lambda *_: window.show_progress(""))


# What the sign-in and the first page of devices import on first use: the HTTP transport
# (httpcore, h11, anyio's asyncio backend: ~40 ms) and the client's resources.
FIRST_USE_MODULES = (
    "httpcore",
    "h11",
    "anyio._backends._asyncio",
    f"{__package__}.api.resources.subscription",
    f"{__package__}.api.resources.devices",
    f"{__package__}.api.pagination",
)


async def build_first_models() -> None:
    """Response models are built on first use (`ApiModel`'s defer_build: most are never
    used in a session). Those of the sign-in and the first device page are built now, and
    the modules they use imported (FIRST_USE_MODULES), one per turn of the loop, while the
    sandbox starts or the platform answers: after the answer they would delay the first
    rows."""
    for model in (Subscription, DevicePage):
        model.model_rebuild(force=True)
        await asyncio.sleep(0)
    for name in FIRST_USE_MODULES:
        importlib.import_module(name)
        await asyncio.sleep(0)


async def run(
    options: Options, hook: CrashHook | None = None, embedded: EmbeddedSandbox | None = None
) -> int:
    if hook is not None:  # a task nobody awaited failed: logged and shown like the rest
        asyncio.get_running_loop().set_exception_handler(hook.loop_exception)
    if options.self_test or options.screenshot is not None:
        # Diagnostics work on a copy of the settings: they never change the user's.
        from .diagnostics.connecting import scratch_settings

        with tempfile.TemporaryDirectory(
            prefix="lpwa-console-", ignore_cleanup_errors=True
        ) as folder:
            settings = scratch_settings(make_settings(options.data_dir), Path(folder))
            console = build(options, settings=settings, embedded=embedded)
            return await run_console(options, console, hook)
    return await run_console(options, build(options, embedded=embedded), hook)


async def run_console(options: Options, console: Console, hook: CrashHook | None = None) -> int:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    show_loading(console)
    theme = options.theme or str(console.settings.value("appearance/theme", "system"))
    apply_theme(app, theme)  # type: ignore[arg-type]
    profile = console.choose_profile(options.profile)
    try:
        if options.self_test:
            from .diagnostics.self_test import self_test

            return await self_test(console, profile)
        if options.screenshot is not None:
            from .diagnostics.screenshots import screenshots

            return await screenshots(console, profile, options.screenshot, options.size)
        quitting = asyncio.Event()
        app.aboutToQuit.connect(quitting.set)
        app.lastWindowClosed.connect(quitting.set)
        if options.pane:
            console.select_pane(options.pane)
        # Held by this frame: unexpected errors show in a dialog until the console quits.
        from .ui.crash_dialog import CrashReporter

        _reporter = CrashReporter(hook, console.window) if hook is not None else None
        console.window.show()
        console.session.open(profile)
        first_models = asyncio.create_task(build_first_models())
        if options.time_first_rows:
            from .diagnostics.first_rows import time_first_rows

            return await time_first_rows(console, options.launched_at)
        await quitting.wait()
        await first_models
        return 0
    finally:
        await console.aclose()


__all__ = ["Options", "build", "make_settings", "run"]
