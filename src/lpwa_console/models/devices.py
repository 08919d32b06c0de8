"""The devices view-model: filters, server-side sort, the paged list, the selected device,
create/update with the schema's rules, tags, and the lists a device refers to (AS transport
keys, HSM groups, network contexts, application servers) for pickers. Everything runs through
the TaskRunner."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import (
    Signal,
)

from ..api import APIError, APIStatusError, ConflictError, LpwaClient
from ..schema.common import ListEnvelope, Tag
from ..schema.devices import Device, DeviceBrief, DeviceCreate, DeviceFilter, DeviceUpdate
from ..schema.labels import DEVICE_HEALTH_WORDS
from .columns import time_column
from .errors import user_message
from .fleet_list import Call, FleetListViewModel
from .formatting import TIME_SAMPLE
from .paged_table import RIGHT, Column, alarm_count_column
from .references import ReferenceListModel, list_references
from .validation import field_named_in, under_field

log = logging.getLogger(__name__)

DELETE_CONCURRENCY = 4  # deletes in flight at once: a selection of 500 does not flood
CONNECTIVITY_LABELS = {"LORAWAN": "LoRaWAN", "CELLULAR": "Cellular"}


def _number(value: float | None, fmt: str = "{:.1f}") -> str:
    return "" if value is None else fmt.format(value)


def device_columns() -> list[Column[DeviceBrief]]:
    # Sized to fit beside the detail on a 1280-pixel laptop (the list then has about 780 px):
    # what the device is, its health, model, last uplink, battery and alarms. The others are
    # hidden until chosen in the header's column menu (the defaults once totalled 1,310 px,
    # the last columns cut off behind a scroll bar).
    return [
        Column("Name", lambda d: d.name, sort_key="name", width=150),
        Column(
            "DevEUI / IMEI", lambda d: d.EUI, sort_key="EUI", width=130, sample="70B3D5FFFE000001"
        ),
        Column(
            "Connectivity", lambda d: CONNECTIVITY_LABELS[d.connectivity], width=90, hidden=True
        ),
        Column("Health", lambda d: DEVICE_HEALTH_WORDS.get(d.healthState, d.healthState), width=80),
        Column(
            "Model",
            lambda d: (d.model.commercialName or d.model.ID) if d.model else "",
            width=120,
        ),
        Column("Tags", lambda d: ", ".join(t.name for t in d.tags), width=160, hidden=True),
        time_column("Last uplink", "lastUpTimestamp", width=110, sortable=True, sample=TIME_SAMPLE),
        Column("SF", lambda d: d.lastSF, sort_key="lastSF", alignment=RIGHT, width=40, hidden=True),
        Column(
            "Avg SNR",
            lambda d: _number(d.avgSNR),
            sort_key="avgSNR",
            alignment=RIGHT,
            width=70,
            hidden=True,
        ),
        Column(
            "Battery",
            lambda d: _number(d.lastBatLevel, "{}%"),
            sort_key="lastBatLevel",
            alignment=RIGHT,
            width=60,
        ),
        alarm_count_column(),
        time_column("Created", "creationDate", width=120, sortable=True, hidden=True),
    ]


# --- what a device refers to ----------------------------------------------------------------

# The device fields that name another resource of the subscription, and what that resource is
# called in words.
REFERENCE_KINDS: dict[str, str] = {
    "asTransportKey": "AS transport keys",
    "hsmGroupID": "HSM groups",
    "networkContextID": "network contexts",
    "appServers": "application servers",
    "model": "device models",
}


# The device field -> the kind of resource it names (schema.labels.REFERENCE_NOUNS).
_KIND_OF_FIELD = {
    "asTransportKey": "asTransportKeys",
    "hsmGroupID": "hsmGroups",
    "networkContextID": "networkContexts",
    "appServers": "appServers",
    "model": "deviceProfiles",
}


async def _list_references(client: LpwaClient, kind: str) -> list[tuple[str, str, Any]]:
    """Every resource of one kind the device fields refer to (see REFERENCE_KINDS)."""
    return await list_references(client, _KIND_OF_FIELD[kind])


# --- the view-model ------------------------------------------------------------------------


def refusal_words(fields: set[str]) -> Callable[[BaseException, str], tuple[str, str]]:
    """The server's refusal of a device form: its message, and the field it names (a
    create that conflicts names the EUI, its identity)."""

    def words(exc: BaseException, message: str) -> tuple[str, str]:
        field = ""
        if isinstance(exc, APIStatusError):
            field = field_named_in(exc.message, fields)
            if not field and isinstance(exc, ConflictError) and "EUI" in fields:
                field = "EUI"
        return under_field(message, field), field

    return words


class DevicesViewModel(FleetListViewModel):
    detail_row = Signal(int)  # after a reload, the row of the device shown (to select it)
    deleted = Signal(int, list)  # devices deleted, [(EUI, reason)] of those that were not
    references_changed = Signal(str)  # kind (a key of REFERENCE_KINDS), loaded or failed
    gone = Signal(list)  # the DevEUIs deleted (the fleet index forgets them at once)

    list_title = "Devices"
    noun, plural = "device", "devices"
    tag_model = Tag

    def _columns(self) -> list[Column[Any]]:
        return list(device_columns())

    def _initial_filters(self) -> DeviceFilter:
        return DeviceFilter()

    def _setup(self) -> None:
        super()._setup()
        self._detail_eui = ""
        self._follow_task: int | None = None
        self.references = {kind: ReferenceListModel(self) for kind in REFERENCE_KINDS}
        self._reference_tasks: dict[str, int] = {}

    # --- list ---------------------------------------------------------------------------

    def _list_page(
        self, client: LpwaClient, filters: Any, page: int, size: int, sort: str | None, desc: bool
    ) -> Awaitable[ListEnvelope[DeviceBrief]]:
        return client.devices.list(page, size, filters=filters, sort=sort, descending=desc)

    def item_key(self, item: DeviceBrief) -> str:
        return item.EUI

    def tagged_key(self, item: Any) -> str:
        return str(item.EUI)

    def _tag(self, client: LpwaClient, name: str, keys: list[str], untag: bool) -> Call:
        devices = client.devices
        return devices.untag(name, keys) if untag else devices.tag(name, keys)

    def _tag_suggestions(self, client: LpwaClient, query: str) -> Call:
        return client.devices.tag_suggestions(query)

    def _forget_session(self) -> None:
        """The lists the device fields refer to belong to the old session too."""
        for task in self._reference_tasks.values():
            self.runner.cancel(task)
        self._reference_tasks.clear()
        for kind, model in self.references.items():
            if model.items or model.loaded or model.error:
                model.clear()
                self.references_changed.emit(kind)

    def _after_first_page(self) -> None:
        self._follow_detail()

    def _follow_detail(self) -> None:
        """After a reload (filters, refresh, save, import), the detail follows the list: the
        device shown is found again (`detail_row`), or is no longer shown when the view no
        longer holds it. Not among the rows loaded yet, it may be further down: the platform
        says, with the same filters and its EUI."""
        if self._follow_task is not None:
            self.runner.cancel(self._follow_task)
            self._follow_task = None
        ref, eui = self._detail_ref, self._detail_eui
        if not ref or not eui or self.client is None:
            return
        row = self.row_of(eui)
        if row >= 0:
            self.detail_row.emit(row)
            return
        if self.list_complete():
            self.select(None)
            return
        if self.filters.devEUI:
            return  # an EUI filter of the user's: "and this EUI" cannot be said; keep it
        filters = self.filters.model_copy(update={"devEUI": [eui]})
        generation = self.model.generation

        def done(page: ListEnvelope[DeviceBrief]) -> None:
            self._follow_task = None
            if ref != self._detail_ref or generation != self.model.generation:
                return  # another device or another list meanwhile
            if not any(eui == brief.EUI for brief in page.briefs):
                self.select(None)

        def failed(_exc: BaseException, _message: str) -> None:
            self._follow_task = None  # not known: the detail stays

        self._follow_task = self.runner.run(
            f"Is {eui} in the list",
            self.client.devices.list(1, 10, filters=filters),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    # --- detail -------------------------------------------------------------------------

    def select_row(self, row: int) -> None:
        """Show the device of this row. The device already shown (or on its way) is not read
        again: after a reload the view selects its row anew (`detail_row`), and reading it
        again would only reset what the detail panel holds (edits not saved yet)."""
        brief = self.model.item(row) if row >= 0 else None
        if brief is None:
            self.select(None)
        elif self.showing(brief.EUI):
            return
        else:
            self.select(brief.path_ref, eui=brief.EUI)

    def showing(self, eui: str) -> bool:
        """This device is the one shown, or the one being read to be shown."""
        if not eui or eui != self._detail_eui or not self._detail_ref:
            return False
        return self._detail_task is not None or (self.detail is not None and eui == self.detail.EUI)

    def reload_detail(self) -> None:
        if self.detail is not None:
            self.select(self.detail.path_ref, eui=self.detail.EUI)

    def select(self, ref: str | None, *, eui: str = "") -> None:
        """Show this device (None: no device). `eui` names it when `ref` is a UID."""
        self._cancel_detail()
        self._detail_ref = ref or ""
        self._detail_eui = eui or (ref[1:] if ref and ref.startswith("e") else "")
        if not ref or self.client is None:
            self._set_detail(None)
            return
        self.detail_loading.emit(True)
        client = self.client
        self._detail_task = self.runner.run(
            f"Load device {ref.removeprefix('e')}",
            client.devices.get(ref),
            on_done=lambda device: self._detail_done(ref, device),
            on_error=lambda _exc, msg: self._detail_failed(ref, msg),
        )

    def _detail_done(self, ref: str, device: Device) -> None:
        if ref == self._detail_ref:
            self._detail_eui = device.EUI
            self._detail_read(ref, device)

    # --- create and update --------------------------------------------------------------

    def create(self, data: dict[str, Any]) -> bool:
        """Validate, then POST. False (and `save_failed`) when the schema refuses it."""
        return self._submit(
            DeviceCreate,
            data,
            lambda client, request: ("Create device", client.devices.create(request)),
            refusal_words(set(DeviceCreate.model_fields)),
            self._saved,
        )

    def update(self, ref: str, data: dict[str, Any]) -> bool:
        return self._submit(
            DeviceUpdate,
            data,
            lambda client, request: (
                f"Update device {ref.removeprefix('e')}",
                client.devices.update(ref, request),
            ),
            refusal_words(set(DeviceUpdate.model_fields)),
            self._saved,
        )

    def _saved(self, device: Device) -> None:
        self._set_saving(False)
        self.saved.emit(device)
        self.reload()
        self.select(device.path_ref, eui=device.EUI)

    # --- tags ---------------------------------------------------------------------------

    def selected_euis(self, rows: list[int]) -> list[str]:
        items = (self.model.item(r) for r in rows)
        return [d.EUI for d in items if d is not None]

    def tag(self, name: str, rows: list[int], *, untag: bool = False) -> bool:
        euis = self.selected_euis(rows)
        verb = "Untag" if untag else "Tag"
        return self._tag_rows(name, rows, euis, untag, f"{verb} {len(euis)} devices “{name}”")

    def delete(self, rows: list[int]) -> bool:
        """Delete the devices of these rows (a few at a time); the list reloads after.
        `deleted` says how many went and why the others did not."""
        euis = self.selected_euis(rows)
        if not euis or self.client is None:
            return False
        client = self.client
        gate = asyncio.Semaphore(DELETE_CONCURRENCY)

        async def one(eui: str) -> tuple[str, str | None]:
            async with gate:
                try:
                    await client.devices.delete(f"e{eui}")
                except APIError as exc:
                    return eui, user_message(exc)
            return eui, None

        async def run() -> list[tuple[str, str | None]]:
            return await asyncio.gather(*(one(e) for e in euis))

        def done(results: list[tuple[str, str | None]]) -> None:
            failures = [(eui, reason) for eui, reason in results if reason is not None]
            self.gone.emit([eui for eui, reason in results if reason is None])
            if self.detail is not None and self.detail.EUI in euis:
                self.select(None)
            self.reload()
            self.deleted.emit(len(results) - len(failures), failures)

        noun = "device" if len(euis) == 1 else "devices"
        self.runner.run(f"Delete {len(euis):,} {noun}", run(), on_done=done)
        return True

    # --- referenced resources -----------------------------------------------------------

    def load_references(self, *, max_age_s: float | None = None, retry: bool = True) -> None:
        """Fill `references` from the platform in the background: the kinds not loaded yet
        (those that failed too, unless not `retry`) and, with `max_age_s`, those loaded longer
        ago than that. A kind that cannot be listed keeps its error (and what it had); inputs
        then take the ID as typed."""
        if self.client is None:
            return
        now = time.monotonic()
        for kind, model in self.references.items():
            if kind in self._reference_tasks:
                continue
            if model.loaded:
                if max_age_s is None or now - model.loaded_at < max_age_s:
                    continue
            elif model.error and not retry:
                continue
            self._reference_tasks[kind] = self._load_reference(self.client, kind)

    def _load_reference(self, client: LpwaClient, kind: str) -> int:
        return self.runner.run(
            f"List {REFERENCE_KINDS[kind]}",
            _list_references(client, kind),
            on_done=lambda items: self._references_done(kind, items),
            on_error=lambda _exc, msg: self._references_failed(kind, msg),
            quiet=True,
        )

    def _references_done(self, kind: str, items: list[tuple[str, str, Any]]) -> None:
        self._reference_tasks.pop(kind, None)
        self.references[kind].set_items(items)
        self.references_changed.emit(kind)

    def _references_failed(self, kind: str, message: str) -> None:
        self._reference_tasks.pop(kind, None)
        model = self.references[kind]
        model.set_items(model.items, error=message or "could not load")
        self.references_changed.emit(kind)
