"""The operator's operations (Document 2 §4.1) as the console shows them: the provisioning and
command queues, which follow the platform live, the SIM cards, the operator's devices and HSM
groups. Each list is a `ResourceKind` of the shared resource lists; the queues' view-models
(`LiveResourceViewModel`) re-read the pages the user sees every few seconds and update them in
place, so the selection stays on the same item and the view does not jump.

Only an operator account may read these lists: `OperationsAccess` asks once per connection
and the pane shows, for any other account, why it is empty.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from pydantic import ValidationError
from PySide6.QtCore import QObject, Signal

from ..api import APIStatusError, LpwaClient
from ..schema.common import ListEnvelope
from ..schema.labels import (
    PROV_ACTION_WORDS,
    PROV_STATE_WORDS,
    PROV_TYPE_WORDS,
    SUB_SYSTEM_WORDS,
)
from ..schema.operations import (
    PROV_TYPES,
    SUB_SYSTEMS,
    CommandQueueFilter,
    OperatorDeviceFilter,
    OperatorHsmGroupCreate,
    OperatorHsmGroupUpdate,
    ProvisioningQueueFilter,
    SimCardFilter,
)
from .client_view_model import ClientViewModel
from .columns import time_column
from .latest import Latest
from .paged_table import RIGHT, Column, PagedTableModel
from .resources import FilterControl, ListPage, ResourceKind, ResourceViewModel
from .station_command_answers import COMPLETION_WORDS, FAILED_COMPLETIONS
from .station_command_catalogue import command_spec
from .tasks import TaskRunner

log = logging.getLogger(__name__)
T = TypeVar("T")

REFRESH_MS = 3000  # how often a shown queue re-reads its visible page
PANE = "operations"
QUEUE_KEYS = frozenset({"provisioning_queue", "command_queue"})

TYPE_WORDS = PROV_TYPE_WORDS
ACTION_WORDS = PROV_ACTION_WORDS
CMD_STATE_WORDS = {"PENDING": "Waiting", "PROCESSING": "Running", "COMPLETED": "Completed"}
NOT_OPERATOR = (
    "Operations are the operator's: the provisioning and command queues, SIM cards and "
    "devices of the whole platform. Sign in with an operator account to see them."
)


def words(code: str | None, table: Mapping[str, str]) -> str:
    """A code in words; an unknown one as words made from it ("SOME_TYPE" -> "Some type")."""
    if not code:
        return ""
    return table.get(code) or code.replace("_", " ").capitalize()


def command_words(item: Any) -> str:
    """A command queue item's command: its title (the API name it was sent as), else its
    type in words."""
    if item.command:
        try:
            return command_spec(item.command).title
        except KeyError:
            pass
    return words(item.type, {"CHANGE_SUPPORT_PASSWORD": "Change the support password"})


def command_state_words(state: str | None) -> str:
    if state in FAILED_COMPLETIONS:
        return f"Failed ({state})"
    return words(state, CMD_STATE_WORDS)


def _state_tooltip(item: Any) -> str:
    return COMPLETION_WORDS.get(item.state, item.state or "")


def _uid_label(prefix: str) -> Callable[[Any], str]:
    return lambda item: f"{prefix} {item.UID}"


def _choice(values: Sequence[str], table: Mapping[str, str], everything: str) -> Any:
    return ((everything, None), *((words(v, table), v) for v in values))


def _newest_first(read: Callable[[LpwaClient], Callable[..., Awaitable[Any]]]) -> ListPage:
    """A queue's pages (`read(client)(page, size, filters=, descending=)`): the newest
    first unless the user sorts a column."""
    return lambda c, p, s, sort, d, f: read(c)(p, s, filters=f, descending=d if sort else True)


# --- what a queue item concerns ------------------------------------------------------------


def target_of(kind_key: str, item: Any) -> tuple[str, str, str | None] | None:
    """Where the thing an item concerns is opened: (pane, item, section), or None.

    A device opens among the operator's devices (this pane), by DevEUI; a base station in the
    partners pane, on its partner with the station's LRR ID as the section; an HSM group
    among this pane's HSM groups."""
    if kind_key == "provisioning_queue":
        if item.type == "DEVICE" and item.entityID:
            return PANE, item.entityID, "operator_devices"
        if item.type == "BASE_STATION" and item.entityID and item.partnerID:
            return "partners", item.partnerID, item.entityID
        if item.type == "HSM_GROUP" and item.entityID:
            return PANE, item.entityID, "operator_hsm_groups"
    if kind_key == "command_queue" and item.lrrID and item.partnerID:
        return "partners", item.partnerID, item.lrrID
    return None


