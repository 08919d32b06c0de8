"""The composition root: settings -> client -> view-models -> main window, on a qasync loop."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, SignalInstance
from PySide6.QtWidgets import QApplication, QWidget

from .models.crash_log import CrashHook
from .models.device_detail import DeviceDetailViewModel
from .models.device_export import DeviceExporter
from .models.device_import import DeviceImportViewModel
from .models.devices import DevicesViewModel
from .models.embedded import EmbeddedSandbox, default_data_dir
from .models.palette import DeviceSearchViewModel
from .models.pane_access import (
    PARTNER,
    account_kind,
    client_for_data,
    client_for_pane,
    has_data,
    pane_visible,
)
from .models.profiles import KeyringSecretStore, Profile, ProfileStore, SecretStore
from .models.rights import AccountRights
from .models.session import Session
from .models.subscription_settings import SubscriptionSettingsViewModel
from .models.tasks import TaskRunner
from .schema.devices import DevicePage
from .schema.subscription import Subscription
from .startup import Options, main, make_settings, parse_args
from .ui.lazy_pane import LazyPane, real_pane
from .ui.main_window import MainWindow
from .ui.panes.devices import DevicesPane
from .ui.theme import apply_theme

if TYPE_CHECKING:
    from .models.paged_table import PagedTableModel
    from .ui.panes.device_map import DeviceMapPane

log = logging.getLogger("lpwa_console")

CONNECT_TIMEOUT_S = 90.0
FIRST_PAGE_TIMEOUT_S = 10.0
SETTLE_TIMEOUT_S = 5.0  # a screenshot waits this long at most for its pane's answers


@dataclass
class Console:
    """Everything the composition root built, so tests and the self-test can reach it."""

    settings: QSettings
    runner: TaskRunner
    profiles: ProfileStore
    embedded: EmbeddedSandbox
    session: Session
    devices: DevicesViewModel
    window: MainWindow
    panes: Panes
    subscription: SubscriptionSettingsViewModel | None = None

    async def aclose(self) -> None:
        self.window.save_layout()
        # Hidden now, while its panes' view-models live: a window still shown at exit (a
        # screenshot or timing run) was hidden during the interpreter's shutdown instead,
        # when a pane's hide handler found its view-model's timer deleted already.
        self.window.hide()
        self.runner.cancel_all()
        await self.session.aclose()
        self.embedded.stop()


def scratch_settings(source: QSettings, folder: Path) -> QSettings:
    """A copy of `source` in `folder`: a self-test or screenshot run starts from what the
    user has (profiles, the pane last shown) and writes nothing back into it."""
    copy = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    for key in source.allKeys():
        copy.setValue(key, source.value(key))
    return copy


def build(
    options: Options,
    *,
    settings: QSettings | None = None,
    secrets: SecretStore | None = None,
    embedded: EmbeddedSandbox | None = None,
) -> Console:
    settings = settings or make_settings(options.data_dir)
    runner = TaskRunner()
    profiles = ProfileStore(settings, secrets or KeyringSecretStore())
    embedded = embedded or EmbeddedSandbox(options.data_dir or default_data_dir())
    session = Session(profiles, runner, embedded)
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
    factories = pane_factories(session, runner, rights, settings, tiles_dir)
    for key, (title, factory) in factories.items():
        panes.add(LazyPane(key, title, factory))
    subscription = SubscriptionSettingsViewModel(runner)
    session.client_changed.connect(subscription.set_client)
    device_search = DeviceSearchViewModel(runner)
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
    )
    return Console(
        settings, runner, profiles, embedded, session, devices, window, panes, subscription
    )


def pane_factories(
    session: Session,
    runner: TaskRunner,
    rights: AccountRights,
    settings: QSettings,
    tiles_dir: Path,
) -> dict[str, tuple[str, Callable[[], QWidget]]]:
    """Each pane after the first: its title, and how to make it (imports included)."""

    def following(key: str, data: str | None = None) -> Callable[[Any], Any]:
        def given(client: Any) -> Any:
            if data is not None:  # a part reading one kind of data (the map's devices)
                return client_for_data(key, data, session.role, client)
            return client_for_pane(key, session.role, client)

        def follow(vm: Any) -> Any:
            """`vm` follows the session's client from now on, starting with the current
            one, for an account that may use the pane (`client_for_pane`) and, for a
            part of it, has its data (`client_for_data`)."""
            session.client_changed.connect(lambda client: vm.set_client(given(client)))
            if session.client is not None:
                vm.set_client(given(session.client))
            return vm

        return follow

    def device_map() -> QWidget:
        # Each layer asks only for what the account has: a network partner's map, its
        # stations (a device request would be refused).
        devices, stations = following("map", "devices"), following("map", "stations")
        from .models.device_map import DeviceMapViewModel
        from .models.station_map import StationMapViewModel
        from .models.tiles import TileLayerViewModel
        from .ui.panes.device_map import DeviceMapPane

        tiles = TileLayerViewModel(settings, tiles_dir)
        tiles.restore()
        return DeviceMapPane(
            devices(DeviceMapViewModel(runner)),
            tiles,
            stations=stations(StationMapViewModel(runner)),
            rights=rights,
        )

    def alarms() -> QWidget:
        follow = following("alarms")
        from .models.alarms import AlarmsViewModel
        from .ui.panes.alarms import AlarmsPane

        # The lists of alarms this account has (a network partner: its stations' only).
        def sources() -> frozenset[str]:
            return frozenset(
                d for d in ("devices", "multicast", "stations") if has_data(d, session.role)
            )

        return AlarmsPane(follow(AlarmsViewModel(runner, sources=sources)), rights=rights)

    def resources(key: str, title: str, kinds: str) -> Callable[[], QWidget]:
        def make() -> QWidget:
            follow = following(key)
            from .models import resources as kinds_of
            from .ui.panes.resources import ResourcesPane

            made = getattr(kinds_of, kinds)()
            made = made if isinstance(made, list) else [made]
            vms = [follow(kinds_of.ResourceViewModel(runner, kind)) for kind in made]
            return ResourcesPane(title, vms, rights=rights)

        return make

    def stations() -> QWidget:
        follow = following("stations")
        from .models.partners import PartnerViewModel
        from .models.station_detail import StationDetailViewModel
        from .models.stations import StationsViewModel
        from .ui.panes.stations import StationsPane

        return StationsPane(
            follow(StationsViewModel(runner)),
            detail_vm=follow(StationDetailViewModel(runner)),
            rights=rights,
            partner=follow(PartnerViewModel(runner)),
        )

    def partners() -> QWidget:
        follow = following("partners")
        from .models.operator_partners import OperatorPartnersViewModel
        from .ui.panes.partners import PartnersPane

        return PartnersPane(follow(OperatorPartnersViewModel(runner)))

    def key_manager() -> QWidget:
        follow = following("key_manager")
        from .models.key_manager import KeyManagerViewModel, KmImportViewModel, key_manager_kinds
        from .models.resources import ResourceViewModel
        from .ui.panes.key_manager import KeyManagerPane

        vms = [follow(ResourceViewModel(runner, kind)) for kind in key_manager_kinds()]
        km = follow(KeyManagerViewModel(runner))
        return KeyManagerPane(vms, km, follow(KmImportViewModel(runner)), rights=rights)

    def operations() -> QWidget:
        follow = following("operations")
        from .models.operations import OperationsAccess, operations_view_models
        from .ui.panes.operations import OperationsPane

        vms = [follow(vm) for vm in operations_view_models(runner)]
        return OperationsPane(vms, follow(OperationsAccess(runner)), rights=rights)

    def suppliers() -> QWidget:
        follow = following("suppliers")
        from .models.suppliers import SecretIssuer, SupplierAccess, supplier_view_models
        from .ui.panes.suppliers import SuppliersPane

        access = follow(SupplierAccess(runner))
        vms = [follow(vm) for vm in supplier_view_models(runner, access)]
        return SuppliersPane(vms, access, follow(SecretIssuer(runner)), rights=rights)

    def catalogs() -> QWidget:
        from .models.catalogs import CatalogsViewModel
        from .ui.panes.catalogs import CatalogsPane

        return CatalogsPane(following("catalogs")(CatalogsViewModel(runner)), rights=rights)

    def dashboard() -> QWidget:
        from .models.dashboard import DashboardViewModel
        from .ui.panes.dashboard import DashboardPane

        return DashboardPane(following("dashboard")(DashboardViewModel(runner)))

    return {
        "map": ("Map", device_map),
        "alarms": ("Alarms", alarms),
        "multicast": (
            "Multicast groups",
            resources("multicast", "Multicast groups", "multicast_kind"),
        ),
        "app_servers": ("App servers", resources("app_servers", "App servers", "app_servers_kind")),
        "network": ("Network", resources("network", "Network", "network_kinds")),
        "stations": ("Base stations", stations),
        "partners": ("Partners", partners),
        "key_manager": ("Key manager", key_manager),
        "operations": ("Operations", operations),
        "suppliers": ("Suppliers", suppliers),
        "catalogs": ("Catalogs", catalogs),
        "dashboard": ("Dashboard", dashboard),
    }


class Panes(Mapping[str, QWidget]):
    """The window's panes by key. Reading one gives the pane itself (made now if it was
    not yet); `hosts()` gives what the window's stack holds."""

    def __init__(self, made: dict[str, QWidget]) -> None:
        self._widgets: dict[str, QWidget] = dict(made)

    def add(self, host: LazyPane) -> None:
        self._widgets[host.key] = host

    def hosts(self) -> list[QWidget]:
        return list(self._widgets.values())

    def __getitem__(self, key: str) -> QWidget:
        return real_pane(self._widgets[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._widgets)

    def __len__(self) -> int:
        return len(self._widgets)


def choose_profile(console: Console, name: str | None) -> Profile:
    if name:
        profile = console.profiles.get(name)
        if profile is None:
            raise SystemExit(f"lpwa-console: no profile named {name!r}")
        return profile
    return console.profiles.last_profile()


async def wait_signal(signal: SignalInstance, timeout: float) -> tuple[Any, ...]:
    loop = asyncio.get_running_loop()
    future: asyncio.Future[tuple[Any, ...]] = loop.create_future()

    def fire(*args: Any) -> None:
        if not future.done():
            future.set_result(args)

    signal.connect(fire)
    try:
        return await asyncio.wait_for(future, timeout)
    finally:
        signal.disconnect(fire)


async def connect(console: Console, profile: Profile) -> None:
    """Open the profile and wait until connected; raise with the reason when it fails."""
    waiter = asyncio.ensure_future(wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S))
    console.session.open(profile)
    while True:
        (state,) = await waiter
        if state == "connected":
            return
        if state == "failed":
            raise RuntimeError(console.session.message)
        waiter = asyncio.ensure_future(
            wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S)
        )


