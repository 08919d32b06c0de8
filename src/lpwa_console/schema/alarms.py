"""Alarms of devices and multicast groups (Document 1 §4.1, §4.2, §6).

An alarm is a resource that is read, listed and acknowledged. The device no-uplink alarm has
the ID 4 ("alarm 004", configured through `alarmsConfiguration.alarm004`). `state` is the
severity (1 CLEARED .. 6 CRITICAL, see common.Severity).

Lists: `briefs`, `more`, `count` (first page only) and, when sorted by `alarmUid` and a next
page exists, `cursors.last` to send back as `pageAfter`. Unless sorted otherwise, alarms come
by update time, newest first. `level` is the highest severity the alarm reached, on the
reference's 0..5 scale; `href` is the alarm's own path.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, get_args

from pydantic import Field, field_validator

from .common import ApiModel, ListEnvelope, RequestModel, Severity
from .domains import Domain

NO_UPLINK_ALARM_ID = 4

# The reference sorts by `state` or `acked` (ties by update time, newest first) and by update
# time, newest first, by default; Document 1 §4.1 adds `alarmUid`. `creationTimestamp` and
# `updateTimestamp` are the sandbox's own additions: a platform may refuse them.
AlarmSortCriterion = Literal["alarmUid", "state", "acked", "creationTimestamp", "updateTimestamp"]
ALARM_SORT_CRITERIA: tuple[AlarmSortCriterion, ...] = get_args(AlarmSortCriterion)
REFERENCE_SORT_CRITERIA: tuple[AlarmSortCriterion, ...] = ("alarmUid", "state", "acked")
# Only this criterion supports cursor pagination (`pageAfter`, Document 1 §8).
CURSOR_SORT: AlarmSortCriterion = "alarmUid"

StateFiltering = Literal["EQUAL_OR_UPPER", "EQUAL"]


# --- responses -------------------------------------------------------------------------------


class AlarmBrief(ApiModel):
    """One alarm occurrence as listed."""

    alarmUid: str
    ID: int
    state: Severity
    # 0..5 in the reference; the sandbox's: the highest severity reached, minus one.
    level: int = 0
    occurrence: int = 1
    acked: bool = False
    ackedInfo: str | None = None
    ackedTimestamp: int | None = None
    creationTimestamp: int
    updateTimestamp: int
    index: str | None = None
    href: str | None = None
    addInfo: str | None = None
    addInfo2: str | None = None
    addInfo3: str | None = None
    addInfo4: str | None = None
    addInfo5: str | None = None

    @property
    def severity(self) -> Severity:
        return self.state

    @property
    def code(self) -> str:
        """The alarm's usual three-digit name: ID 4 is "004"."""
        return f"{self.ID:03d}"

    @property
    def active(self) -> bool:
        """Raised and not yet acknowledged (a CLEARED alarm is no longer active)."""
        return self.state != Severity.CLEARED and not self.acked


class AlarmOwner(ApiModel):
    """What an alarm brief carries of the item it belongs to."""

    EUI: str
    name: str | None = None
    domains: list[Domain] = Field(default_factory=list)


class AlarmDevice(AlarmOwner):
    """The device an alarm belongs to, as carried inside a device alarm brief."""


class DeviceAlarmBrief(AlarmBrief):
    """An alarm of the collection `/devices/alarms`: carries its device."""

    device: AlarmDevice


class AlarmMulticastGroup(AlarmOwner):
    """The multicast group an alarm belongs to."""


class MulticastAlarmBrief(AlarmBrief):
    """An alarm of the collection `/multicastGroups/alarms`: carries its group."""

    multicastGroup: AlarmMulticastGroup


class AlarmPage(ListEnvelope[AlarmBrief]):
    """Alarms of one device or one multicast group."""


class DeviceAlarmPage(ListEnvelope[DeviceAlarmBrief]):
    """GET /subscriptions/mine/devices/alarms."""


