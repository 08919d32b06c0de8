"""Traffic history: `/devices/{deviceUid}/frames/aggregated` (and the deprecated raw
`/frames` lists of devices and multicast groups).

The aggregated list has one bucket per aggregation step (an ISO 8601 duration, `PT1H` by
default) from `begin` over `duration`; each bucket counts uplinks (`up`), downlinks (`dw`) and
multi-frames (`mf`), with radio means.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

from pydantic import Field

from .common import ApiModel
from .durations import format_duration, parse_duration

# Aggregation steps as the platform writes them; "HOUR", "DAY", "WEEK" are accepted as names.
HOUR = "PT1H"
DAY = "P1D"
WEEK = "P1W"
STEP_NAMES = {"HOUR": HOUR, "DAY": DAY, "WEEK": WEEK}
DEFAULT_STEP = HOUR

# Frame types of the `type` filter: 0 uplink, 1 downlink, 4 multi-frame.
FrameType = Literal[0, 1, 4]


def normalise_step(step: str | timedelta) -> str:
    """`HOUR` -> `PT1H`, `P1D` stays, a timedelta becomes its ISO form; at least one minute."""
    if isinstance(step, timedelta):
        span = step
    else:
        text = STEP_NAMES.get(step.strip().upper(), step.strip().upper())
        span = parse_duration(text)
    if span < timedelta(minutes=1):
        raise ValueError("the aggregation step must be at least one minute")
    return format_duration(span)


def normalise_duration(value: str | timedelta) -> str:
    return format_duration(value if isinstance(value, timedelta) else parse_duration(value))


class UplinkSubType(ApiModel):
    subType: int | None = None
    countOnTime: int = 0
    countLate: int = 0


class UplinkCounts(ApiModel):
    count: int = 0
    size: int = 0
    countOnTime: int = 0
    sizeOnTime: int = 0
    countLate: int = 0
    sizeLate: int = 0
    countLost: int | None = None
    subTypes: list[UplinkSubType] = Field(default_factory=list)


class DownlinkSubType(ApiModel):
    subType: int | None = None
    countSent: int = 0
    countFailed: int = 0


class DownlinkCounts(ApiModel):
    count: int = 0
    size: int = 0
    countSent: int = 0
    sizeSent: int = 0
    countFailed: int = 0
    sizeFailed: int = 0
    subTypes: list[DownlinkSubType] = Field(default_factory=list)


class MultiFrameCounts(ApiModel):
    count: int = 0
    size: int = 0
    sizeUp: int = 0
    sizeDown: int = 0
    duration: int = 0


class FrameBucket(ApiModel):
    """One aggregation step, starting at `timestamp` (ms since the epoch)."""

    timestamp: int
    up: UplinkCounts = Field(default_factory=UplinkCounts)
    dw: DownlinkCounts = Field(default_factory=DownlinkCounts)
    mf: MultiFrameCounts = Field(default_factory=MultiFrameCounts)
    instantPerMean: float | None = Field(default=None, ge=0, lt=1)
    meanPerMean: float | None = Field(default=None, ge=0, lt=1)
    rssiMean: float | None = None
    snrMean: float | None = None
    espMean: float | None = None

    @property
    def uplinks(self) -> int:
        return self.up.count

    @property
    def downlinks(self) -> int:
        return self.dw.count


class FramesAggregation(ApiModel):
    """GET /devices/{deviceUid}/frames/aggregated (FramesDeviceAggregation)."""

    briefs: list[FrameBucket] = Field(default_factory=list)
    now: int | None = None

    def series(self) -> tuple[list[int], list[int], list[int]]:
        """(timestamps, uplink counts, downlink counts), ready for a chart."""
        return (
            [b.timestamp for b in self.briefs],
            [b.up.count for b in self.briefs],
            [b.dw.count for b in self.briefs],
        )


# --- deprecated raw frame lists --------------------------------------------------------------


class DeviceFrame(ApiModel):
    """One frame of the deprecated GET /devices/{deviceUid}/frames."""

    type: int
    timestamp: int
    size: int | None = None
    sf: int | None = None
    rssi: float | None = None
    snr: float | None = None
    esp: float | None = None
    late: bool | None = None
    instantPER: float | None = None
    meanPER: float | None = None
    bitrate: float | None = None
    cellID: str | None = None
    deliveryStatus: int | None = None
    duration: int | None = None
    overflow: bool | None = None
    sizeUp: int | None = None
    sizeDown: int | None = None


class LrrRef(ApiModel):
    lrrID: str | None = None


class DeviceFrames(ApiModel):
    """Deprecated: use FramesAggregation."""

    briefs: list[DeviceFrame] = Field(default_factory=list)
    lrrs: list[LrrRef] = Field(default_factory=list)
    now: int | None = None


class MulticastFrame(ApiModel):
    timestamp: int
    size: int = 0
    fPort: int = 0
    fCnt: int = 0
    status: Literal["SUCCESS", "ABORTED"] = "SUCCESS"
    bsCount: int = 0
    bsSuccessCount: int = 0
    bsFailedCount: int = 0
    overflow: bool | None = None


class MulticastFrames(ApiModel):
    """Deprecated GET /multicastGroups/frames and /multicastGroups/{uid}/frames."""

    briefs: list[MulticastFrame] = Field(default_factory=list)
    now: int | None = None
