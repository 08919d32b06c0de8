"""What a base station reports about its health (the reference's `sys`, `rfcell` and `wans`
endpoints under `/partners/mine/bss/{bsUid}`): CPU, RAM and disk usage with their histories,
RF cell and backhaul indicators, a backhaul interface with its round trips, and the devices
the station serves."""

from __future__ import annotations

from pydantic import Field

from .common import ApiModel

SERVED_DEVICES_SORTS = ("lastUpTimestamp",)
MAX_BS_RANK = 3


class RecordedValue(ApiModel):
    value: int | None = None
    recordedDate: int | None = None


class CpuRecord(ApiModel):
    """Lowest and highest CPU usage (%) since `recordedSince`."""

    recordedSince: int
    minCPU: RecordedValue | None = None
    maxCPU: RecordedValue | None = None


class RamRecord(ApiModel):
    recordedSince: int
    minRAM: RecordedValue | None = None
    maxRAM: RecordedValue | None = None


class DiskRecord(ApiModel):
    recordedSince: int
    minDisk: RecordedValue | None = None
    maxDisk: RecordedValue | None = None


class CpuSample(ApiModel):
    timestamp: int
    avgCPU: int
    devCPU: int = 0
    maxCPU: int


class RamSample(ApiModel):
    timestamp: int
    avgRAM: int
    maxRAM: int


class DiskSample(ApiModel):
    timestamp: int
    avgDisk: int
    maxDisk: int


class CpuHistory(ApiModel):
    now: int
    briefs: list[CpuSample] = Field(default_factory=list)


class RamHistory(ApiModel):
    now: int
    briefs: list[RamSample] = Field(default_factory=list)


class DiskHistory(ApiModel):
    now: int
    briefs: list[DiskSample] = Field(default_factory=list)


class Indicator(ApiModel):
    ID: str
    current: int | None = None
    max: int | None = None
    maxRecordedDate: int | None = None


class Indicators(ApiModel):
    """rfcell/indicators and wans/indicators: counters since `recordedSince`."""

    recordedSince: int
    inds: list[Indicator] = Field(default_factory=list)

    def value(self, ident: str) -> int | None:
        return next((i.current for i in self.inds if ident == i.ID), None)


# The RF cell counters the sandbox keeps (IDs of the reference).
RFCELL_INDICATORS = ("urcv", "ucrc", "usz", "udly", "uder", "unwf", "dsnd", "dwai", "dbsy",
                     "cok", "cerr", "conf", "clnk", "breq", "bsnd")  # fmt: skip
WAN_INDICATORS = ("cnx", "disc", "rtt")  # connections, disconnections, round trip (ms)


class BackhaulInterface(ApiModel):
    """wans/ints/{intUid}: one backhaul interface's records since `recordedSince`."""

    recordedSince: int
    address: str | None = None
    activity: int | None = None
    averageLatency: int | None = None
    deviationLatency: int | None = None
    maxLatency: RecordedValue | None = None
    averageRxTraffic: int | None = None
    averageTxTraffic: int | None = None
    maxRxTraffic: RecordedValue | None = None
    maxTxTraffic: RecordedValue | None = None
    totalRxTraffic: float | None = None
    totalTxTraffic: float | None = None
    connectionType: str | None = None
    networkOperator: str | None = None
    imei: str | None = None
    imsi: str | None = None
    iccid: str | None = None
    rssi: float | None = None
    ssid: str | None = None


class RoundTripSample(ApiModel):
    timestamp: int
    avgRT: int
    devRT: int
    maxRT: int


class RoundTrips(ApiModel):
    now: int
    briefs: list[RoundTripSample] = Field(default_factory=list)


class Position(ApiModel):
    lat: float
    lon: float


class ServedDevice(ApiModel):
    """A device whose last uplink this station heard: its RSSI/SNR/ESP as this station
    heard it, and `lrrID` of the best station of that uplink (maybe another)."""

    devEUI: str
    devAddr: str = ""
    lastUpTimestamp: int
    lrrID: str
    rssi: float
    snr: float
    esp: float
    name: str | None = None
    href: str | None = None
    loc: Position | None = None


class ServedLrr(ApiModel):
    lrrID: str
    loc: Position | None = None
    href: str | None = None


class ServedDevices(ApiModel):
    devices: list[ServedDevice] = Field(default_factory=list)
    lrrs: list[ServedLrr] = Field(default_factory=list)
    more: bool = False
    count: int = 0
