"""What the device detail tabs show beyond the device itself: its alarms (every one of them,
page after page, with acknowledge), its traffic history (`/frames/aggregated`), the alarm 004
thresholds as the schema judges them, and whether the account may change the routing profile.

One device's alarms (`GET /devices/{deviceUid}/alarms`) come latest update first, by
`pageIndex` only: the platform chooses the page size, gives `count` with the first page and
`more` while pages remain. `DeviceAlarmsModel` is that list as it grows: the first page when
the tab is shown, the next one when the view is scrolled to its end (`fetchMore`) or asked
for (`load_more_alarms`); the rows already there, and the selection, stay put."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, Signal

from ..api import LpwaClient
from ..schema.common import ListEnvelope, Severity
from ..schema.devices import AlarmsConfiguration, Device, default_alarm004
from .columns import time_column
from .errors import user_message
from .forms import error_text
from .item_index import Index
from .latest import Latest
from .paged_table import RIGHT, Column, ItemRole, SeverityRole
from .rights import ADMIN_NODE
from .tasks import TaskRunner

if TYPE_CHECKING:
    # Imported when a device's alarms or traffic are first shown, not at start (issue 8).
    from ..schema.alarms import AlarmBrief
    from ..schema.frames import FramesAggregation

log = logging.getLogger(__name__)


# Traffic windows the tab offers: label -> (duration, step).
TRAFFIC_WINDOWS: dict[str, tuple[timedelta, str]] = {
    "Last 24 hours": (timedelta(days=1), "PT1H"),
    "Last 7 days": (timedelta(days=7), "PT1H"),
    "Last 30 days": (timedelta(days=30), "P1D"),
}
DEFAULT_WINDOW = "Last 7 days"
ACK_BATCH = 500  # alarm UIDs in one POST /devices/alarms/ack
# True for an acknowledged alarm's cells (a delegate may grey them).
AckedRole = int(Qt.ItemDataRole.UserRole) + 3


# --- alarm 004 ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Threshold:
    """One row of the alarm 004 editor, as typed."""

    enabled: bool
    level: int
    duration: str


def thresholds_of(device: Device | None) -> list[Threshold]:
    """The device's two thresholds (the platform default when it has none)."""
    config = device.alarmsConfiguration if device is not None else None
    items = list(config.alarm004 or []) if config is not None else []
    if not items:
        items = default_alarm004()
    rows = [Threshold(t.status == "ENABLE", t.level, t.duration) for t in items[:2]]
    while len(rows) < 2:
        rows.append(Threshold(False, 5, "P4D"))
    return rows


def alarm004_request(thresholds: list[Threshold]) -> tuple[dict[str, Any] | None, str]:
    """The `alarmsConfiguration` body for these thresholds, or None and the schema's message."""
    data = {
        "alarm004": [
            {
                "status": "ENABLE" if t.enabled else "DISABLE",
                "level": t.level,
                "duration": t.duration.strip().upper(),
            }
            for t in thresholds
        ]
    }
    try:
        config = AlarmsConfiguration.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [str(p) for p in error.get("loc", ()) if not str(p).startswith("alarm004")]
        where = ""
        if loc and loc[0].isdigit():
            where = f"Threshold {int(loc[0]) + 1}: "
        return None, where + error_text(error)
    return config.model_dump(mode="json", exclude_none=True), ""


# --- rights ---------------------------------------------------------------------------------


def rights_of(subscription: Any) -> frozenset[str] | None:
    """The access rights (`LPWA_MGR::...`) an answer of GET /subscriptions/mine carries, or
    None when the platform does not say (the server then judges each request)."""
    grant = getattr(subscription, "subscription", None)
    rights = getattr(grant, "rights", None)
    if isinstance(rights, list):
        return frozenset(str(r) for r in rights)
    return None


def routing_profile_read_only(rights: frozenset[str] | None) -> bool:
    """WRITE_NODE without ADMIN_NODE cannot change appServersRoutingProfile (§5.4)."""
    if rights is None:
        return False
    return ADMIN_NODE not in rights


# --- one device's alarms ----------------------------------------------------------------------

_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)


def _severity(alarm: AlarmBrief) -> int | None:
    return None if alarm.acked else int(alarm.state)


def _alarm_name(alarm: AlarmBrief) -> str:
    from .alarms import alarm_name

    return alarm_name(alarm.ID)


def _alarm_meaning(alarm: AlarmBrief) -> str:
    from .alarms import alarm_meaning

    return alarm_meaning(alarm.ID)


