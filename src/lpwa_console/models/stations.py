"""The base stations view-model: filters, the server's sort, the lazy list, the station shown,
new stations and configuration edits checked by the schema, and the selection as command
targets.

Like the devices list, the table reports the platform's `count` and fetches only the pages the
view asks for; the detail is read when a row becomes current (the last of a held arrow key)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

from PySide6.QtCore import Signal

from ..api import APIStatusError, LpwaClient
from ..schema.common import ListEnvelope, Severity
from ..schema.labels import STATION_HEALTH_WORDS
from ..schema.stations import (
    BaseStation,
    BaseStationBrief,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationUpdate,
    StationTag,
)
from .columns import time_column
from .fleet_list import Call, FleetListViewModel
from .formatting import TIME_SAMPLE, format_time
from .forms import automatic_data, check_only_data, in_words
from .paged_table import Column
from .station_command_catalogue import COMMANDS, SUPPORT_PASSWORD, StationRef
from .validation import field_named_in, validate

log = logging.getLogger(__name__)


# Connection state (cnxState) in words, and the colour its cell takes (a severity).
CONNECTION_WORDS = {
    "CNX": "Connected",
    "DISC": "Disconnected",
    "NEVERCNX": "Never connected",
    "UNKNOWN": "Unknown",
}
CONNECTION_SEVERITY = {"DISC": 6, "NEVERCNX": 3, "UNKNOWN": 2}
# The list's connection filter: the platform filters by health state (no cnxState filter).
CONNECTION_FILTERS: list[tuple[str, list[str]]] = [
    ("Any state", []),
    ("Active", ["ACTIVE"]),
    ("Backhaul error (disconnected)", ["BACKHAUL_CNX_ERROR"]),
    ("RF error", ["RF_ERROR"]),
    ("Never communicated", ["INIT"]),
    ("Suspended", ["SUSPENDED"]),
    ("Any problem", ["BACKHAUL_CNX_ERROR", "RF_ERROR"]),
]


def connection_text(station: Any) -> str:
    state = getattr(station, "cnxState", None)
    return CONNECTION_WORDS.get(state, state or "") if state else ""


def worst_alarm(station: Any) -> int | None:
    """The highest severity of the station's open alarms (2..6), None when it has none (a
    cleared alarm waiting for its acknowledgement, level 1, is not open)."""
    level = getattr(station, "alarmLevel", None)
    if level and int(level) >= 2:
        return int(level)
    for severity in range(6, 1, -1):
        if getattr(station, f"alarm{severity}", 0):
            return severity
    return None


def worst_alarm_text(station: Any) -> str:
    level = worst_alarm(station)
    if level is None:
        return ""
    try:
        return Severity(level).label
    except ValueError:
        return str(level)


def model_text(station: Any) -> str:
    model = getattr(station, "model", None)
    if model is None:
        return ""
    return str(getattr(model, "commercialName", None) or getattr(model, "ID", "") or "")


def last_seen(station: Any) -> int | None:
    """When the station was last heard of: its last report, else its last frame."""
    for name in ("lastReport", "lastUpFrameDate", "cnxStateSince"):
        value = getattr(station, name, None)
        if value:
            return int(value)
    return None


def tags_text(station: Any) -> str:
    return ", ".join(str(getattr(t, "name", t)) for t in (getattr(station, "tags", None) or []))


def station_ref(station: Any) -> StationRef:
    """The station as a command target; its path form (`i` + lrrID) is its UID in paths."""
    model = getattr(station, "model", None)
    software = getattr(model, "softwareType", None) if model is not None else None
    return StationRef(station.path_ref, str(station.lrrID), str(station.name or ""), software)


MAX_ROWS_REREAD = 50  # stations read again one by one after a command; more: the list reloads


def station_columns() -> list[Column[BaseStationBrief]]:
    # At 1280 px the list beside the detail has about 720 px: the columns a field engineer
    # reads at a glance are shown by default and fit it; Tags, Model, Software and Created
    # are a right-click away in the header's column chooser (the defaults once totalled
    # 1,290 px, and the list scrolled sideways).
    return [
        Column("Name", lambda s: s.name or "", sort_key="name", width=180),
        Column("LRR ID", lambda s: s.lrrID, sort_key="lrrID", width=85),
        Column(
            "Connection",
            connection_text,
            severity=lambda s: CONNECTION_SEVERITY.get(s.cnxState or ""),
            tooltip=lambda s: f"Since {format_time(s.cnxStateSince)}" if s.cnxStateSince else None,
            width=105,
        ),
        Column("Worst alarm", worst_alarm_text, severity=worst_alarm, width=90),
        Column(
            "Health",
            lambda s: STATION_HEALTH_WORDS.get(s.healthState or "", s.healthState or ""),
            width=130,  # room for "Never communicated"
        ),
        Column(
            "Last seen",
            lambda s: format_time(last_seen(s)),
            sort_key="lastUpFrameDate",
            width=120,
            sample=TIME_SAMPLE,
        ),
        Column("Tags", tags_text, width=150, hidden=True),
        Column("Model", model_text, width=150, hidden=True),
        Column("Software", lambda s: s.version or "", sort_key="version", width=110, hidden=True),
        time_column("Created", "creationDate", sortable=True, hidden=True),
    ]


class StationsViewModel(FleetListViewModel):
    created = Signal(object)  # BaseStation: a new station, shown in the detail

    list_title = "Base stations"
    noun, plural = "station", "stations"
    suggestions_title = "Base station tag suggestions"
    tag_model = StationTag
    index_kind = "station"
    key_filter = "LRRID"

    def _columns(self) -> list[Column[Any]]:
        return list(station_columns())

    def _initial_filters(self) -> BaseStationFilter:
        return BaseStationFilter()

    # --- list ---------------------------------------------------------------------------

    def _list_page(
        self, client: LpwaClient, filters: Any, page: int, size: int, sort: str | None, desc: bool
    ) -> Awaitable[ListEnvelope[BaseStationBrief]]:
        return client.stations.list(page, size, filters=filters, sort=sort, descending=desc)

    def item_key(self, item: BaseStationBrief) -> str:
        return item.path_ref

    def tagged_key(self, item: Any) -> str:
        return str(item.lrrID)

    def _tag(self, client: LpwaClient, name: str, keys: list[str], untag: bool) -> Call:
        stations = client.stations
        return stations.untag(name, keys) if untag else stations.tag(name, keys)

    def _tag_suggestions(self, client: LpwaClient, query: str) -> Call:
        return client.stations.tag_suggestions(query)

    def _after_first_page(self) -> None:
        if self._detail_ref and self.row_of(self._detail_ref) < 0 and self.list_complete():
            self.select(None)  # the station shown left the list

    def refs(self, rows: list[int]) -> list[StationRef]:
        """The stations of these rows (those loaded), as command targets."""
        items = (self.model.item(r) for r in rows)
        return [station_ref(s) for s in items if s is not None]

    @staticmethod
    def refs_of(stations: list[Any]) -> list[StationRef]:
        return [station_ref(s) for s in stations]

    # --- tags -------------------------------------------------------------------------

    def tag(self, name: str, rows: list[int], *, untag: bool = False) -> bool:
        """Tag (or untag) the stations of these rows; the rows show it without a reload."""
        lrr_ids = [r.lrr_id for r in self.refs(rows)]
        verb = "Untag" if untag else "Tag"
        title = f"{verb} {len(lrr_ids):,} base stations “{name.strip()}”"
        return self._tag_rows(name, rows, lrr_ids, untag, title)

    # --- detail -------------------------------------------------------------------------

    def select_row(self, row: int) -> None:
        brief = self.model.item(row) if row >= 0 else None
        if brief is None:
            self.select(None)
        elif not self.showing(brief.path_ref):
            self.select(brief.path_ref)

    def showing(self, uid: str) -> bool:
        if not uid or uid != self._detail_ref:
            return False
        return self._detail_task is not None or (
            self.detail is not None and self.detail.path_ref == uid
        )

    def select(self, uid: str | None) -> None:
        """Show this station (its path form, `i` + lrrID, or any UID form; None: none)."""
        self._cancel_detail()
        self._detail_ref = uid or ""
        if not uid or self.client is None:
            self._set_detail(None)
            return
        self.detail_loading.emit(True)
        self._detail_task = self.runner.run(
            f"Load base station {uid}",
            self.client.stations.get(uid),
            on_done=lambda station: self._detail_done(uid, station),
            on_error=lambda _exc, msg: self._detail_failed(uid, msg),
        )

    def refresh_stations(self, uids: list[str]) -> None:
        """Read these stations again (after a command ran on them): the detail shown, and
        the rows loaded, patched in place. A few dozen at most: more is a reload's work."""
        if self.client is None:
            return
        if self._detail_ref in uids:
            self.reload_detail()  # its row follows (`_patch_row`)
        rows = [u for u in uids if u != self._detail_ref and self.row_of(u) >= 0]
        if len(rows) > MAX_ROWS_REREAD:
            self.model.reload()
            return
        for uid in rows:
            self.runner.run(
                f"Read base station {uid} again",
                self.client.stations.get(uid),
                on_done=self._patch_row,
                quiet=True,
            )

    def _detail_done(self, uid: str, station: BaseStation) -> None:
        if self._detail_read(uid, station):
            self._patch_row(station)

    def _patch_row(self, station: BaseStation) -> None:
        """The station's row says what its detail, read later, says: after a reboot the row
        no longer shows "RF error" beside a detail that shows "Active". Patched in place,
        without a reload that would move the view."""
        row = self.row_of(station.path_ref)
        brief = self.model.item(row) if row >= 0 else None
        if brief is None:
            return
        fields = set(type(brief).model_fields)
        update = {k: v for k, v in station.__dict__.items() if k in fields}
        if any(getattr(brief, k) != v for k, v in update.items()):
            self.model.replace_item(row, brief.model_copy(update=update))

    # --- configuration ------------------------------------------------------------------

    def check_update(self, data: dict[str, Any], station: Any) -> dict[str, str]:
        """The schema's errors for this configuration, by field ('' for the whole form)."""
        fixed = check_only_data(BaseStationUpdate, station) if station is not None else {}
        _request, errors = validate(BaseStationUpdate, {**data, **fixed})
        return errors

    def update(self, station: Any, data: dict[str, Any]) -> bool:
        """PUT the configuration edited in a form; False (and `save_failed`) when the schema
        refuses it, naming the field."""
        occ = automatic_data(BaseStationUpdate, station)
        fixed = check_only_data(BaseStationUpdate, station)
        fields = set(BaseStationUpdate.model_fields)
        # The reference's PUT requires `host`: the one read goes back unchanged (a platform
        # that gave none, as the sandbox, gets none).
        host = (getattr(station, "model_extra", None) or {}).get("host")
        back: dict[str, Any] = {}
        if isinstance(host, dict) and host.get("ID"):
            back["host"] = {k: v for k, v in host.items() if k in ("ID", "accessRight")}

        def refusal(exc: BaseException, message: str) -> tuple[str, str]:
            name = field_named_in(exc.message, fields) if isinstance(exc, APIStatusError) else ""
            return message, name

        uid = station.path_ref
        return self._submit(
            BaseStationUpdate,
            {**data, **fixed, **occ, **back},
            lambda client, request: (
                f"Update base station {station.name or uid}",
                client.stations.update(uid, request),
            ),
            refusal,
            self._saved,
        )

    # --- a new station ----------------------------------------------------------------

    def check_create(self, data: dict[str, Any]) -> dict[str, str]:
        """The schema's errors for a new station, by field ('' for the whole form): the
        lrrID's rules (8 hexadecimal digits, not reserved), the model required..."""
        _request, errors = validate(BaseStationCreate, data)
        return errors

    def create(self, data: dict[str, Any]) -> bool:
        """POST a new station typed in a form; False (and `save_failed`) when the schema
        refuses it. The server's refusal (its grant used up, a duplicate lrrID) comes as
        `save_failed` naming the field when it names one; `created` when it is made."""
        fields = set(BaseStationCreate.model_fields)

        def send(client: LpwaClient, request: Any) -> tuple[str, Any]:
            what = request.name or request.lrrID or f"of model {request.model.ID}"
            return f"Create base station {what}", client.stations.create(request)

        return self._submit(
            BaseStationCreate,
            data,
            send,
            lambda exc, message: create_refusal_words(exc, message, fields),
            self._created,
        )

    def _created(self, station: BaseStation) -> None:
        self._set_saving(False)
        self._cancel_detail()
        self._detail_ref = station.path_ref
        self._set_detail(station)  # shown at once; its row is selected once listed
        self.created.emit(station)
        self.reload()  # the list and its count have it

    def _saved(self, station: BaseStation) -> None:
        self._set_saving(False)
        self.saved.emit(station)
        if station.path_ref == self._detail_ref:
            self._set_detail(station)
        self._patch_row(station)  # what changed (name, tags...) shown in its row


