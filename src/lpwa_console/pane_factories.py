"""The panes after the first, as the composition root (`app.py`) registers them: each one's
title, and how to make it with its view-models, each following the session's client for an
account that may use it. They are made when first shown (`ui/lazy_pane.py`), so their
imports are inside the factories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QWidget

from .models.pane_access import client_for_data, client_for_pane, has_data
from .models.rights import AccountRights
from .models.session import Session
from .models.tasks import TaskRunner


def pane_factories(
    session: Session,
    runner: TaskRunner,
    rights: AccountRights,
    settings: QSettings,
    tiles_dir: Path,
    fleet_index: Any = None,
) -> dict[str, tuple[str, Callable[[], QWidget]]]:
    """Each pane after the first: its title, and how to make it (imports included).
    `fleet_index` (a `FleetIndex`): the stations' search box looks fragments up in it."""

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
        field = session.field
        if field is not None:  # offline, the map shows the snapshot's tiles
            field.offline_changed.connect(
                lambda offline: tiles.follow_offline(field.tiles_path if offline else None)
            )
            if field.offline:
                tiles.follow_offline(field.tiles_path)
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

        vm = StationsViewModel(runner)
        if fleet_index is not None:
            vm.fragments = fleet_index
            vm.saved.connect(fleet_index.follow_station)
            vm.created.connect(fleet_index.follow_station)
        pane = StationsPane(
            follow(vm),
            detail_vm=follow(StationDetailViewModel(runner)),
            rights=rights,
            partner=follow(PartnerViewModel(runner)),
        )
        if fleet_index is not None:
            from .ui.fleet_index_status import follow_search_box

            follow_search_box(
                fleet_index,
                pane.search,
                fragment="Name, LRR ID or tag",
                prefix="Any part of them once the fleet index is ready",
            )
        return pane

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
        from .models.operations import OperationsAccess, PartnerNames, operations_view_models
        from .ui.panes.operations import OperationsPane

        names = follow(PartnerNames(runner))
        vms = [follow(vm) for vm in operations_view_models(runner, names)]
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
