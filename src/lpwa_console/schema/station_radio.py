"""A base station's radio side: its antennas (`/bss/{bsUid}/ants`), its RF probe and the probe's
traffic history (`/bss/{bsUid}/rfProbe`, `/rfProbe/frames`), and the hardware description
the station reports (`mfs`, `lrcs`, `power`; the deprecated `diskConfig`, `lrcConfig` and
`powerConfig` strings are ignored in requests)."""

from __future__ import annotations

from typing import ClassVar, Literal, NoReturn

from pydantic import Field, ValidationInfo, field_validator

from .common import ApiModel, RequestModel
from .frames import DownlinkCount, UplinkCount  # the devices' traffic counters

AntennaType = Literal["OMNI", "UNI", "UNDEFINED"]
Environment = Literal[
    "URBAN_DENSE", "URBAN", "SUBURBAN", "RURAL_FOREST", "RURAL_TREES", "RURAL_FLAT", "TOWER",
    "UNDEFINED",
]  # fmt: skip
InstallMode = Literal[
    "OUTDOOR_ABOVE_ROOFTOP_LEVEL", "OUTDOOR_BELOW_ROOFTOP_LEVEL", "INDOOR", "UNDEFINED"
]
CLEAR = -1  # the reference's "clear the attribute" value (-999 for a position)
CLEAR_POSITION = -999

# wire name -> (lowest, highest) of the antenna's numbers; CLEAR clears them.
ANTENNA_RANGES: dict[str, tuple[float, float]] = {
    "altitude": (0, 10_000),
    "altitudeAboveGround": (1, 300),
    "azimuth": (0, 360),
    "cableDelay": (0, 1000),
    "horizontalHPBW": (30, 360),
}


class TxPower(ApiModel):
    maxTxPower: float | None = None
    effectiveTxPower: float | None = None


class AntennaBrief(ApiModel):
    index: int
    name: str
    used: bool
    href: str
    type: str | None = None
    azimuth: float | None = None
    gain: float | None = None
    cableLoss: float | None = None
    cableDelay: float | None = None


class Antennas(ApiModel):
    briefs: list[AntennaBrief] = Field(default_factory=list)


class Antenna(ApiModel):
    index: int
    name: str
    type: str | None = None
    altitude: float | None = None
    altitudeAboveGround: float | None = None
    azimuth: float | None = None
    cableDelay: float | None = None
    cableLoss: float | None = None
    gain: float | None = None
    horizontalHPBW: float | None = None
    latitude: float | None = None
    longitude: float | None = None
    environment: str | None = None
    installMode: str | None = None
    clearance: str | None = None
    info1: str | None = None
    info2: str | None = None
    info3: str | None = None
    rx1: TxPower | None = None
    rx2: TxPower | None = None


class AntennaUpdate(RequestModel):
    """PUT ants/{antUid}. -1 clears a number (-999 a position); gain and cable loss are set
    by the updateAntennasGainAndLoss command, not here (read-only)."""

    read_only_fields: ClassVar[frozenset[str]] = frozenset(
        {"index", "name", "gain", "cableLoss", "rx1", "rx2", "occContext", "used", "href"}
    )

    type: AntennaType | None = None
    altitude: float | None = None
    altitudeAboveGround: float | None = None
    azimuth: float | None = None
    cableDelay: float | None = None
    horizontalHPBW: float | None = None
    latitude: float | None = None
    longitude: float | None = None
    environment: Environment | None = None
    installMode: InstallMode | None = None
    clearance: str | None = Field(default=None, max_length=255)
    info1: str | None = Field(default=None, max_length=255)
    info2: str | None = Field(default=None, max_length=255)
    info3: str | None = Field(default=None, max_length=255)

    @field_validator(*ANTENNA_RANGES)
    @classmethod
    def _in_range(cls, v: float | None, info: ValidationInfo) -> float | None:
        name = info.field_name or ""
        low, high = ANTENNA_RANGES[name]
        if v is None or v == CLEAR or low <= v <= high:
            return v
        return _refuse(name, f"{low:g} to {high:g}, or {CLEAR} to clear")

    @field_validator("latitude", "longitude")
    @classmethod
    def _position(cls, v: float | None, info: ValidationInfo) -> float | None:
        name = info.field_name or ""
        bound = 90 if name == "latitude" else 180
        if v is None or v == CLEAR_POSITION or -bound <= v <= bound:
            return v
        return _refuse(name, f"-{bound} to {bound}, or {CLEAR_POSITION} to clear")


def _refuse(name: str, rule: str) -> NoReturn:
    raise ValueError(f"{name}: {rule}")


# --- RF probe -----------------------------------------------------------------------------------


class RfProbe(ApiModel):
    """A station's RF probe: when enabled, the station reports the radio traffic it hears
    (rfProbe/frames)."""

    enabled: bool = False


class RfProbeUpdate(RequestModel):
    enabled: bool


class StationFrameBucket(ApiModel):
    timestamp: int
    up: UplinkCount
    dw: DownlinkCount


class StationFrames(ApiModel):
    """Radio traffic the station heard and sent, one bucket per step."""

    now: int
    briefs: list[StationFrameBucket] = Field(default_factory=list)

    def series(self) -> tuple[list[int], list[int], list[int]]:
        return (
            [b.timestamp for b in self.briefs],
            [b.up.count for b in self.briefs],
            [b.dw.count for b in self.briefs],
        )


# --- hardware description (read-only fields of a station) ---------------------------------------

POWER_SOURCES = {1: "Wind", 2: "Solar", 3: "Battery", 4: "Power over Ethernet", 5: "Mains"}
LRC_STATES = {0: "Down", 1: "Stopped", 2: "Started"}


class MountedFileSystem(ApiModel):
    name: str
    used: int  # %


class MountedFileSystems(ApiModel):
    mfs: list[MountedFileSystem] = Field(default_factory=list)


class Lrc(ApiModel):
    name: str
    ID: str | None = None
    address: str | None = None
    state: int | None = None
    stateSince: int | None = None
    lastCom: int | None = None


class Lrcs(ApiModel):
    lrc: list[Lrc] = Field(default_factory=list)


class Power(ApiModel):
    status: int | None = None
    batteryLevel: int | None = None


# Station fields a request may carry and the sandbox ignores (deprecated or read-only here).
HARDWARE_READ_ONLY = frozenset(
    {"mfs", "lrcs", "power", "diskConfig", "lrcConfig", "powerConfig", "supportPassword"}
)
