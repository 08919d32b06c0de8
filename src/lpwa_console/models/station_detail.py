"""What the detail of one base station loads on demand: its alarms, its command history,
the devices it serves, its antennas (lists, each a lazy `PagedTableModel`) and its health and
RF probe histories (series for the charts). Each section is read when its tab is first shown
for this station, and again on `refresh`; a newer station drops the older answers."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient, NotFoundError
from ..schema.common import ListEnvelope, Severity
from ..schema.station_alarms import StationAlarmFilter
from .alarms import add_info2_words, alarm_meaning, alarm_name
from .columns import time_column
from .latest import Latest
from .paged_table import RIGHT, Column, PagedTableModel
from .station_command_answers import COMPLETION_WORDS, FAILED_COMPLETIONS
from .station_command_catalogue import COMMANDS
from .tasks import TaskRunner

log = logging.getLogger(__name__)

HEALTH_WINDOW, HEALTH_STEP = "P7D", "PT1H"  # a week, hour by hour
PROBE_WINDOW = "P2D"
# fetch(client, station uid, page from 1, size) -> one page
SectionFetch = Callable[[LpwaClient, str, int, int], Awaitable[ListEnvelope[Any]]]


def _alarm_severity(alarm: Any) -> int | None:
    return None if getattr(alarm, "acked", False) else int(alarm.state)


def station_alarm_columns() -> list[Column[Any]]:
    """A station's alarms: what, how bad and when first, then the details."""
    return [
        Column(
            "Severity",
            lambda a: Severity(a.state).label,
            severity=_alarm_severity,
            width=90,
        ),
        Column(
            "Alarm",
            lambda a: alarm_name(a.ID),
            tooltip=lambda a: alarm_meaning(a.ID),
            severity=_alarm_severity,
            width=170,
        ),
        # When, before the details: the detail is narrow on a laptop (1280 px).
        time_column("Raised", "creationTimestamp", width=120),
        Column(
            "What",
            lambda a: add_info2_words(a.ID, a.addInfo2),
            tooltip=lambda a: add_info2_words(a.ID, a.addInfo2) or None,
            width=230,
        ),
        time_column("Updated", "updateTimestamp", width=120),
        Column("Acked", lambda a: "yes" if a.acked else "", width=50),
    ]


def _field(item: Any, *names: str) -> Any:
    """The first of these fields the item has a value for (shapes differ by release)."""
    for name in names:
        value = getattr(item, name, None)
        if value is None and isinstance(item, dict):
            value = item.get(name)
        if value is not None:
            return value
    return None


def _command_title(status: Any) -> str:
    return command_type_words(getattr(status, "lastCmdType", None) or "")


def command_type_words(kind: str) -> str:
    """A command type (`lastCmdType`, `lastAcmdReqType`: CHANGE_SUPPORT_PASSWORD) in words:
    the command's title ("Change support password")."""
    for spec in COMMANDS.values():
        if kind in spec.command_types or kind == spec.name:
            return spec.title
    return kind.replace("_", " ").capitalize()


def command_columns() -> list[Column[Any]]:
    """The station's commands (its history where the platform keeps one, else its last)."""
    return [
        Column("Command", _command_title, width=150),
        Column(
            "Status",
            lambda c: COMPLETION_WORDS.get(
                c.lastCmdCompletionStatus or "", c.lastCmdCompletionStatus or ""
            ),
            severity=lambda c: 6 if c.lastCmdCompletionStatus in FAILED_COMPLETIONS else None,
            width=200,
        ),
        time_column("Sent", "lastCmdRequestDate", width=120),
        time_column("Finished", "lastCmdCompletionDate", width=120),
        Column("Result", lambda c: c.lastCmdCompletionData or c.lastCmdData or ""),
    ]


def _number(value: Any, fmt: str = "{:.1f}") -> str:
    return "" if value is None else fmt.format(value)


def served_device_columns() -> list[Column[Any]]:
    return [
        Column("DevEUI", lambda d: d.devEUI, width=150),
        Column("Name", lambda d: d.name or "", width=150),
        Column("RSSI", lambda d: f"{d.rssi:.1f} dBm", alignment=RIGHT, width=90),
        Column("SNR", lambda d: f"{d.snr:.1f} dB", alignment=RIGHT, width=75),
        Column(
            "Best station",
            lambda d: d.lrrID,
            tooltip=lambda d: "The station that heard its last uplink best",
            width=100,
        ),
        time_column("Last heard", "lastUpTimestamp"),
    ]


