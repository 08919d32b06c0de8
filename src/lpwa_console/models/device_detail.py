"""What the device detail tabs show beyond the device itself: its alarms (with acknowledge),
its traffic history (`/frames/aggregated`), the alarm 004 thresholds as the schema judges them,
and whether the account may change the routing profile."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..schema.alarms import AlarmBrief
from ..schema.devices import AlarmsConfiguration, Device, default_alarm004
from ..schema.frames import FramesAggregation
from .tasks import TaskRunner

log = logging.getLogger(__name__)

WRITE_NODE = "LPWA_MGR::WRITE_NODE"
ADMIN_NODE = "LPWA_MGR::ADMIN_NODE"

# Traffic windows the tab offers: label -> (duration, step).
TRAFFIC_WINDOWS: dict[str, tuple[timedelta, str]] = {
    "Last 24 hours": (timedelta(days=1), "PT1H"),
    "Last 7 days": (timedelta(days=7), "PT1H"),
    "Last 30 days": (timedelta(days=30), "P1D"),
}
DEFAULT_WINDOW = "Last 7 days"


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
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        return None, where + message
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


class AccountRights(QObject):
    """The current account's rights, read once per client from GET /subscriptions/mine."""

    changed = Signal()

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.rights: frozenset[str] | None = None
        self.permissions: tuple[str, ...] = ()
        self._generation = 0

    @property
    def routing_read_only(self) -> bool:
        return routing_profile_read_only(self.rights)

    def set_client(self, client: LpwaClient | None) -> None:
        self._generation += 1
        self.rights = None
        self.permissions = ()
        self.changed.emit()
        if client is None:
            return
        generation = self._generation
        self.runner.run(
            "Read account rights",
            client.subscription.get(),
            on_done=lambda sub: self._loaded(generation, sub),
            quiet=True,
        )

    def set_subscription(self, subscription: Any) -> None:
        self.rights = rights_of(subscription)
        grant = getattr(subscription, "subscription", None)
        self.permissions = tuple(getattr(grant, "grantedPermissions", ()) or ())
        self.changed.emit()

    def _loaded(self, generation: int, subscription: Any) -> None:
        if generation == self._generation:
            self.set_subscription(subscription)


# --- the view-model -------------------------------------------------------------------------


class DeviceDetailViewModel(QObject):
    """Alarms and traffic of the device shown in the detail panel (loaded on demand)."""

    alarms_changed = Signal(list)  # list[AlarmBrief]
    alarms_loading = Signal(bool)
    alarms_error = Signal(str)
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
        self.alarms: list[AlarmBrief] = []
        self.traffic: FramesAggregation | None = None
        self.window = DEFAULT_WINDOW
        self._alarms_task: int | None = None
        self._traffic_task: int | None = None

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.set_device(None)

    def set_device(self, device: Device | None) -> None:
        same = device is not None and self.device is not None and device.EUI == self.device.EUI
        self.device = device
        if not same:
            self.alarms = []
            self.traffic = None
            self.alarms_changed.emit([])
            self.traffic_changed.emit(None)

    @property
    def ref(self) -> str:
        return self.device.path_ref if self.device is not None else ""

    # --- alarms -----------------------------------------------------------------------

    def load_alarms(self) -> None:
        if self._alarms_task is not None:
            self.runner.cancel(self._alarms_task)
            self._alarms_task = None
        if self.client is None or self.device is None:
            return
        ref = self.ref
        self.alarms_loading.emit(True)

        def done(page: Any) -> None:
            self._alarms_task = None
            if ref != self.ref:
                return
            self.alarms = sorted(
                page.briefs, key=lambda a: (a.acked, -int(a.state), -a.updateTimestamp)
            )
            self.alarms_loading.emit(False)
            self.alarms_changed.emit(self.alarms)

        def failed(_exc: BaseException, message: str) -> None:
            self._alarms_task = None
            self.alarms_loading.emit(False)
            self.alarms_error.emit(message)

        self._alarms_task = self.runner.run(
            f"Alarms of {self.device.EUI}",
            self.client.device_alarms.of_device(ref),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def acknowledge(self, alarm_uids: list[str]) -> bool:
        if self.client is None or self.device is None or not alarm_uids:
            return False
        client, ref = self.client, self.ref

        async def ack() -> int:
            for uid in alarm_uids:
                await client.device_alarms.acknowledge_one(ref, uid)
            return len(alarm_uids)

        def done(count: int) -> None:
            self.acknowledged.emit(f"{count} alarm{'s' if count > 1 else ''} acknowledged")
            self.load_alarms()

        self.runner.run(
            f"Acknowledge {len(alarm_uids)} alarms",
            ack(),
            on_done=done,
            on_error=lambda _e, m: self.alarms_error.emit(m),
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