# --- the kinds --------------------------------------------------------------------------------


# A subscriber's or partner's ID -> how a list shows it ("Acme Utilities (100)").
Names = Callable[[str], str]


def _as_is(ident: str) -> str:
    return ident


def subscriber_column(names: Names) -> Column[Any]:
    """The subscriber an item belongs to, named ("Acme Utilities (100)") once the names
    are read."""
    return Column("Subscriber", lambda item: names(item.subscriberID or ""), width=150)


class PartnerNames(QObject):
    """The operator's partners by ID, read once per session: the queues and lists name a
    subscriber ("Acme Utilities (100)"), not only its number."""

    changed = Signal()

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.names: dict[str, str] = {}
        self._latest = Latest()

    def set_client(self, client: LpwaClient | None) -> None:
        self.names = {}
        ticket = self._latest.advance()
        if client is None:
            self.changed.emit()
            return
        from .references import list_references

        def done(items: list[tuple[str, str, Any]]) -> None:
            if self._latest.is_current(ticket):
                self.names = {ident: name for ident, name, _p in items if name}
                self.changed.emit()

        self.runner.run(
            "Read the partners' names",
            list_references(client, "operatorPartners"),
            on_done=done,
            on_error=lambda _e, _m: None,  # the IDs stay: the lists still read
            quiet=True,
        )

    def text(self, ident: str) -> str:
        name = self.names.get(ident)
        return f"{name} ({ident})" if name and name != ident else ident


def provisioning_kind(names: Names = _as_is) -> ResourceKind:
    return ResourceKind(
        key="provisioning_queue",
        title="Provisioning queue",
        noun="provisioning request",
        columns=[
            time_column("Queued", "creationTimestamp", width=125, sortable=True),
            Column("What", lambda i: words(i.type, TYPE_WORDS), width=120),
            Column("Action", lambda i: words(i.action, ACTION_WORDS), width=95),
            Column("Concerns", lambda i: i.entityID or "", width=150),
            Column(
                "Subsystem",
                lambda i: words(i.subSystem, SUB_SYSTEM_WORDS),
                width=190,
                tooltip=lambda i: f"Sent to the {words(i.subSystem, SUB_SYSTEM_WORDS)}",
            ),
            Column("Owner", lambda i: names(i.subscriberID or i.partnerID or ""), width=150),
            Column("State", lambda i: words(i.state, PROV_STATE_WORDS), width=80),
        ],
        list_page=_newest_first(lambda c: c.operations.provisioning_queue),
        get_id=lambda c, uid: c.operations.provisioning_item(uid),
        label=_uid_label("Provisioning request"),
        filters=ProvisioningQueueFilter(),
        filter_controls=(
            FilterControl.choice(
                "subSystem",
                _choice(SUB_SYSTEMS, SUB_SYSTEM_WORDS, "All subsystems"),
                tooltip="Only the requests sent to this subsystem",
            ),
            FilterControl.choice(
                "type",
                _choice(PROV_TYPES, TYPE_WORDS, "Everything"),
                tooltip="Only the requests about this kind of thing",
            ),
        ),
    )


def command_kind() -> ResourceKind:
    return ResourceKind(
        key="command_queue",
        title="Command queue",
        noun="command",
        columns=[
            time_column("Queued", "creationTimestamp", width=125, sortable=True),
            Column("Command", command_words, width=190),
            Column("Station", lambda i: i.lrrID or "", width=90),
            Column("Partner", lambda i: i.partnerID or "", width=110),
            Column(
                "State", lambda i: command_state_words(i.state), width=110, tooltip=_state_tooltip
            ),
            time_column("Started", "startTimestamp", width=125),
            time_column("Ended", "endTimestamp", width=125),
            Column("By", lambda i: i.who or ""),
        ],
        list_page=_newest_first(lambda c: c.operations.command_queue),
        get_id=lambda c, uid: c.operations.command(uid),
        label=_uid_label("Command"),
        filters=CommandQueueFilter(),
        filter_controls=(
            FilterControl.choice(
                "state",
                (
                    ("Any state", None),
                    *((w, s) for s, w in CMD_STATE_WORDS.items()),
                    *((f"Failed ({s})", s) for s in sorted(FAILED_COMPLETIONS)),
                ),
            ),
            FilterControl(
                "lrrID",
                "Station LRR ID…",
                "search",
                tooltip="The commands of one station (its LRR ID)",
            ),
        ),
    )


