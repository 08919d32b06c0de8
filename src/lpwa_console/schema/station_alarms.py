"""Alarms of base stations (Document 2 §6): codes 102-111, read through `/bss/alarms`,
`/bss/alarms/histories`, `/bss/{bsUid}/alarms` and acknowledged there.

`state` is the severity (1 CLEARED .. 6 CRITICAL); `addInfo2` carries the figure that raised
the alarm (a percentage for 104-108 and 111), `addInfo` its deprecated older form. Lists sort
by `state`, `acked` or `alarmUid` (the only one with `pageAfter` and `cursors.last`), and by
update time, newest first, by default.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from pydantic import Field

from .alarms import AlarmBrief, AlarmFilter
from .common import ApiModel, Distribution, ListEnvelope
from .domains import Domain


class StationAlarmWords(NamedTuple):
    """What people read about one station alarm code."""

    title: str
    help: str
    add_info2: str  # what addInfo2 holds ("" when nothing)


# Code -> words (Document 2 §6).
STATION_ALARMS = MappingProxyType(
    {
        102: StationAlarmWords(
            "Connection lost", "The base station is disconnected from the network server.", ""
        ),
        103: StationAlarmWords(
            "No uplink", "The base station has forwarded no uplink for longer than a threshold.",
            "",
        ),
        104: StationAlarmWords(
            "Invalid uplinks (CRC)",
            "Unusually many uplinks with an invalid physical CRC.",
            "Invalid uplink frames in the last 4 hours (%)",
        ),
        105: StationAlarmWords(
            "Downlink overload",
            "More downlink frames than the RF cell can send.",
            "Dropped downlink frames in the last hour (%)",
        ),
        106: StationAlarmWords(
            "High CPU usage", "Unusually high CPU usage.", "Average CPU usage in the last hour (%)"
        ),
        107: StationAlarmWords(
            "High RAM usage", "Unusually high RAM usage.", "Average RAM usage in the last hour (%)"
        ),
        108: StationAlarmWords(
            "File system nearly full",
            "Unusually high file system usage.",
            "Average file system usage in the last hour (%)",
        ),
        111: StationAlarmWords(
            "Beacon failures",
            "Class B beacons fail to be sent.",
            "Beacon failures in the last hour (%)",
        ),
    }
)  # fmt: skip
STATION_ALARM_CODES = tuple(STATION_ALARMS)


def station_alarm_title(code: int) -> str:
    """ "102 Connection lost"; an unknown code keeps its number alone."""
    words = STATION_ALARMS.get(code)
    return f"{code} {words.title}" if words else str(code)


def add_info2_words(code: int, value: str | None) -> str:
    """addInfo2 in words, e.g. "Average CPU usage in the last hour (%): 93"."""
    words = STATION_ALARMS.get(code)
    if value is None or value == "":
        return ""
    return f"{words.add_info2}: {value}" if words and words.add_info2 else value


class AlarmStation(ApiModel):
    """The station an alarm belongs to, inside a collection alarm brief."""

    lrrID: str
    name: str | None = None
    domains: list[Domain] = Field(default_factory=list)


class StationAlarmBrief(AlarmBrief):
    """An alarm of `/bss/alarms` (and, without `bs`, of one station's lists)."""

    bs: AlarmStation | None = None

    @property
    def code(self) -> str:
        return str(self.ID)


class StationAlarmPage(ListEnvelope[StationAlarmBrief]):
    """GET /bss/alarms, /bss/alarms/histories, /bss/{bsUid}/alarms and their histories."""


class StateCount(ApiModel):
    state: int
    count: int


class StationAlarmStateDistributions(Distribution[StateCount]):
    """GET /bss/alarms/stateDistributions: how many alarms per state."""


class StationAlarmFilter(AlarmFilter):
    """The filters of `/bss/alarms` (AlarmFilter's, with `lrrID`: repeatable prefixes of the
    stations' lrrIDs, in place of devEUI)."""

    lrrID: list[str] = Field(default_factory=list)