class MulticastAlarmPage(ListEnvelope[MulticastAlarmBrief]):
    """GET /subscriptions/mine/multicastGroups/alarms."""


# --- requests --------------------------------------------------------------------------------


class AlarmsAck(RequestModel):
    """POST /devices/alarms/ack and /multicastGroups/alarms/ack: acknowledge these alarms."""

    alarmUids: list[str] = Field(min_length=1)

    @field_validator("alarmUids")
    @classmethod
    def _no_empty_uid(cls, value: list[str]) -> list[str]:
        if any(not uid.strip() for uid in value):
            raise ValueError("an alarmUid cannot be empty")
        return list(dict.fromkeys(uid.strip() for uid in value))


def wire_time(value: datetime) -> str:
    """RFC 3339 in UTC with a `Z` (naive datetimes are taken as UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AlarmFilter(RequestModel):
    """Server-side filters of the alarm lists. Empty fields are not sent.

    - state: severity threshold; with stateFiltering EQUAL_OR_UPPER (the server default) the
      alarms at this severity or above (so CLEARED, 1, is every alarm), with EQUAL exactly
      this severity.
    - acked: true = acknowledged only, false = un-acknowledged only.
    - ID: the alarm type, e.g. 4 for the no-uplink alarm 004.
    - alarmUid: one alarm.
    - devEUI: repeatable; alarms of the devices whose EUI starts with one of these (on the
      multicast collection: of these groups' EUIs).
    - domain: repeatable, `group:name` as elsewhere.
    - from_/to: time window (sent as `from` and `to`, RFC 3339 UTC): `from` bounds the
      creation time, `to` the last update.

    One-device and one-group lists accept only from/to/ID/state/acked (see `scoped_params`):
    there `state` has no strategy, 1 meaning the CLEARED alarms only and 2..6 that severity
    or above.
    """

    state: Severity | None = None
    stateFiltering: StateFiltering | None = None
    acked: bool | None = None
    ID: int | None = Field(default=None, ge=0)
    alarmUid: str | None = None
    devEUI: list[str] = Field(default_factory=list)
    domain: list[str] = Field(default_factory=list)
    from_: datetime | None = Field(default=None, alias="from")
    to: datetime | None = None

    def to_params(self) -> list[tuple[str, str]]:
        params: list[tuple[str, str]] = []
        for key, value in self.model_dump(exclude_none=True, by_alias=True).items():
            values = value if isinstance(value, list) else [value]
            params.extend((key, _param_text(v)) for v in values if v != "")
        return params

    def scoped_params(self) -> list[tuple[str, str]]:
        """The filters one device's (or group's) alarm list and acknowledgement accept.

        Their `state` has no strategy (1: CLEARED only; 2..6: that severity or above), so an
        EQUAL filter on a severity between them cannot be said there: ValueError."""
        equal = self.stateFiltering == "EQUAL"
        if equal and self.state is not None and self.state not in (Severity.CLEARED, 6):
            raise ValueError(
                "one owner's alarms filter a severity 'or above' only (1 is CLEARED only)"
            )
        keep = {"from", "to", "ID", "state", "acked"}
        params = [(k, v) for k, v in self.to_params() if k in keep]
        if not equal and self.state == Severity.CLEARED:
            # EQUAL_OR_UPPER from CLEARED is every alarm: say it by not filtering.
            params = [(k, v) for k, v in params if k != "state"]
        return params

    def is_empty(self) -> bool:
        return not self.to_params()


def _param_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return wire_time(value)
    if isinstance(value, Severity):
        return str(int(value))
    return str(value)


def alarm_sort_param(criterion: AlarmSortCriterion, descending: bool = False) -> str:
    """`sort=<criterion>,<asc|desc>`."""
    if criterion not in ALARM_SORT_CRITERIA:
        raise ValueError(f"unknown alarm sort criterion {criterion!r}")
    return f"{criterion},{'desc' if descending else 'asc'}"