def device_alarm_columns() -> list[Column[AlarmBrief]]:
    return [
        Column("Severity", lambda a: f"● {Severity(a.state).label}", severity=_severity, width=120),
        Column("Alarm", _alarm_name, tooltip=_alarm_meaning, width=150),
        Column("Count", lambda a: a.occurrence, alignment=RIGHT, width=50),
        time_column("Raised", "creationTimestamp", width=125),
        time_column("Updated", "updateTimestamp", width=125),
        Column("Acked", lambda a: "yes" if a.acked else "no", width=50),
        Column("Info", lambda a: a.addInfo or "", tooltip=lambda a: a.addInfo or None),
    ]


class DeviceAlarmsModel(QAbstractTableModel):
    """The alarms of one device loaded so far, in the platform's order; pages are appended.
    `canFetchMore` is true while the platform has more and no page is on its way, and
    `fetchMore` asks `fetch_more` (the view-model) for the next one."""

    def __init__(
        self, fetch_more: Callable[[], object] | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.columns = device_alarm_columns()
        self.alarms: list[AlarmBrief] = []
        self.total: int | None = None  # the platform's count, from the first page
        self.more = False
        self.loading = False
        self._fetch_more = fetch_more
        self._uids: set[str] = set()

    # --- what the view-model does -------------------------------------------------------

    def clear(self) -> None:
        self.beginResetModel()
        self.alarms = []
        self._uids = set()
        self.total = None
        self.more = False
        self.loading = False
        self.endResetModel()

    def append_page(self, page: ListEnvelope[AlarmBrief], *, first: bool) -> int:
        """Add a page's alarms after those shown (none twice: an alarm updated meanwhile moves
        up the platform's list and may come again). Returns how many were new."""
        if first:
            self.total = page.count
        self.more = bool(page.more and page.briefs)
        new = [a for a in page.briefs if a.alarmUid not in self._uids]
        if new:
            start = len(self.alarms)
            self.beginInsertRows(QModelIndex(), start, start + len(new) - 1)
            self.alarms.extend(new)
            self._uids.update(a.alarmUid for a in new)
            self.endInsertRows()
        return len(new)

    def mark_acked(self, uids: Iterable[str]) -> int:
        """Show these alarms acknowledged, in place (rows and selection stay). One
        `dataChanged` covers every row changed: a view (and whatever listens) hears it once,
        not once per alarm of a selection of thousands."""
        wanted = set(uids) & self._uids
        if not wanted:
            return 0
        first = last = -1
        changed = 0
        for row, alarm in enumerate(self.alarms):
            if alarm.alarmUid in wanted and not alarm.acked:
                self.alarms[row] = alarm.model_copy(update={"acked": True})
                if first < 0:
                    first = row
                last = row
                changed += 1
        if changed:
            right = self.columnCount() - 1
            self.dataChanged.emit(self.index(first, 0), self.index(last, right))
        return changed

    @property
    def acked_count(self) -> int:
        """How many of the rows loaded are acknowledged."""
        return sum(1 for a in self.alarms if a.acked)

    def alarm(self, row: int) -> AlarmBrief | None:
        return self.alarms[row] if 0 <= row < len(self.alarms) else None

    @property
    def complete(self) -> bool:
        """Every alarm of the device is loaded."""
        return not self.more

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.alarms)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(self.columns):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return self.columns[section].alignment
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        alarm = self.alarm(index.row()) if index.isValid() else None
        if alarm is None or not 0 <= index.column() < len(self.columns):
            return None
        column = self.columns[index.column()]
        role = int(role)
        if role == _DISPLAY:
            value = column.value(alarm)
            return "" if value is None else str(value)
        if role == _ALIGN:
            return column.alignment
        if role == _TOOLTIP:
            return column.tooltip(alarm) if column.tooltip is not None else None
        if role == SeverityRole:
            return column.severity(alarm) if column.severity is not None else None
        if role == AckedRole:
            return alarm.acked
        if role == ItemRole:
            return alarm
        return None

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        return not parent.isValid() and self.more and not self.loading

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent) and self._fetch_more is not None:
            self._fetch_more()


# --- the view-model -------------------------------------------------------------------------