def sims_kind(names: Names = _as_is) -> ResourceKind:
    return ResourceKind(
        key="sim_cards",
        title="SIM cards",
        noun="SIM card",
        columns=[
            Column("IMSI", lambda s: s.IMSI, width=140),
            Column("ICCID", lambda s: s.ICCID or "", width=170),
            Column("Device IMEI", lambda s: s.IMEI or "", width=140),
            Column("Device", lambda s: s.deviceName or "", width=200),
            subscriber_column(names),
            time_column("Since", "creationTimestamp"),
        ],
        list_page=lambda c, p, s, _sort, _d, f: c.operations.sims(p, s, filters=f),
        label=lambda s: f"SIM card {s.IMSI}",
        filters=SimCardFilter(),
        filter_controls=(
            FilterControl(
                "imsi",
                "Search IMSI…",
                "search",
                tooltip="SIM cards whose IMSI starts with these digits",
            ),
        ),
    )


def device_filter_for(identifier: str) -> OperatorDeviceFilter:
    """A device by its DevEUI, or by its IMEI (14 or 15 digits: what queue items name a
    cellular device by)."""
    if identifier.isdigit() and len(identifier) in (14, 15):
        return OperatorDeviceFilter(imei=identifier)
    return OperatorDeviceFilter(devEUI=identifier)


async def _device_by_eui(client: LpwaClient, identifier: str) -> Any:
    page = await client.operations.devices(1, 10, filters=device_filter_for(identifier))
    if not page.briefs:
        raise LookupError(f"No device {identifier} on the platform")
    return page.briefs[0]


def operator_devices_kind(names: Names = _as_is) -> ResourceKind:
    return ResourceKind(
        key="operator_devices",
        title="Devices",
        noun="device",
        columns=[
            Column("DevEUI", lambda d: d.devEUI or "", width=150),
            Column("IMEI (14 digits)", lambda d: d.imei or "", width=130),
            Column("Name", lambda d: d.name or "", width=200),
            Column(
                "Connectivity",
                lambda d: "Cellular" if d.connectivity == "CELLULAR" else "LoRaWAN",
                width=90,
            ),
            Column(
                "Address",
                lambda d: d.devAddr or "",
                width=110,
                tooltip=lambda d: "IP address" if d.connectivity == "CELLULAR" else "DevAddr",
            ),
            subscriber_column(names),
            Column(
                "LoRaWAN debugging",
                lambda d: "On" if d.lorawanDebug else "",
                width=80,
                tooltip=lambda d: f"Since {d.lorawanDebugSince}" if d.lorawanDebugSince else None,
            ),
        ],
        list_page=lambda c, p, s, _sort, _d, f: c.operations.devices(p, s, filters=f),
        get_id=_device_by_eui,
        label=lambda d: d.name or d.devEUI or d.imei or d.UID,
        filters=OperatorDeviceFilter(),
        filter_controls=(
            FilterControl(
                "imei",
                "IMEI (14 or 15 digits)…",
                "search",
                tooltip="The device with exactly this IMEI",
            ),
            FilterControl.choice(
                "lorawanDebug",
                (("All devices", None), ("In LoRaWAN debugging", True)),
                tooltip="Only the devices whose LoRaWAN debugging is on",
            ),
        ),
    )


def operator_hsm_kind(names: Names = _as_is) -> ResourceKind:
    return ResourceKind(
        key="operator_hsm_groups",
        title="HSM groups",
        noun="HSM group",
        columns=[
            Column("ID", lambda g: g.ID, width=160),
            Column("Name", lambda g: g.name or "", width=180),
            subscriber_column(names),
            Column("Network key version", lambda g: g.hsmNwkKeyVersion or "", width=170),
            Column("Application key version", lambda g: g.hsmAppKeyVersion or "", width=170),
            Column("Exchange key", lambda g: g.hsmExchangeKeyVersion or "", alignment=RIGHT),
        ],
        list_page=lambda c, p, s, _sort, _d, _f: c.operations.hsm_groups(p, s),
        get=lambda c, g: c.operations.hsm_group(g.UID),
        get_id=lambda c, ref: c.operations.hsm_group(f"id:{ref}"),
        create_model=OperatorHsmGroupCreate,
        update_model=OperatorHsmGroupUpdate,
        create=lambda c, r: c.operations.create_hsm_group(r),
        update=lambda c, g, r: c.operations.update_hsm_group(g.UID, r),
    )


