"""Traffic history: `/devices/{deviceUid}/frames/aggregated`, the multicast groups'
`/multicastGroups/frames/aggregated` and `/multicastGroups/{multicastGroupUid}/frames/aggregated`
(and the deprecated raw `/frames` lists of devices and multicast groups).

The aggregated lists have one bucket per aggregation step (an ISO 8601 duration, `PT1H` by
default) from `begin` over `duration`. A device's bucket counts uplinks (`up`), downlinks
(`dw`) and multi-frames (`mf`), with radio means. A multicast bucket counts the downlinks (and
their payload bytes) by success ratio, the share of the group's base stations that sent them:
`successfulTransmissionValues[i]` is the range `ratioRangeDefinitions[i]` (fully sent, at least
80 %, at least 30 %, under 30 %, MULTICAST_RATIO_RANGES when a platform does not say).
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


# The traffic of one step (frames and payload bytes): a base station's RF probe bucket
# (schema/station_radio.py) counts these, a device's bucket adds its own counts. No
# docstrings: they would become the OpenAPI schemas' descriptions.
class UplinkCount(ApiModel):
    count: int = 0
    size: int = 0
    countOnTime: int = 0
    sizeOnTime: int = 0
    countLate: int = 0
    sizeLate: int = 0


class UplinkCounts(UplinkCount):
    countLost: int | None = None
    subTypes: list[UplinkSubType] = Field(default_factory=list)


class DownlinkSubType(ApiModel):
    subType: int | None = None
    countSent: int = 0
    countFailed: int = 0


class DownlinkCount(ApiModel):
    count: int = 0
    size: int = 0
    countSent: int = 0
    sizeSent: int = 0
    countFailed: int = 0
    sizeFailed: int = 0


class DownlinkCounts(DownlinkCount):
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
    """Deprecated GET /multicastGroups/frames and /multicastGroups/{uid}/frames: use
    MulticastFramesAggregation."""

    briefs: list[MulticastFrame] = Field(default_factory=list)
    now: int | None = None


# --- multicast aggregation ---------------------------------------------------------------------


class RatioBound(ApiModel):
    value: float
    inclusive: bool


class RatioRange(ApiModel):
    """A range of success ratios (share of the base stations that sent a downlink)."""

    minimumRatio: RatioBound
    maximumRatio: RatioBound

    def contains(self, ratio: float) -> bool:
        low, high = self.minimumRatio, self.maximumRatio
        above = ratio >= low.value if low.inclusive else ratio > low.value
        below = ratio <= high.value if high.inclusive else ratio < high.value
        return above and below


def _range(low: float, high: float, *, high_inclusive: bool = False) -> RatioRange:
    return RatioRange(
        minimumRatio=RatioBound(value=low, inclusive=True),
        maximumRatio=RatioBound(value=high, inclusive=high_inclusive),
    )


# The platform's ranges, in the order of successfulTransmissionValues: fully sent, partially
# sent (>= 80 %), partially sent (>= 30 %), partially sent (< 30 %).
MULTICAST_RATIO_RANGES: tuple[RatioRange, ...] = (
    _range(1.0, 1.0, high_inclusive=True),
    _range(0.8, 1.0),
    _range(0.3, 0.8),
    _range(0.0, 0.3),
)
MULTICAST_RATIO_LABELS = (
    "Fully sent",
    "Partially sent (>= 80%)",
    "Partially sent (>= 30%)",
    "Partially sent (< 30%)",
)


def ratio_index(ratio: float, ranges: tuple[RatioRange, ...] = MULTICAST_RATIO_RANGES) -> int:
    """The index of the range holding `ratio` (ValueError outside them all)."""
    for index, found in enumerate(ranges):
        if found.contains(ratio):
            return index
    raise ValueError(f"no success ratio range holds {ratio}")


class SuccessfulTransmissionValue(ApiModel):
    """Downlinks of one success ratio range in one bucket, and their payload bytes."""

    count: int = 0
    size: int = 0


class MulticastFrameBucket(ApiModel):
    """One aggregation step of multicast downlinks, starting at `timestamp` (ms)."""

    timestamp: int
    successfulTransmissionValues: list[SuccessfulTransmissionValue] = Field(default_factory=list)

    @property
    def downlinks(self) -> int:
        return sum(v.count for v in self.successfulTransmissionValues)

    @property
    def fully_sent(self) -> int:
        values = self.successfulTransmissionValues
        return values[0].count if values else 0


class MulticastFramesAggregation(ApiModel):
    """GET /multicastGroups/frames/aggregated and /{multicastGroupUid}/frames/aggregated
    (FramesMulticastGroupAggregation)."""

    briefs: list[MulticastFrameBucket] = Field(default_factory=list)
    ratioRangeDefinitions: list[RatioRange] | None = None
    now: int | None = None

    @property
    def ranges(self) -> tuple[RatioRange, ...]:
        """The ranges the buckets' values follow (the platform's usual ones when absent)."""
        return tuple(self.ratioRangeDefinitions or MULTICAST_RATIO_RANGES)

    def series(self) -> tuple[list[int], list[int], list[int]]:
        """(timestamps, downlinks, fully sent downlinks), ready for a chart."""
        return (
            [b.timestamp for b in self.briefs],
            [b.downlinks for b in self.briefs],
            [b.fully_sent for b in self.briefs],
        )
