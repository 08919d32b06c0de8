"""Lists of the other platform resources (multicast groups, application servers, network
contexts, AS transport keys, HSM groups, network subscriptions) behind one small view-model:
a lazy paged table filtered on the server, the selected item's detail (with extras such as an
application server's security and metrics), and create / edit / delete validated by the
schema's request models. A part of an item with its own endpoint (an application server's
security) is edited on its own (`ResourcePart`).

Each kind is a `ResourceKind`: columns, filters, how to list, get, create, update and delete;
the view-model and the pane are the same for all. An update carries the item's optimistic
concurrency version (`occContext`) as it was read, never typed: the server refuses it when
someone else changed the item meanwhile, and the view-model says so in words.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel
from PySide6.QtCore import QObject, Signal

from ..api import APIStatusError, LpwaClient
from ..schema.app_servers import (
    ALL_SCOPES,
    AppServerBrief,
    AppServerCreate,
    AppServerUpdate,
    SecurityAppServerUpdate,
    app_server_ref,
)
from ..schema.common import ListEnvelope
from ..schema.labels import code_words, value_words
from ..schema.multicast import (
    MulticastGroupBrief,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupUpdate,
)
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
from .columns import name_and_id, time_column
from .forms import automatic_data, check_only_data
from .list_detail import ListDetailViewModel
from .paged_table import RIGHT, Column, alarm_count_column
from .tasks import TaskRunner
from .validation import field_named_in, under_field, validate

log = logging.getLogger(__name__)


# list_page(client, page, size, sort, descending, filters) -> one page
ListPage = Callable[[LpwaClient, int, int, str | None, bool, Any], Awaitable[ListEnvelope[Any]]]
Getter = Callable[[LpwaClient, Any], Awaitable[Any]]
IdGetter = Callable[[LpwaClient, str], Awaitable[Any]]
Extras = Callable[[LpwaClient, Any], Awaitable[dict[str, Any]]]
# Changes run as tasks of their own: coroutines (the client's methods are).
Creator = Callable[[LpwaClient, Any], Coroutine[Any, Any, Any]]
Updater = Callable[[LpwaClient, Any, Any], Coroutine[Any, Any, Any]]
Deleter = Callable[[LpwaClient, Any], Coroutine[Any, Any, None]]


@dataclass(frozen=True)
class FilterControl:
    """One filter of a list, as the pane offers it: a prefix search ("search"), a
    comma-separated list of IDs ("ids"), or a choice among labelled values ("choice"; the
    first is the kind's default)."""

    name: str  # the filter model's field
    label: str  # what the control says when empty (placeholder or first choice)
    kind: Literal["search", "ids", "choice"]
    choices: tuple[tuple[str, Any], ...] = ()
    tooltip: str = ""

    @classmethod
    def choice(
        cls, name: str, choices: tuple[tuple[str, Any], ...], tooltip: str = ""
    ) -> FilterControl:
        """A choice among (label, value) pairs; the first is the default, and its label
        names the control."""
        return cls(name, choices[0][0], "choice", choices, tooltip)

    @classmethod
    def range(cls, field: str, words: str, tooltip: str = "") -> tuple[FilterControl, ...]:
        """A range as two searches, "<words> from" and "<words> to", of the filter model's
        `min<field>` and `max<field>`."""
        return (
            cls(f"min{field}", f"{words} from", "search", tooltip=tooltip),
            cls(f"max{field}", f"{words} to", "search", tooltip=tooltip),
        )


@dataclass
class ResourcePart:
    """A part of an item with its own endpoint, edited on its own dialog: an application
    server's security. `key` is its title among the detail's extras (where the dialog reads
    what to pre-fill); `save(client, item, request)` sends the request model."""

    key: str
    action: str  # the button, e.g. "Edit security…"
    model: type[BaseModel]
    save: Updater
    writable: Callable[[Any], bool] = lambda _item: True


@dataclass
class ResourceKind:
    key: str
    title: str  # plural, for the pane
    noun: str  # singular, for messages
    columns: list[Column[Any]]
    list_page: ListPage
    get: Getter | None = None
    # One item by the identifier other views know it by (an ID; a multicast group's EUI), to
    # open it from elsewhere (an alarm, a device's references).
    get_id: IdGetter | None = None
    extras: Extras | None = None
    create_model: type[BaseModel] | None = None
    update_model: type[BaseModel] | None = None
    create: Creator | None = None
    update: Updater | None = None
    delete: Deleter | None = None
    writable: Callable[[Any], bool] = lambda _item: True
    label: Callable[[Any], str] = lambda item: str(getattr(item, "name", None) or item.ID)
    secret_fields: frozenset[str] = field(default_factory=frozenset)
    filters: BaseModel | None = None  # the default filters (None: the list has none)
    filter_controls: tuple[FilterControl, ...] = ()
    parts: tuple[ResourcePart, ...] = ()
    # What an empty, unfiltered list says ('' : "No <title> yet"); e.g. a lookup, not a list.
    empty_text: str = ""
    # What still uses an item, said before deleting it ('' : nothing known to).
    in_use: Callable[[Any], str] = lambda _item: ""


def counted(count: int | None, one: str, many: str) -> str:
    """ "570 devices", "1 multicast group"; '' for none or unknown."""
    return f"{count:,} {one if count == 1 else many}" if count else ""


def app_server_users(server: Any) -> str:
    """ "570 devices and 2 multicast groups send their traffic to it." ('' for none)."""
    users = [
        counted(getattr(server, "deviceCount", None), "device", "devices"),
        counted(
            getattr(server, "multicastGroupCount", None), "multicast group", "multicast groups"
        ),
    ]
    said = " and ".join(u for u in users if u)
    if not said:
        return ""
    one = said.startswith("1 ") and " and " not in said
    return f"{said} {'sends its' if one else 'send their'} traffic to it."


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
            alarm_count_column(),
            time_column("Last downlink", "lastDwTimestamp", width=120),
            time_column("Created", "creationDate", sortable=True),
        ],
        list_page=lambda c, p, s, sort, d, f: c.multicast_groups.list(
            p, s, filters=f, sort=sort, descending=d
        ),
        filters=MulticastGroupFilter(),
        filter_controls=(
            FilterControl(
                "query",
                "Search name or EUI…",
                "search",
                tooltip="Groups whose name or EUI starts with this",
            ),
            FilterControl(
                "appServerID",
                "App server IDs (all must match)",
                "ids",
                tooltip="Groups associated with every one of these application servers "
                "(IDs, comma-separated)",
            ),
        ),
        get=lambda c, g: c.multicast_groups.get(g.path_ref),
        get_id=lambda c, eui: c.multicast_groups.get("e" + eui.upper()),
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
            *name_and_id(220, 110, sortable=True),
            Column("Scope", lambda a: a.scope.title(), width=90),
            Column("Type", lambda a: value_words("type", a.type), width=100),
            Column("State", lambda a: value_words("state", a.state), width=80),
            Column("Health", lambda a: code_words(a.healthState or ""), width=80),
            Column("Devices", lambda a: a.deviceCount or "", alignment=RIGHT, width=70),
            Column("Groups", lambda a: a.multicastGroupCount or "", alignment=RIGHT),
        ],
        list_page=lambda c, p, s, sort, d, f: c.app_servers.list(
            p, s, filters=f, sort=sort, descending=d
        ),
        # The platform lists SUBSCRIPTION servers only when no scope is sent; the console
        # shows both unless the user picks one.
        filters=ALL_SCOPES,
        filter_controls=(
            FilterControl.choice(
                "scope",
                (
                    ("All scopes", list(ALL_SCOPES.scope)),
                    ("Subscription", ["SUBSCRIPTION"]),
                    ("Operator", ["OPERATOR"]),
                ),
                tooltip="SUBSCRIPTION servers are managed here; OPERATOR ones are provided by "
                "the operator and read-only",
            ),
            FilterControl(
                "query",
                "Search name or ID…",
                "search",
                tooltip="Servers whose name or ID starts with this",
            ),
        ),
        get=lambda c, a: c.app_servers.get(a.path_ref),
        get_id=lambda c, i: c.app_servers.get(app_server_ref(i)),
        extras=_app_server_extras,
        create_model=AppServerCreate,
        update_model=AppServerUpdate,
        create=lambda c, r: c.app_servers.create(r),
        update=lambda c, a, r: c.app_servers.update(a.path_ref, r),
        delete=lambda c, a: c.app_servers.delete(a.path_ref),
        in_use=app_server_users,
        writable=lambda a: isinstance(a, AppServerBrief) and a.writable,
        parts=(
            ResourcePart(
                key="Security",
                action="Edit security…",
                model=SecurityAppServerUpdate,
                save=lambda c, a, r: c.app_servers.update_security(a.path_ref, r),
                writable=lambda a: isinstance(a, AppServerBrief) and a.writable,
            ),
        ),
    )