def operations_kinds(names: Names = _as_is) -> list[ResourceKind]:
    return [provisioning_kind(names), command_kind(), sims_kind(names),
            operator_devices_kind(names), operator_hsm_kind(names)]  # fmt: skip


# --- live queues ------------------------------------------------------------------------------


class LiveTableModel(PagedTableModel[T], Generic[T]):
    """A lazy paged table whose shown pages can be re-read in place: rows added or gone at
    the end, the pages' content replaced, and the persistent indexes (selection, current
    row) moved to where their items went, by `key`. Other cached pages are dropped (their
    rows may have moved) and come back when the view asks for them."""

    def __init__(self, columns: list[Column[T]], key: Callable[[T], object], **kw: Any) -> None:
        super().__init__(columns, None, **kw)
        self._key = key
        self._refreshing = False

    @property
    def refreshing(self) -> bool:
        return self._refreshing

    def pages_of(self, first_row: int, last_row: int) -> list[int]:
        """The pages (0-based) holding these rows, and the first (it carries the count)."""
        if self._rows == 0:
            return [0]
        last_row = max(first_row, min(last_row, self._rows - 1))
        size = self.page_size
        return sorted({0, *range(max(0, first_row) // size, last_row // size + 1)})

    def refresh(
        self,
        first_row: int,
        last_row: int,
        fetch: Callable[[int, int, str | None, bool], Any] | None = None,
    ) -> bool:
        """Re-read the pages of these rows (`fetch` as the model's, e.g. one that does not
        show in the activity list). False when nothing was started (no source, the first
        page not there yet, pages loading, a refresh running)."""
        fetch = fetch or self._fetch
        if fetch is None or self._fetch is None or self._refreshing or self._in_flight:
            return False
        if 0 not in self._pages and self._rows == 0:
            return False
        pages = self.pages_of(first_row, last_row)
        generation, size = self.generation, self.page_size
        sort, descending = self.sort_key, self.descending

        async def read() -> list[Any]:
            return list(
                await asyncio.gather(*(fetch(p + 1, size, sort, descending) for p in pages))
            )

        self._refreshing = True
        future = asyncio.ensure_future(read())
        future.add_done_callback(lambda f: self._refreshed(generation, pages, f))
        return True

    def _refreshed(self, generation: int, pages: list[int], future: asyncio.Future[Any]) -> None:
        self._refreshing = False
        exc = None if future.cancelled() else future.exception()
        if generation != self.generation or future.cancelled():
            return
        if exc is not None:
            log.info("live refresh failed: %s", exc)  # the next one tries again
            return
        envelopes: list[ListEnvelope[T]] = future.result()
        self.apply_pages(dict(zip(pages, envelopes, strict=True)))

    def apply_pages(self, envelopes: dict[int, ListEnvelope[T]]) -> None:
        """Put re-read pages in place (page 0 must be among them: its count is the total)."""
        first = envelopes[0]
        total = first.count if first.count is not None else len(first.briefs)
        old_pages = self._pages
        old_keys = {}
        for index in self.persistentIndexList():
            item = self._item_in(old_pages, index.row())
            if item is not None:
                old_keys[index.row()] = self._key(item)
        if total > self._rows:
            self.beginInsertRows(self.index(-1, -1), self._rows, total - 1)
            self._rows = total
            self.endInsertRows()
        elif total < self._rows:
            self.beginRemoveRows(self.index(-1, -1), total, self._rows - 1)
            self._rows = total
            self.endRemoveRows()
        self.layoutAboutToBeChanged.emit()
        self._pages = OrderedDict((p, list(e.briefs)) for p, e in sorted(envelopes.items()))
        rows_of: dict[object, int] = {}
        for page, rows in self._pages.items():
            for offset, item in enumerate(rows):
                rows_of.setdefault(self._key(item), page * self.page_size + offset)
        moved_from, moved_to = [], []
        for index in self.persistentIndexList():
            key = old_keys.get(index.row())
            row = rows_of.get(key) if key is not None else None
            if row is not None and row != index.row():
                moved_from.append(index)
                moved_to.append(self.index(row, index.column()))
        if moved_from:
            self.changePersistentIndexList(moved_from, moved_to)
        self.layoutChanged.emit()
        self.count_changed.emit(self._rows)

    def _item_in(self, pages: dict[int, list[T]], row: int) -> T | None:
        page, offset = divmod(row, self.page_size)
        rows = pages.get(page)
        return rows[offset] if rows is not None and 0 <= offset < len(rows) else None


class OperationsViewModel(ResourceViewModel):
    """A list of the pane: filters typed wrong (an IMEI of 3 digits) are said, not sent."""

    def update_filters(self, **changes: Any) -> None:
        try:
            super().update_filters(**changes)
        except ValidationError as exc:
            self.error.emit(validation_words(exc))


def validation_words(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    message = str(first.get("msg", "not valid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


class LiveResourceViewModel(OperationsViewModel):
    """A resource list whose shown page follows the platform: `refresh_visible(first, last)`
    (the pane calls it on a timer while the list is shown) re-reads those rows quietly, and
    the item shown in the detail is replaced by its newer self."""

    refreshed = Signal()

    def _make_model(self, columns: list[Column[Any]], page_size: int) -> PagedTableModel[Any]:
        model: LiveTableModel[Any] = LiveTableModel(
            columns, lambda item: item.UID, page_size=page_size, parent=self
        )
        model.layoutChanged.connect(self._after_refresh)
        return model

    @property
    def live_model(self) -> LiveTableModel[Any]:
        assert isinstance(self.model, LiveTableModel)
        return self.model

    def refresh_visible(self, first_row: int, last_row: int) -> bool:
        client, kind, filters = self.client, self.kind, self.filters
        if client is None or not self.loaded:
            return False

        async def quiet(page: int, size: int, sort: str | None, desc: bool) -> Any:
            return await kind.list_page(client, page, size, sort, desc, filters)

        return self.live_model.refresh(first_row, last_row, quiet)

    def _after_refresh(self) -> None:
        detail = self.detail
        if detail is not None:
            uid = getattr(detail, "UID", None)
            for page in self.model.loaded_pages():
                for row in range(page * self.model.page_size, (page + 1) * self.model.page_size):
                    item = self.model.item(row)
                    if item is not None and uid == item.UID:
                        if item != detail:
                            self.select(item, fetch=False)
                        break
        self.refreshed.emit()


# --- who may use the pane ---------------------------------------------------------------------


class OperationsAccess(ClientViewModel):
    """Whether the signed-in account is an operator: one small request per connection (the
    HSM groups' first page), asked when the pane is first shown. `allowed` is None while
    not known."""

    changed = Signal(object)  # bool | None

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, client, parent)
        self.allowed: bool | None = None
        self.reason = ""
        self._task: int | None = None

    def set_client(self, client: LpwaClient | None) -> None:
        if self._task is not None:
            self.runner.cancel(self._task)
            self._task = None
        self.client = client
        self.allowed = None
        self.reason = ""
        self.changed.emit(None)

    def check(self) -> None:
        """Ask once (nothing when known or asking)."""
        client = self.client
        if client is None or self.allowed is not None or self._task is not None:
            return

        def done(_page: object) -> None:
            self._task = None
            self._set(True, "")

        def failed(exc: BaseException, message: str) -> None:
            self._task = None
            if isinstance(exc, APIStatusError) and exc.status_code in (401, 403, 404):
                self._set(False, NOT_OPERATOR)
            else:
                self.reason = f"Could not check this account's access: {message}"
                self.changed.emit(None)

        self._task = self.runner.run(
            "Operator access", client.operations.hsm_groups(1, 10), on_done=done,
            on_error=failed, quiet=True,
        )  # fmt: skip

    def _set(self, allowed: bool, reason: str) -> None:
        self.allowed = allowed
        self.reason = reason
        self.changed.emit(allowed)


def operations_view_models(
    runner: TaskRunner, names: PartnerNames | None = None
) -> list[ResourceViewModel]:
    vms: list[ResourceViewModel] = [
        LiveResourceViewModel(runner, kind) if kind.key in QUEUE_KEYS
        else OperationsViewModel(runner, kind)
        for kind in operations_kinds(names.text if names is not None else _as_is)
    ]  # fmt: skip
    if names is not None:  # the names came: the rows say them
        for vm in vms:
            names.changed.connect(vm.model.repaint_all)
    return vms