def create_refusal_words(exc: BaseException, message: str, fields: set[str]) -> tuple[str, str]:
    """(the message, the field it is about or '') of a refused new station: the field's
    own words next to it ("A base station with LRR ID 0A1B2C3D exists"), the grant used up
    said as such."""
    if not isinstance(exc, APIStatusError):
        return message, ""
    text = exc.message or message
    if "totalBaseStationsGranted" in text:
        return (
            "Not created: the partner has used all the base stations it was granted"
            f" (the platform says: {text.split(': ', 1)[-1]})",
            "",
        )
    name = field_named_in(text, fields)
    if name and text.startswith(f"{name}: "):
        words = in_words(text.removeprefix(f"{name}: "), fields, BaseStationCreate)
        return words[:1].upper() + words[1:], name
    return message, name


# The admin commands of Document 2 §4.3 in menu order (most used first), and the support
# password's change; their titles and rules are the command dialogs' (COMMANDS).
COMMAND_ORDER = (
    "reboot", "restart", "upgrade", "downloadLrrVersion", "backup", "restore", "scanRadio",
    "cancelRadioScan", "updateRfRegion", "updateAntennasGainAndLoss", "updateFineTimestampKeys",
    "updateLocation", "updateLog", "rfcStart", "rfcStop", "rfcDownlinkStop", "openSsh",
    "closeSsh", "openTerminal",
)  # fmt: skip
STATION_COMMANDS: list[tuple[str, str]] = [
    (name, COMMANDS[name].title) for name in COMMAND_ORDER if name in COMMANDS
] + [(name, spec.title) for name, spec in COMMANDS.items() if name not in COMMAND_ORDER]


def command_action(name: str | None) -> str:
    """The rights action guarding this command: the disruptive ones have their own."""
    spec = COMMANDS.get(name or "")
    if name == SUPPORT_PASSWORD:
        return "station.support_password"
    if name == "updateLocation":
        return "station.locate"  # the one command queued offline (models/field_offline)
    return (
        "station.command.disruptive" if spec is not None and spec.disruptive else "station.command"
    )