def antenna_columns() -> list[Column[Any]]:
    return [
        Column("Antenna", lambda a: a.name or str(a.index), width=110),
        Column("In use", lambda a: "yes" if a.used else "", width=55),
        Column("Gain", lambda a: _number(a.gain, "{:g} dBi"), alignment=RIGHT, width=75),
        Column("Cable loss", lambda a: _number(a.cableLoss, "{:g} dB"), alignment=RIGHT),
        Column("Azimuth", lambda a: _number(a.azimuth, "{:g}°"), alignment=RIGHT),
        Column("Type", lambda a: a.type or ""),
    ]


@dataclass(frozen=True)
class Section:
    """One list of the detail: its columns and how its pages are read."""

    key: str
    noun: str  # "alarms": "Could not load alarms: ..."
    columns: Callable[[], list[Column[Any]]]
    fetch: SectionFetch


def _one_page(items: list[Any]) -> ListEnvelope[Any]:
    return ListEnvelope[Any](briefs=list(items), count=len(items), more=False)


async def _alarms(client: LpwaClient, uid: str, page: int, size: int) -> ListEnvelope[Any]:
    # The collection's list filtered by the station (its lrrID as the whole prefix): it
    # pages by the size asked, as the table does.
    filters = StationAlarmFilter(lrrID=[uid.removeprefix("i")])
    return await client.station_alarms.list(page, size, filters=filters)


COMMAND_HISTORY = 100  # the latest commands shown in the Commands tab


async def _commands(client: LpwaClient, uid: str, page: int, size: int) -> ListEnvelope[Any]:
    """The station's latest commands, newest first: the sandbox's own commandHistory (the
    reference keeps only lastCmdStatus); a platform without it (404) gives the last one."""
    try:
        history = await client.station_admin.command_history(uid, limit=COMMAND_HISTORY)
    except NotFoundError:
        status = await client.station_admin.last_command_status(uid)
        return _one_page([status] if status.lastCmdType else [])
    return _one_page([c for c in history.commands if c.lastCmdType])


async def _served(client: LpwaClient, uid: str, page: int, size: int) -> ListEnvelope[Any]:
    answer = await client.station_monitoring.served_devices(uid, page, size)
    count = answer.count if page == 1 else None
    return ListEnvelope[Any](briefs=list(answer.devices), count=count, more=answer.more)


async def _antennas(client: LpwaClient, uid: str, page: int, size: int) -> ListEnvelope[Any]:
    answer = await client.station_radio.antennas(uid)
    return _one_page(list(answer.briefs))


SECTIONS: tuple[Section, ...] = (
    Section("alarms", "alarms", station_alarm_columns, _alarms),
    Section("commands", "command history", command_columns, _commands),
    Section("served", "served devices", served_device_columns, _served),
    Section("antennas", "antennas", antenna_columns, _antennas),
)