class DeviceDetailViewModel(QObject):
    """Alarms and traffic of the device shown in the detail panel (loaded on demand)."""

    alarms_changed = Signal(list)  # list[AlarmBrief]: the alarms loaded so far
    alarms_loading = Signal(bool)
    alarms_error = Signal(str)  # a sentence: "Could not load alarms: ..."
    acknowledged = Signal(str)  # what happened, in words
    traffic_changed = Signal(object)  # FramesAggregation | None
    traffic_loading = Signal(bool)
    traffic_error = Signal(str)
    tags_changed = Signal(str)  # what happened, in words
    tags_error = Signal(str)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.device: Device | None = None
        self.alarms_model = DeviceAlarmsModel(self.load_more_alarms, self)
        self.unacknowledged_only = False
        self.alarms_loaded = False  # the first page of this device's alarms arrived
        self.traffic: FramesAggregation | None = None
        self.window = DEFAULT_WINDOW
        self._alarms_task: int | None = None
        self._alarms_page = 0  # the last page index loaded
        self._alarms_page_size = 0  # the platform's: the length of a first page with more
        self._alarms_stalled = False  # the last page loaded added no alarm
        self._acked_meanwhile: set[str] = set()  # acknowledged while a page was on its way
        self._latest_alarms = Latest()
        self._traffic_task: int | None = None

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.set_device(None)

    def set_device(self, device: Device | None) -> None:
        same = device is not None and self.device is not None and device.EUI == self.device.EUI
        self.device = device
        if not same:
            self._forget_alarms()
            self.traffic = None
            self.alarms_changed.emit([])
            self.traffic_changed.emit(None)

    @property
    def ref(self) -> str:
        return self.device.path_ref if self.device is not None else ""

    # --- alarms -----------------------------------------------------------------------

    @property
    def alarms(self) -> list[AlarmBrief]:
        """The alarms loaded so far (all of them when `alarms_complete`)."""
        return self.alarms_model.alarms

    @property
    def alarms_total(self) -> int | None:
        return self.alarms_model.total

    @property
    def alarms_complete(self) -> bool:
        return self.alarms_loaded and self.alarms_model.complete

    @property
    def alarms_busy(self) -> bool:
        """A page of alarms is on its way."""
        return self.alarms_model.loading

    def _forget_alarms(self) -> None:
        self._latest_alarms.advance()
        if self._alarms_task is not None:
            self.runner.cancel(self._alarms_task)
            self._alarms_task = None
        self._alarms_page = 0
        self._alarms_page_size = 0
        self._alarms_stalled = False
        self._acked_meanwhile = set()
        self.alarms_loaded = False
        self.alarms_model.clear()

    def set_unacknowledged_only(self, only: bool) -> None:
        if only != self.unacknowledged_only:
            self.unacknowledged_only = only
            if self.device is not None:
                self.load_alarms()

    def load_alarms(self) -> None:
        """The first page again (what was loaded is forgotten)."""
        self._forget_alarms()
        self.alarms_changed.emit([])
        if self.client is None or self.device is None:
            return
        self._load_alarm_page(1)

    def load_more_alarms(self) -> bool:
        """The next page, when the platform has more and none is on its way."""
        if self.client is None or self.device is None or not self.alarms_loaded:
            return False
        if self.alarms_busy or not self.alarms_model.more:
            return False
        self._load_alarm_page(self.next_alarm_page())
        return True

    def next_alarm_page(self) -> int:
        """The `pageIndex` to ask for next. With "Unacknowledged only", the alarms
        acknowledged here have left the platform's (filtered) list, so every later alarm moved
        up that many places: the next page is where the first alarm not loaded is now (a
        page that comes again is harmless, the alarms already shown are not added twice)."""
        following = self._alarms_page + 1
        size = self._alarms_page_size
        acked = self.alarms_model.acked_count if self.unacknowledged_only else 0
        if not acked or size <= 0:
            return following
        index = max(1, (len(self.alarms) - acked) // size + 1)
        if self._alarms_stalled:
            index = max(index, following)  # that page brought nothing new: go on
        return index

    def _load_alarm_page(self, index: int) -> None:
        assert self.client is not None and self.device is not None
        generation = self._latest_alarms.ticket
        from ..schema.alarms import AlarmFilter

        filters = AlarmFilter(acked=False) if self.unacknowledged_only else None
        self.alarms_model.loading = True
        self._acked_meanwhile = set()
        self.alarms_loading.emit(True)

        def done(page: ListEnvelope[AlarmBrief]) -> None:
            if not self._latest_alarms.is_current(generation):
                return  # another device, a refresh or another filter meanwhile
            first = not self.alarms_loaded
            self._alarms_task = None
            self._alarms_page = index
            if first and page.more:
                self._alarms_page_size = len(page.briefs)
            self.alarms_loaded = True
            self.alarms_model.loading = False
            added = self.alarms_model.append_page(page, first=first)
            self._alarms_stalled = not first and added == 0
            if self._acked_meanwhile:
                # The page may have been read before those acknowledgements were committed.
                self.alarms_model.mark_acked(self._acked_meanwhile)
                self._acked_meanwhile = set()
            self.alarms_loading.emit(False)
            self.alarms_changed.emit(self.alarms)

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest_alarms.is_current(generation):
                return
            self._alarms_task = None
            self.alarms_model.loading = False
            self.alarms_loading.emit(False)
            self.alarms_error.emit(f"Could not load alarms: {message}")

        self._alarms_task = self.runner.run(
            f"Alarms of {self.device.EUI}" + (f", page {index}" if index > 1 else ""),
            self.client.device_alarms.of_device(self.ref, index, filters=filters),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def acknowledge(self, alarm_uids: list[str]) -> bool:
        """Acknowledge these alarms (in batches of ACK_BATCH), then show them acknowledged
        where they are: the pages loaded, the scroll position and the selection stay.

        The result is applied by alarmUid to the rows loaded when it comes (a refresh
        meanwhile may have read them before the acknowledgement was committed). When a batch
        fails after others succeeded, those are shown acknowledged and the message says how
        many could not be."""
        uids = list(dict.fromkeys(alarm_uids))
        if self.client is None or self.device is None or not uids:
            return False
        client = self.client

        async def ack() -> tuple[list[str], str]:
            acked: list[str] = []
            for start in range(0, len(uids), ACK_BATCH):
                batch = uids[start : start + ACK_BATCH]
                try:
                    await client.device_alarms.acknowledge(batch)
                except Exception as exc:
                    if not acked:
                        raise  # nothing done: a plain failure
                    log.warning("acknowledge: batch %d failed: %s", start // ACK_BATCH + 1, exc)
                    return acked, user_message(exc)
                acked.extend(batch)
            return acked, ""

        def done(result: tuple[list[str], str]) -> None:
            acked, error = result
            self.alarms_model.mark_acked(acked)  # alarm UIDs are unique: safe on any rows
            if self.alarms_busy:
                self._acked_meanwhile.update(acked)
            self.alarms_changed.emit(self.alarms)
            count = len(acked)
            text = f"{count:,} alarm{'s' if count > 1 else ''} acknowledged"
            if error:
                failed = len(uids) - count
                text += f"; {failed:,} could not be: {error}"
            self.acknowledged.emit(text)

        self.runner.run(
            f"Acknowledge {len(uids):,} alarm{'s' if len(uids) > 1 else ''}",
            ack(),
            on_done=done,
            on_error=lambda _e, m: self.alarms_error.emit(f"Could not acknowledge: {m}"),
        )
        return True

    # --- traffic ----------------------------------------------------------------------

    def set_window(self, label: str) -> None:
        if label in TRAFFIC_WINDOWS and label != self.window:
            self.window = label
            self.load_traffic()

    def load_traffic(self, now: datetime | None = None) -> None:
        if self._traffic_task is not None:
            self.runner.cancel(self._traffic_task)
            self._traffic_task = None
        if self.client is None or self.device is None:
            return
        ref = self.ref
        span, step = TRAFFIC_WINDOWS[self.window]
        begin = (now or datetime.now(UTC)) - span
        self.traffic_loading.emit(True)

        def done(result: FramesAggregation) -> None:
            self._traffic_task = None
            if ref != self.ref:
                return
            self.traffic = result
            self.traffic_loading.emit(False)
            self.traffic_changed.emit(result)

        def failed(_exc: BaseException, message: str) -> None:
            self._traffic_task = None
            self.traffic_loading.emit(False)
            self.traffic_error.emit(message)

        self._traffic_task = self.runner.run(
            f"Traffic of {self.device.EUI}",
            self.client.frames.aggregated(ref, begin=begin, duration=span, step=step),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    # --- tags -------------------------------------------------------------------------

    def tag(self, name: str, *, untag: bool = False) -> bool:
        name = name.strip()
        if self.client is None or self.device is None or not name:
            return False
        client, eui = self.client, self.device.EUI
        call = client.devices.untag(name, [eui]) if untag else client.devices.tag(name, [eui])
        verb = "removed" if untag else "added"
        self.runner.run(
            f"{'Untag' if untag else 'Tag'} {eui} “{name}”",
            call,
            on_done=lambda _r: self.tags_changed.emit(f"Tag “{name}” {verb}"),
            on_error=lambda _e, m: self.tags_error.emit(m),
        )
        return True