def read_by_id(read: IdGetter) -> dict[str, Any]:
    """`get` and `get_id` of a kind whose items are read by their ID, as ResourceKind
    arguments: one call for both."""
    return {"get": lambda c, item: read(c, item.ID), "get_id": read}


def _by_id(attr: str) -> dict[str, Any]:
    """List, get, create, update and delete of a resource the client addresses by its ID
    (`client.<attr>`), as ResourceKind arguments."""
    return {
        "list_page": lambda c, p, s, _sort, _d, _f: getattr(c, attr).list(p, s),
        **read_by_id(lambda c, item_id: getattr(c, attr).get(item_id)),
        "create": lambda c, r: getattr(c, attr).create(r),
        "update": lambda c, item, r: getattr(c, attr).update(item.ID, r),
        "delete": lambda c, item: getattr(c, attr).delete(item.ID),
    }


def network_kinds() -> list[ResourceKind]:
    return [
        ResourceKind(
            key="network_contexts",
            title="Network contexts",
            noun="network context",
            columns=[
                *name_and_id(200, 140),
                Column("APN", lambda n: n.apn or "", width=160),
                Column("PLMN", lambda n: n.plmnID or "", width=80),
                Column("IP", lambda n: value_words("ipVersion", n.ipVersion), width=90),
                Column("Description", lambda n: n.description or ""),
            ],
            create_model=CellularNetworkContextCreate,
            update_model=CellularNetworkContextUpdate,
            **_by_id("network_contexts"),
        ),
        ResourceKind(
            key="as_transport_keys",
            title="AS transport keys",
            noun="AS transport key",
            columns=name_and_id(220),
            create_model=AsTransportKeyCreate,
            update_model=AsTransportKeyUpdate,
            **_by_id("as_transport_keys"),
        ),
        ResourceKind(
            key="hsm_groups",
            title="HSM groups",
            noun="HSM group",
            columns=[
                *name_and_id(220, 140),
                Column("Exchange key version", lambda h: h.hsmExchangeKeyVersion or ""),
            ],
            list_page=lambda c, p, s, _sort, _d, _f: c.hsm_groups.list(p, s),
            extras=_hsm_extras,
        ),
        ResourceKind(
            key="network_subscriptions",
            title="Network subscriptions",
            noun="network subscription",
            columns=[
                *name_and_id(220, 100, name=lambda n: n.label),
                Column(
                    "Connectivity", lambda n: value_words("connectivity", n.connectivity), width=90
                ),
                Column(
                    "Type",
                    lambda n: value_words("communicationType", n.communicationType),
                    width=90,
                ),
                Column(
                    "Used / granted",
                    lambda n: f"{n.used or 0:,} / {n.granted:,}" if n.granted else "",
                    alignment=RIGHT,
                    width=110,
                ),
                Column("Supplier", lambda n: n.supplier.commercialName if n.supplier else ""),
            ],
            list_page=lambda c, p, s, _sort, _d, _f: c.network_subscriptions.list(p, s),
            **read_by_id(lambda c, i: c.network_subscriptions.get(i)),
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


def is_conflict(exc: BaseException) -> bool:
    """The server refused an update that carried a stale occContext version. How a platform
    says so is not documented (§7): 409 or 412, or a message about occContext."""
    if not isinstance(exc, APIStatusError):
        return False
    return exc.status_code in (409, 412) or "occContext" in exc.message


def conflict_message(noun: str) -> str:
    return (
        f"Someone else changed this {noun} since you opened it, so your change was not "
        f"saved. Close this dialog and reopen the {noun} to see their change; what you "
        "typed is still here."
    )


class ResourceViewModel(ListDetailViewModel):
    not_offered = Signal(str)  # the platform does not offer this list: why, once
    detail_changed = Signal(object, dict)  # item | None, extras {title: model}
    saved = Signal(object)
    save_failed = Signal(str, str)  # message, field
    part_saved = Signal(str, object)  # part key, what the server answered
    part_failed = Signal(str, str, str)  # part key, message, field
    deleted = Signal(str)

    load_at_start = False  # lists load when first shown, not at connection time

    def __init__(
        self,
        runner: TaskRunner,
        kind: ResourceKind,
        client: LpwaClient | None = None,
        *,
        page_size: int = 100,
        parent: QObject | None = None,
    ) -> None:
        self.kind = kind  # before the base makes the table of its columns
        super().__init__(runner, client, page_size=page_size, parent=parent)
        self.list_title = kind.title
        self.model.not_offered.connect(self.not_offered)

    def _columns(self) -> list[Column[Any]]:
        return self.kind.columns

    def _initial_filters(self) -> Any:
        return self.kind.filters

    def _setup(self) -> None:
        self.detail: Any = None
        self.extras: dict[str, Any] = {}
        self.loaded = False
        self._detail_key: object = None

    def _list_page(
        self, client: LpwaClient, filters: Any, page: int, size: int, sort: str | None, desc: bool
    ) -> Awaitable[ListEnvelope[Any]]:
        return self.kind.list_page(client, page, size, sort, desc, filters)

    def item_key(self, item: Any) -> object:
        return getattr(item, "ID", None)

    def _is_item(self, item: Any, key: object) -> bool:
        """`row_of` takes an ID or an EUI."""
        return key in (getattr(item, "ID", None), getattr(item, "EUI", None))

    @property
    def not_offered_reason(self) -> str | None:
        """Why this list is hidden ("This platform does not offer cellular network
        contexts"), or None: it is asked once per client, not again on each refresh."""
        return self.model.not_offered_reason

    @property
    def can_create(self) -> bool:
        return (
            self.kind.create is not None
            and self.kind.create_model is not None
            and self.not_offered_reason is None
        )

    def can_edit(self, item: Any) -> bool:
        return item is not None and self.kind.update is not None and self.kind.writable(item)

    def can_delete(self, item: Any) -> bool:
        return item is not None and self.kind.delete is not None and self.kind.writable(item)

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.loaded = False
        self._set_detail(None, {})
        # Cleared before telling the pane: a visible pane loads on client_changed, and a
        # clear after that would drop the load and show a false empty list.
        self.model.clear()
        self.client_changed.emit(client is not None)

    def ensure_loaded(self) -> None:
        """Lists load when first shown, not at connection time."""
        if not self.loaded and self.client is not None:
            self.reload()

    def reload(self) -> None:
        self.loaded = self.client is not None
        super().reload()

    # --- filters ------------------------------------------------------------------------

    @property
    def filtered(self) -> bool:
        """Whether filters other than the kind's default hide some items."""
        return self.filters is not None and self.filters != self.kind.filters

    def _filters_set(self) -> None:
        """The list loads again if it was loaded (else when first shown)."""
        if self.loaded:
            self.reload()

    # --- detail -----------------------------------------------------------------------

    def select_row(self, row: int) -> None:
        self.select(self.model.item(row) if row >= 0 else None)

    def select(self, item: Any, *, fetch: bool = True) -> None:
        """Show `item` and load its detail: the full item (unless `fetch` is false: `item`
        is full already, e.g. what an update answered) and its extras."""
        self._cancel_detail()
        self._detail_key = item
        if item is None or self.client is None:
            self._set_detail(None, {})
            return
        get = self.kind.get if fetch else None
        if get is None and self.kind.extras is None:
            self._set_detail(item, {})
            return
        client, kind = self.client, self.kind

        async def load() -> tuple[Any, dict[str, Any]]:
            full = await get(client, item) if get is not None else item
            extras = await kind.extras(client, full) if kind.extras is not None else {}
            return full, extras

        def done(result: tuple[Any, dict[str, Any]], key: object = item) -> None:
            if key is not self._detail_key:
                return
            self._detail_task = None
            self.detail_loading.emit(False)
            self._set_detail(*result)

        def failed(_exc: BaseException, message: str, key: object = item) -> None:
            if key is not self._detail_key:
                return
            self._detail_task = None
            self.detail_loading.emit(False)
            self.error.emit(message)

        self.detail_loading.emit(True)
        self._detail_task = self.runner.run(
            f"Load {kind.noun} {kind.label(item)}", load(), on_done=done, on_error=failed
        )

    def open_id(self, item_id: str) -> bool:
        """Show the item with this identifier, read by itself (it may be in no page loaded).
        False when the kind cannot read one item (the pane then looks among its rows)."""
        get_id = self.kind.get_id
        if get_id is None or self.client is None:
            return False
        self._cancel_detail()
        key = self._detail_key = object()
        client, kind = self.client, self.kind

        async def load() -> tuple[Any, dict[str, Any]]:
            full = await get_id(client, item_id)
            extras = await kind.extras(client, full) if kind.extras is not None else {}
            return full, extras

        def done(result: tuple[Any, dict[str, Any]]) -> None:
            if key is self._detail_key:
                self._detail_task = None
                self.detail_loading.emit(False)
                self._set_detail(*result)

        def failed(_exc: BaseException, message: str) -> None:
            if key is self._detail_key:
                self._detail_task = None
                self.detail_loading.emit(False)
                self.error.emit(f"{kind.noun} {item_id}: {message}")

        self.detail_loading.emit(True)
        self._detail_task = self.runner.run(
            f"Load {kind.noun} {item_id}", load(), on_done=done, on_error=failed
        )
        return True

    def _set_detail(self, item: Any, extras: dict[str, Any]) -> None:
        self.detail = item
        self.extras = extras
        self.detail_changed.emit(item, extras)

    @staticmethod
    def _same_item(a: Any, b: Any) -> bool:
        """The same platform item (by ID or EUI), maybe read at another time."""
        if a is None or b is None:
            return False
        if a is b:
            return True
        for key in ("ID", "EUI"):
            mine = getattr(a, key, None)
            if mine is not None and mine == getattr(b, key, None):
                return True
        return False

    def _refresh_detail(self, item: Any) -> None:
        """Load the shown item again (after a refusal: its new version, its new values)."""
        if self._same_item(self.detail, item):
            self.select(self.detail)

    # --- create, update, delete ---------------------------------------------------------

    def check(self, data: dict[str, Any], *, creating: bool, item: Any = None) -> dict[str, str]:
        """The schema's errors for this form data, by field ('' for the whole form); an
        update is checked against what cannot change (e.g. the server's type)."""
        model = self.kind.create_model if creating else self.kind.update_model
        if model is None:
            return {"": "not editable"}
        fixed = {} if creating else check_only_data(model, item)
        _request, errors = validate(model, {**data, **fixed})
        return errors

    def save(self, data: dict[str, Any], item: Any = None) -> bool:
        """Create (no `item`) or update `item` with the form's data. An update carries the
        item's occContext version as it was read (the form never shows it)."""
        creating = item is None
        model = self.kind.create_model if creating else self.kind.update_model
        action = self.kind.create if creating else self.kind.update
        if model is None or action is None or self.client is None:
            self.save_failed.emit("Not possible here", "")
            return False
        occ = {} if creating else automatic_data(model, item)
        fixed = {} if creating else check_only_data(model, item)
        request, errors = validate(model, {**data, **fixed, **occ})
        if request is None:
            for name, message in errors.items():
                self.save_failed.emit(message, name)
            return False
        client, kind = self.client, self.kind
        if creating:
            assert kind.create is not None
            call = kind.create(client, request)
        else:
            assert kind.update is not None
            call = kind.update(client, item, request)
        fields = set(model.model_fields)

        def failed(exc: BaseException, message: str) -> None:
            if occ and is_conflict(exc):
                self.save_failed.emit(conflict_message(kind.noun), "")
                self._refresh_detail(item)
                return
            name = field_named_in(exc.message, fields) if isinstance(exc, APIStatusError) else ""
            name = "" if name in occ else name
            self.save_failed.emit(under_field(message, name), name)

        def done(result: Any) -> None:
            self.saved.emit(result)
            self.reload()
            # What the server answered, with the extras of the same item meanwhile; then
            # its extras again (an update may change them, a new item has none yet).
            kept = self.extras if self._same_item(self.detail, result) else {}
            self._set_detail(result, kept)
            self.select(result, fetch=False)

        verb = "Create" if creating else "Update"
        self.runner.run(f"{verb} {kind.noun}", call, on_done=done, on_error=failed, quiet=True)
        return True

    def delete(self, item: Any) -> bool:
        if not self.can_delete(item) or self.client is None:
            return False
        kind = self.kind
        label = kind.label(item)
        assert kind.delete is not None

        def done(_r: object) -> None:
            self.deleted.emit(f"{kind.noun[:1].upper()}{kind.noun[1:]} {label} deleted")
            self._set_detail(None, {})
            self.reload()

        self.runner.run(
            f"Delete {kind.noun} {label}",
            kind.delete(self.client, item),
            on_done=done,
        )
        return True

    # --- parts edited on their own (an application server's security) ----------------------

    def part(self, key: str) -> ResourcePart:
        return next(p for p in self.kind.parts if p.key == key)

    def can_edit_part(self, key: str, item: Any) -> bool:
        part = next((p for p in self.kind.parts if p.key == key), None)
        if part is None or item is None or self.client is None:
            return False
        return part.writable(item)

    def part_current(self, key: str) -> Any:
        """What the part's dialog pre-fills from: the detail's extra of that title (e.g. GET
        /security), else the item itself (which holds the same fields)."""
        return self.extras.get(key) if self.extras.get(key) is not None else self.detail

    def check_part(self, key: str, data: dict[str, Any]) -> dict[str, str]:
        _request, errors = validate(self.part(key).model, data)
        return errors

    def save_part(self, key: str, data: dict[str, Any], item: Any, current: Any = None) -> bool:
        """Send the part's request for `item`, with the occContext version of `current` (what
        the dialog showed) or of the item; then show the item again, extras reloaded."""
        part = self.part(key)
        if self.client is None or not part.writable(item):
            self.part_failed.emit(key, "Not possible here", "")
            return False
        occ = automatic_data(part.model, current, item)
        request, errors = validate(part.model, {**data, **occ})
        if request is None:
            for name, message in errors.items():
                self.part_failed.emit(key, message, name)
            return False
        fields = set(part.model.model_fields)
        kind = self.kind

        def failed(exc: BaseException, message: str) -> None:
            if occ and is_conflict(exc):
                self.part_failed.emit(key, conflict_message(kind.noun), "")
                self._refresh_detail(item)
                return
            name = field_named_in(exc.message, fields) if isinstance(exc, APIStatusError) else ""
            name = "" if name in occ else name
            self.part_failed.emit(key, under_field(message, name), name)

        def done(result: Any) -> None:
            self.part_saved.emit(key, result)
            if self._same_item(self.detail, item):
                self.select(self.detail)  # its version changed, and maybe more

        self.runner.run(
            f"Update {key.lower()} of {kind.noun} {kind.label(item)}",
            part.save(self.client, item, request),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        return True