async def load_devices(console: Console) -> dict[str, float]:
    """Wait for the first page of devices (if not there yet), then paint it."""
    vm = console.devices
    if vm.first_page_ms is None:
        error = asyncio.ensure_future(wait_signal(vm.error, FIRST_PAGE_TIMEOUT_S))
        page = asyncio.ensure_future(wait_signal(vm.first_page_loaded, FIRST_PAGE_TIMEOUT_S))
        done, pending = await asyncio.wait({error, page}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        if error in done:
            raise RuntimeError(f"devices: {error.result()[0]}")
        page.result()
    pane = console.panes["devices"]
    assert isinstance(pane, DevicesPane)
    paint_t0 = time.perf_counter()
    pane.table.viewport().repaint()
    paint_ms = (time.perf_counter() - paint_t0) * 1000
    first_page_ms = vm.first_page_ms or 0.0
    return {
        "first_page_ms": round(first_page_ms, 1),
        "paint_ms": round(paint_ms, 1),
        "first_rows_ms": round(first_page_ms + paint_ms, 1),
        "rows": vm.model.rowCount(),
    }


async def load_first_page(name: str, model: PagedTableModel[Any]) -> dict[str, Any]:
    """Wait until a list model has its first page (or its error, or the reason the
    platform does not offer it: then that is the answer)."""
    t0 = time.perf_counter()
    if model.not_offered_reason:
        return {"not_offered": model.not_offered_reason}
    if 0 not in model.loaded_pages():
        error = asyncio.ensure_future(wait_signal(model.error, FIRST_PAGE_TIMEOUT_S))
        page = asyncio.ensure_future(wait_signal(model.first_page_loaded, FIRST_PAGE_TIMEOUT_S))
        lacking = asyncio.ensure_future(wait_signal(model.not_offered, FIRST_PAGE_TIMEOUT_S))
        done, pending = await asyncio.wait(
            {error, page, lacking},
            timeout=FIRST_PAGE_TIMEOUT_S,
            return_when=asyncio.FIRST_COMPLETED,
        )
        for task in pending:
            task.cancel()
        if error in done:
            raise RuntimeError(f"{name}: {error.result()[0]}")
        if lacking in done:
            return {"not_offered": lacking.result()[0]}
        if page not in done and 0 not in model.loaded_pages():
            raise RuntimeError(f"{name}: no first page after {FIRST_PAGE_TIMEOUT_S:.0f} s")
    return {"first_page_ms": round((time.perf_counter() - t0) * 1000, 1), "rows": model.rowCount()}


async def load_map(name: str, pane: DeviceMapPane) -> dict[str, Any]:
    """Wait until the map shows the clusters of its view (or says why it cannot)."""
    vm = pane.vm
    t0 = time.perf_counter()
    # An account without devices (a network partner) has its stations' layer only.
    while vm.has_client and vm.enabled and not (vm.settled and vm.answered_box is not None):
        if vm.error_message:
            raise RuntimeError(f"{name}: {vm.error_message}")
        if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
            raise RuntimeError(f"{name}: no clusters after {FIRST_PAGE_TIMEOUT_S:.0f} s")
        await asyncio.sleep(0.02)
    layer = pane.station_layer
    while (
        layer is not None
        and layer.vm.enabled
        and layer.vm.has_client
        and not (layer.vm.settled and layer.vm.answered_box is not None)
    ):
        if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
            raise RuntimeError(f"{name}: no base stations after {FIRST_PAGE_TIMEOUT_S:.0f} s")
        await asyncio.sleep(0.02)
    return {
        "first_clusters_ms": round(vm.first_clusters_ms or 0.0, 1),
        "requests": vm.requests,
        "clusters": len(vm.clusters),
        "devices": vm.total,
        "stations": layer.vm.total if layer is not None else 0,
    }


async def load_pane(console: Console, name: str) -> dict[str, Any]:
    from .ui.panes.alarms import AlarmsPane
    from .ui.panes.device_map import DeviceMapPane
    from .ui.panes.key_manager import KeyManagerPane
    from .ui.panes.resources import ResourcesPane
    from .ui.panes.stations import StationsPane
    from .ui.panes.suppliers import SuppliersPane

    pane = console.panes[name]
    if name == "devices":
        return await load_devices(console)
    if isinstance(pane, DeviceMapPane):
        return await load_map(name, pane)
    if isinstance(pane, AlarmsPane | StationsPane):
        return await load_first_page(name, pane.vm.model)
    if isinstance(pane, KeyManagerPane):
        pane = pane.lists
    if isinstance(pane, SuppliersPane):
        t0 = time.perf_counter()
        pane.access.ensure_checked()
        while pane.access.state in ("unknown", "checking"):
            if time.perf_counter() - t0 > FIRST_PAGE_TIMEOUT_S:
                raise RuntimeError(f"{name}: the supplier not read after {FIRST_PAGE_TIMEOUT_S} s")
            await asyncio.sleep(0.02)
        if not pane.access.is_supplier:  # another account: the pane says so, nothing to load
            return {"supplier": False, "says": pane.empty.text()}
    if isinstance(pane, ResourcesPane):
        sections: dict[str, Any] = {}
        for index, vm in enumerate(pane.vms):
            pane.section.setCurrentIndex(index)
            sections[vm.kind.key] = await load_first_page(vm.kind.key, vm.model)
        return sections
    return {}


async def self_test(console: Console, profile: Profile) -> int:
    result: dict[str, Any] = {"profile": profile.name, "ok": False}
    t0 = time.perf_counter()
    try:
        console.window.show()
        await connect(console, profile)
        result["connect_total_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        if console.embedded.start_ms is not None and profile.is_embedded:
            result["sandbox_start_ms"] = round(console.embedded.start_ms, 1)
        result["connect_ms"] = round(console.session.connect_ms or 0.0, 1)
        panes: dict[str, Any] = {}
        for name in console.window.visible_keys:  # the panes this account uses
            console.window.navigation.setCurrentRow(console.window.pane_keys.index(name))
            panes[name] = await load_pane(console, name)
        result["panes"] = panes
        result["ok"] = True
    except Exception as exc:
        result["error"] = str(exc) or type(exc).__name__
    result["total_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


async def screenshots(
    console: Console,
    profile: Profile,
    directory: Path,
    size: tuple[int, int] | None = None,
) -> int:
    from .ui.panes.device_map import DeviceMapPane
    from .ui.panes.stations import StationsPane

    directory.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    window = console.window
    window.resize(*(size or (1400, 820)))
    window.show()
    try:
        await connect(console, profile)
        for name in window.visible_keys:  # the panes this account uses
            window.navigation.setCurrentRow(window.pane_keys.index(name))
            if name == "devices":
                await load_devices(console)
                pane = console.panes[name]
                assert isinstance(pane, DevicesPane)
                pane.table.selectRow(0)
                await wait_signal(console.devices.detail_changed, FIRST_PAGE_TIMEOUT_S)
            pane = console.panes[name]
            if isinstance(pane, DeviceMapPane):
                await load_map(name, pane)
            if isinstance(pane, StationsPane):
                await load_first_page(name, pane.vm.model)
                if pane.vm.model.rowCount():
                    pane.table.selectRow(0)
                    await wait_signal(pane.vm.detail_changed, FIRST_PAGE_TIMEOUT_S)
            await settled(console, SETTLE_TIMEOUT_S)
            for theme in ("light", "dark"):
                apply_theme(app, theme)
                await asyncio.sleep(0.05)
                path = directory / f"{name}-{theme}.png"
                window.grab().save(str(path))
                print(path, flush=True)
    except Exception as exc:
        print(f"lpwa-console: screenshot failed: {exc}", file=sys.stderr)
        return 1
    return 0


async def settled(console: Console, at_most_s: float) -> None:
    """Until the pane shown has what it asked for (no task running), or `at_most_s`."""
    deadline = time.perf_counter() + at_most_s
    await asyncio.sleep(0.05)
    while console.runner.busy and time.perf_counter() < deadline:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.05)  # the answers painted


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


async def time_first_rows(console: Console, launched_at: float | None) -> int:
    """`--time-first-rows`: the milliseconds from launch to each step of the first start,
    on one JSON line, once the first device rows are painted."""
    t0 = launched_at if launched_at is not None else time.perf_counter()
    steps: dict[str, float] = {}

    def mark(name: str) -> None:
        steps.setdefault(name, round((time.perf_counter() - t0) * 1000, 1))

    mark("window_shown")
    console.embedded.phase.connect(lambda phase: mark(f"sandbox_{phase}"))
    console.embedded.ready.connect(lambda _info: mark("sandbox_ready"))
    result: dict[str, Any] = {"ok": False}
    try:
        await connect_opened(console)
        mark("connected")
        await load_devices(console)
        mark("first_rows")
        result["cpu_ms"] = cpu_ms(console)
        result["ok"] = True
    except Exception as exc:
        result["error"] = str(exc) or type(exc).__name__
    result["ms"] = steps
    print(json.dumps(result), flush=True)
    return 0 if result["ok"] else 1


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


def cpu_ms(console: Console) -> dict[str, int]:
    """The CPU time (user + system, ms) each process has used so far: the console's, and the
    embedded sandbox's where the system says (Linux's /proc). On a busy machine the time
    from launch varies with the other work; these do much less."""
    out = {"console": round(time.process_time() * 1000)}
    pid = console.embedded.process_id
    if pid is not None:
        try:
            # After the command's name: state is field 3, utime 14, stime 15 (in clock ticks).
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])
            out["sandbox"] = round(ticks * 1000 / os.sysconf("SC_CLK_TCK"))
        except (OSError, ValueError, IndexError, AttributeError):
            pass  # not Linux, or the process is gone
    return out


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


