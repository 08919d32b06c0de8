"""Lists of the other platform resources (multicast groups, application servers, network
contexts, AS transport keys, HSM groups, network subscriptions) behind one small view-model:
a lazy paged table, the selected item's detail (with extras such as an application server's
security and metrics), and create / edit / delete validated by the schema's request models.

Each kind is a `ResourceKind`: columns, how to list, get, create, update and delete; the
view-model and the pane are the same for all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject, Qt, Signal

from ..api import APIStatusError, LpwaClient
from ..schema.app_servers import (
    ALL_SCOPES,
    AppServerBrief,
    AppServerCreate,
    AppServerUpdate,
)
from ..schema.common import ListEnvelope
from ..schema.multicast import MulticastGroupBrief, MulticastGroupCreate, MulticastGroupUpdate
from ..schema.network import (
    AsTransportKey,
    AsTransportKeyCreate,
    AsTransportKeyUpdate,
    CellularNetworkContext,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
    HsmGroup,
    NetworkSubscriptionBrief,
)
from .devices import field_named_in, format_time, validate
from .paged_table import Column, PagedTableModel
from .tasks import TaskRunner

log = logging.getLogger(__name__)

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

ListPage = Callable[[LpwaClient, int, int, str | None, bool], Awaitable[ListEnvelope[Any]]]
Getter = Callable[[LpwaClient, Any], Awaitable[Any]]
Extras = Callable[[LpwaClient, Any], Awaitable[dict[str, Any]]]
Creator = Callable[[LpwaClient, Any], Awaitable[Any]]
Updater = Callable[[LpwaClient, Any, Any], Awaitable[Any]]
Deleter = Callable[[LpwaClient, Any], Awaitable[None]]


@dataclass
class ResourceKind:
    key: str
    title: str  # plural, for the pane
    noun: str  # singular, for messages
    columns: list[Column[Any]]
    list_page: ListPage
    get: Getter | None = None
    extras: Extras | None = None
    create_model: type[BaseModel] | None = None
    update_model: type[BaseModel] | None = None
    create: Creator | None = None
    update: Updater | None = None
    delete: Deleter | None = None
    writable: Callable[[Any], bool] = lambda _item: True
    label: Callable[[Any], str] = lambda item: str(getattr(item, "name", None) or item.ID)
    secret_fields: frozenset[str] = field(default_factory=frozenset)


# --- the kinds ------------------------------------------------------------------------------


def _joined(items: list[Any]) -> str:
    return ", ".join(str(getattr(i, "name", None) or getattr(i, "ID", i)) for i in items)


async def _app_server_extras(client: LpwaClient, server: Any) -> dict[str, Any]:
    """Security and IoT flow connector metrics, each best effort (scope, rights)."""
    if not getattr(server, "writable", True):
        return {}
    security, metrics = await asyncio.gather(
        client.app_servers.security(server.path_ref),
        client.app_servers.iot_flow_connector_metrics(server.path_ref),
        return_exceptions=True,
    )
    out: dict[str, Any] = {}
    if not isinstance(security, BaseException):
        out["Security"] = security
    if not isinstance(metrics, BaseException):
        out["Metrics"] = metrics
    return out


async def _hsm_extras(client: LpwaClient, group: Any) -> dict[str, Any]:
    try:
        return {"Exchange key": await client.hsm_groups.public_exchange_key(group.ID)}
    except Exception as exc:  # the key is optional detail
        log.info("exchange key of %s: %s", group.ID, exc)
        return {}


def multicast_kind() -> ResourceKind:
    return ResourceKind(
        key="multicast",
        title="Multicast groups",
        noun="multicast group",
        columns=[
            Column("Name", lambda g: g.name, sort_key="name", width=220),
            Column("EUI", lambda g: g.EUI, sort_key="EUI", width=150),
            Column("DevAddr", lambda g: g.nwAddress or "", width=90),
            Column("App servers", lambda g: _joined(g.appServers), width=180),
            Column(
                "Alarms",
                lambda g: g.alarmCount or "",
                alignment=RIGHT,
                severity=lambda g: g.alarmLevel or None,
                width=60,
            ),
            Column("Last downlink", lambda g: format_time(g.lastDwTimestamp), width=120),
            Column("Created", lambda g: format_time(g.creationDate), sort_key="creationDate"),
        ],
        list_page=lambda c, p, s, sort, d: c.multicast_groups.list(p, s, sort=sort, descending=d),
        get=lambda c, g: c.multicast_groups.get(g.path_ref),
        create_model=MulticastGroupCreate,
        update_model=MulticastGroupUpdate,
        create=lambda c, r: c.multicast_groups.create(r),
        update=lambda c, g, r: c.multicast_groups.update(g.path_ref, r),
        delete=lambda c, g: c.multicast_groups.delete(g.path_ref),
        secret_fields=frozenset({"appSKey", "nwKey", "appKeys"}),
    )


def app_servers_kind() -> ResourceKind:
    return ResourceKind(
        key="app_servers",
        title="Application servers",
        noun="application server",
        columns=[
            Column("Name", lambda a: a.name, sort_key="name", width=220),
            Column("ID", lambda a: a.ID, width=110),
            Column("Scope", lambda a: a.scope.title(), width=90),
            Column("Type", lambda a: a.type or "", width=90),
            Column("State", lambda a: a.state or "", width=80),
            Column("Health", lambda a: a.healthState or "", width=80),
            Column("Devices", lambda a: a.deviceCount or "", alignment=RIGHT, width=70),
            Column("Groups", lambda a: a.multicastGroupCount or "", alignment=RIGHT),
        ],
        list_page=lambda c, p, s, sort, d: c.app_servers.list(
            p, s, filters=ALL_SCOPES, sort=sort, descending=d
        ),
        get=lambda c, a: c.app_servers.get(a.path_ref),
        extras=_app_server_extras,
        create_model=AppServerCreate,
        update_model=AppServerUpdate,
        create=lambda c, r: c.app_servers.create(r),
        update=lambda c, a, r: c.app_servers.update(a.path_ref, r),
        delete=lambda c, a: c.app_servers.delete(a.path_ref),
        writable=lambda a: isinstance(a, AppServerBrief) and a.writable,
    )


def network_kinds() -> list[ResourceKind]:
    return [
        ResourceKind(
            key="network_contexts",
            title="Network contexts",
            noun="network context",
            columns=[
                Column("Name", lambda n: n.name, width=200),
                Column("ID", lambda n: n.ID, width=140),
                Column("APN", lambda n: n.apn or "", width=160),
                Column("PLMN", lambda n: n.plmnID or "", width=80),
                Column("IP", lambda n: n.ipVersion or "", width=70),
                Column("Description", lambda n: n.description or ""),
            ],
            list_page=lambda c, p, s, _sort, _d: c.network_contexts.list(p, s),
            get=lambda c, n: c.network_contexts.get(n.ID),
            create_model=CellularNetworkContextCreate,
            update_model=CellularNetworkContextUpdate,
            create=lambda c, r: c.network_contexts.create(r),
            update=lambda c, n, r: c.network_contexts.update(n.ID, r),
            delete=lambda c, n: c.network_contexts.delete(n.ID),
        ),
        ResourceKind(
            key="as_transport_keys",
            title="AS transport keys",
            noun="AS transport key",
            columns=[
                Column("Name", lambda k: k.name, width=220),
                Column("ID", lambda k: k.ID),
            ],
            list_page=lambda c, p, s, _sort, _d: c.as_transport_keys.list(p, s),
            get=lambda c, k: c.as_transport_keys.get(k.ID),
            create_model=AsTransportKeyCreate,
            update_model=AsTransportKeyUpdate,
            create=lambda c, r: c.as_transport_keys.create(r),
            update=lambda c, k, r: c.as_transport_keys.update(k.ID, r),
            delete=lambda c, k: c.as_transport_keys.delete(k.ID),
        ),
        ResourceKind(
            key="hsm_groups",
            title="HSM groups",
            noun="HSM group",
            columns=[
                Column("Name", lambda h: h.name or "", width=220),
                Column("ID", lambda h: h.ID, width=140),
                Column("Exchange key version", lambda h: h.hsmExchangeKeyVersion or ""),
            ],
            list_page=lambda c, p, s, _sort, _d: c.hsm_groups.list(p, s),
            extras=_hsm_extras,
        ),
        ResourceKind(
            key="network_subscriptions",
            title="Network subscriptions",
            noun="network subscription",
            columns=[
                Column("Name", lambda n: n.label, width=220),
                Column("ID", lambda n: n.ID, width=100),
                Column("Connectivity", lambda n: n.connectivity or "", width=90),
                Column("Type", lambda n: n.communicationType or "", width=90),
                Column(
                    "Used / granted",
                    lambda n: f"{n.used or 0:,} / {n.granted:,}" if n.granted else "",
                    alignment=RIGHT,
                    width=110,
                ),
                Column("Supplier", lambda n: n.supplier.commercialName if n.supplier else ""),
            ],
            list_page=lambda c, p, s, _sort, _d: c.network_subscriptions.list(p, s),
            get=lambda c, n: c.network_subscriptions.get(n.ID),
            label=lambda n: n.label,
        ),
    ]


KNOWN_TYPES = (
    MulticastGroupBrief,
    AppServerBrief,
    CellularNetworkContext,
    AsTransportKey,
    HsmGroup,
    NetworkSubscriptionBrief,
)


# --- the view-model -------------------------------------------------------------------------


class ResourceViewModel(QObject):
    count_changed = Signal(int)
    loading_changed = Signal(bool)
    error = Signal(str)
    first_page_loaded = Signal()
    detail_changed = Signal(object, dict)  # item | None, extras {title: model}
    detail_loading = Signal(bool)
    saved = Signal(object)
    save_failed = Signal(str, str)  # message, field
    deleted = Signal(str)
    client_changed = Signal(bool)

    def __init__(
        self,
        runner: TaskRunner,
        kind: ResourceKind,
        client: LpwaClient | None = None,
        *,
        page_size: int = 100,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.kind = kind
        self.client = client
        self.model: PagedTableModel[Any] = PagedTableModel(
            kind.columns, None, page_size=page_size, parent=self
        )
        self.model.count_changed.connect(self.count_changed)
        self.model.loading_changed.connect(self.loading_changed)
        self.model.error.connect(self.error)
        self.model.first_page_loaded.connect(self.first_page_loaded)
        self.detail: Any = None
        self.extras: dict[str, Any] = {}
        self.loaded = False
        self._detail_task: int | None = None
        self._detail_key: object = None

    @property
    def has_client(self) -> bool:
        return self.client is not None

    @property
    def can_create(self) -> bool:
        return self.kind.create is not None and self.kind.create_model is not None

    def can_edit(self, item: Any) -> bool:
        return item is not None and self.kind.update is not None and self.kind.writable(item)

    def can_delete(self, item: Any) -> bool:
        return item is not None and self.kind.delete is not None and self.kind.writable(item)

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.loaded = False
        self._set_detail(None, {})
        self.client_changed.emit(client is not None)
        self.model.clear()

    def ensure_loaded(self) -> None:
        """Lists load when first shown, not at connection time."""
        if not self.loaded and self.client is not None:
            self.reload()

    def reload(self) -> None:
        self.loaded = self.client is not None
        self.model.set_fetcher(self._fetcher() if self.client is not None else None)

    def _fetcher(self) -> Any:
        client, runner, kind = self.client, self.runner, self.kind
        assert client is not None

        async def fetch(page: int, size: int, sort: str | None, desc: bool) -> ListEnvelope[Any]:
            call = kind.list_page(client, page, size, sort, desc)
            return await runner.track(f"{kind.title} page {page}", call)

        return fetch

    # --- detail -----------------------------------------------------------------------

    def select_row(self, row: int) -> None:
        self.select(self.model.item(row) if row >= 0 else None)

    def select(self, item: Any) -> None:
        if self._detail_task is not None:
            self.runner.cancel(self._detail_task)
            self._detail_task = None
        self._detail_key = item
        if item is None or self.client is None:
            self._set_detail(None, {})
            return
        if self.kind.get is None and self.kind.extras is None:
            self._set_detail(item, {})
            return
        client, kind = self.client, self.kind

        async def load() -> tuple[Any, dict[str, Any]]:
            full = await kind.get(client, item) if kind.get is not None else item
            extras = await kind.extras(client, full) if kind.extras is not None else {}
            return full, extras

        def done(result: tuple[Any, dict[str, Any]], key: object = item) -> None:
            if key is not self._detail_key:
                return
            self._detail_task = None
            self.detail_loading.emit(False)
            self._set_detail(*result)

        def failed(_exc: BaseException, message: str) -> None:
            self._detail_task = None
            self.detail_loading.emit(False)
            self.error.emit(message)

        self.detail_loading.emit(True)
        self._detail_task = self.runner.run(
            f"Load {kind.noun} {kind.label(item)}", load(), on_done=done, on_error=failed
        )

    def _set_detail(self, item: Any, extras: dict[str, Any]) -> None:
        self.detail = item
        self.extras = extras
        self.detail_changed.emit(item, extras)

    # --- create, update, delete ---------------------------------------------------------

    def check(self, data: dict[str, Any], *, creating: bool) -> dict[str, str]:
        """The schema's errors for this form data, by field ('' for the whole form)."""
        model = self.kind.create_model if creating else self.kind.update_model
        if model is None:
            return {"": "not editable"}
        _request, errors = validate(model, data)
        return errors

    def save(self, data: dict[str, Any], item: Any = None) -> bool:
        creating = item is None
        model = self.kind.create_model if creating else self.kind.update_model
        action = self.kind.create if creating else self.kind.update
        if model is None or action is None or self.client is None:
            self.save_failed.emit("Not possible here", "")
            return False
        request, errors = validate(model, data)
        if request is None:
            for name, message in errors.items():
                self.save_failed.emit(message, name)
            return False
        client, kind = self.client, self.kind
        call = kind.create(client, request) if creating else kind.update(client, item, request)  # type: ignore[misc]
        fields = set(model.model_fields)

        def failed(exc: BaseException, message: str) -> None:
            name = field_named_in(exc.message, fields) if isinstance(exc, APIStatusError) else ""
            self.save_failed.emit(message, name)

        def done(result: Any) -> None:
            self.saved.emit(result)
            self.reload()
            self._set_detail(result, {})

        verb = "Create" if creating else "Update"
        self.runner.run(f"{verb} {kind.noun}", call, on_done=done, on_error=failed, quiet=True)
        return True

    def delete(self, item: Any) -> bool:
        if not self.can_delete(item) or self.client is None:
            return False
        kind = self.kind
        label = kind.label(item)

        def done(_r: object) -> None:
            self.deleted.emit(f"{kind.noun[:1].upper()}{kind.noun[1:]} {label} deleted")
            self._set_detail(None, {})
            self.reload()

        self.runner.run(
            f"Delete {kind.noun} {label}",
            kind.delete(self.client, item),
            on_done=done,  # type: ignore[misc]
        )
        return True