class StationDetailViewModel(QObject):
    """The lists and charts of the station shown, loaded when their tab is shown."""

    section_error = Signal(str, str)  # section key, message in words
    section_loaded = Signal(str)  # section key: its first page arrived
    health_changed = Signal(object)  # HealthSeries | None
    health_error = Signal(str)
    probe_changed = Signal(object)  # ProbeSeries | None
    probe_error = Signal(str)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        page_size: int = 50,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.station: Any = None
        self.models: dict[str, PagedTableModel[Any]] = {}
        self.sections = {section.key: section for section in SECTIONS}
        for section in SECTIONS:
            model: PagedTableModel[Any] = PagedTableModel(
                section.columns(), None, page_size=page_size, parent=self
            )
            model.error.connect(lambda message, key=section.key: self._failed(key, message))
            model.first_page_loaded.connect(lambda key=section.key: self.section_loaded.emit(key))
            self.models[section.key] = model
        self.errors: dict[str, str] = {}
        self.health: Any = None
        self.probe: Any = None
        self._latest = Latest()
        self._tasks: dict[str, int] = {}

    @property
    def uid(self) -> str:
        return str(self.station.path_ref) if self.station is not None else ""

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.set_station(None)

    def set_station(self, station: Any) -> None:
        """Another station (or none): what was loaded belongs to the previous one. The same
        station read again keeps its lists."""
        same = (
            station is not None and self.station is not None and station.lrrID == self.station.lrrID
        )
        self.station = station
        if same:
            return
        self._latest.advance()
        for task in self._tasks.values():
            self.runner.cancel(task)
        self._tasks.clear()
        self.errors.clear()
        for model in self.models.values():
            model.clear()
        self.health = self.probe = None
        self.health_changed.emit(None)
        self.probe_changed.emit(None)

    def loaded(self, key: str) -> bool:
        return self.models[key].has_fetcher

    def load(self, key: str) -> None:
        """Read this section of the station shown (again)."""
        self.errors.pop(key, None)
        if key == "health":
            self.load_health()
            return
        if key == "probe":
            self.load_probe()
            return
        model = self.models[key]
        if self.client is None or self.station is None:
            model.clear()
            return
        section, client, uid = self.sections[key], self.client, self.uid

        async def fetch(page: int, size: int, _sort: str | None, _desc: bool) -> Any:
            return await self.runner.track(
                f"Base station {uid} {section.noun}", section.fetch(client, uid, page, size)
            )

        model.set_fetcher(fetch)

    def ensure(self, key: str) -> None:
        """Load this section unless it is loaded (or failed) for the station shown."""
        if key in ("health", "probe"):
            if getattr(self, key) is None and key not in self._tasks and key not in self.errors:
                self.load(key)
        elif not self.loaded(key) and key not in self.errors:
            self.load(key)

    def _failed(self, key: str, message: str) -> None:
        self.errors[key] = message
        self.section_error.emit(key, message)

    # --- health and RF probe ------------------------------------------------------------

    def load_health(self) -> None:
        if self.client is None or self.station is None:
            return
        self._run(
            "health",
            f"Base station {self.uid} health",
            load_health(self.client, self.uid),
            self.health_changed,
            self.health_error,
        )

    def load_probe(self) -> None:
        if self.client is None or self.station is None:
            return
        self._run(
            "probe",
            f"Base station {self.uid} RF probe traffic",
            load_probe(self.client, self.uid),
            self.probe_changed,
            self.probe_error,
        )

    def _run(self, key: str, name: str, coro: Any, changed: Any, failed_signal: Any) -> None:
        if key in self._tasks:
            self.runner.cancel(self._tasks.pop(key))
        generation = self._latest.ticket

        def done(result: Any) -> None:
            if not self._latest.is_current(generation):
                return
            self._tasks.pop(key, None)
            setattr(self, key, result)
            changed.emit(result)

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest.is_current(generation):
                return
            self._tasks.pop(key, None)
            self.errors[key] = message
            failed_signal.emit(message)

        self._tasks[key] = self.runner.run(name, coro, on_done=done, on_error=failed, quiet=True)


@dataclass(frozen=True)
class HealthSeries:
    """CPU, RAM and disk use over time: percentages at epoch milliseconds."""

    times_ms: list[int]
    cpu: list[float]
    ram: list[float]
    disk: list[float]


@dataclass(frozen=True)
class ProbeSeries:
    """Frames heard by the station's RF probe per time bucket."""

    times_ms: list[int]
    uplinks: list[int]
    downlinks: list[int]


async def load_health(client: LpwaClient, uid: str) -> HealthSeries:
    """CPU, RAM and disk averages over the last week, hour by hour, on common times."""
    monitoring = client.station_monitoring
    cpu, ram, disk = await asyncio.gather(
        monitoring.cpu_history(uid, duration=HEALTH_WINDOW, step=HEALTH_STEP),
        monitoring.ram_history(uid, duration=HEALTH_WINDOW, step=HEALTH_STEP),
        monitoring.disk_history(uid, duration=HEALTH_WINDOW, step=HEALTH_STEP),
    )
    return health_series(
        {b.timestamp: float(b.avgCPU) for b in cpu.briefs},
        {b.timestamp: float(b.avgRAM) for b in ram.briefs},
        {b.timestamp: float(b.avgDisk) for b in disk.briefs},
    )


def health_series(
    cpu: dict[int, float], ram: dict[int, float], disk: dict[int, float]
) -> HealthSeries:
    """The three histories on the times they share (a report missing one figure is left
    out rather than drawn as 0 %)."""
    times = sorted(set(cpu) & set(ram) & set(disk))
    return HealthSeries(
        times, [cpu[t] for t in times], [ram[t] for t in times], [disk[t] for t in times]
    )


async def load_probe(client: LpwaClient, uid: str) -> ProbeSeries:
    frames = await client.station_radio.rf_probe_frames(uid, duration=PROBE_WINDOW)
    times, up, down = frames.series()
    return ProbeSeries(times, up, down)