async def connect_opened(console: Console) -> None:
    """Wait until the session opened already is connected; raise with the reason if not."""
    while console.session.state != "connected":
        if console.session.state == "failed":
            raise RuntimeError(console.session.message)
        await wait_signal(console.session.state_changed, CONNECT_TIMEOUT_S)


def select_pane(console: Console, name: str) -> None:
    """Show this pane (a key of `console.panes`)."""
    names = list(console.panes)
    if name not in names:
        raise SystemExit(f"lpwa-console: no pane named {name!r} (one of {', '.join(names)})")
    console.window.navigation.setCurrentRow(names.index(name))


async def run(
    options: Options, hook: CrashHook | None = None, embedded: EmbeddedSandbox | None = None
) -> int:
    if hook is not None:  # a task nobody awaited failed: logged and shown like the rest
        asyncio.get_running_loop().set_exception_handler(hook.loop_exception)
    if options.self_test or options.screenshot is not None:
        # Diagnostics work on a copy of the settings: they never change the user's.
        with tempfile.TemporaryDirectory(prefix="lpwa-console-") as folder:
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
    profile = choose_profile(console, options.profile)
    try:
        if options.self_test:
            return await self_test(console, profile)
        if options.screenshot is not None:
            return await screenshots(console, profile, options.screenshot, options.size)
        quitting = asyncio.Event()
        app.aboutToQuit.connect(quitting.set)
        app.lastWindowClosed.connect(quitting.set)
        if options.pane:
            select_pane(console, options.pane)
        # Held by this frame: unexpected errors show in a dialog until the console quits.
        from .ui.crash_dialog import CrashReporter

        _reporter = CrashReporter(hook, console.window) if hook is not None else None
        console.window.show()
        console.session.open(profile)
        first_models = asyncio.create_task(build_first_models())
        if options.time_first_rows:
            return await time_first_rows(console, options.launched_at)
        await quitting.wait()
        await first_models
        return 0
    finally:
        await console.aclose()


__all__ = ["Options", "build", "main", "make_settings", "parse_args", "run"]
