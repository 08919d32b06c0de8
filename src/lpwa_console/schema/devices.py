"""Devices (`/subscriptions/mine/devices`, Document 1 §2.3 and §4.1)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .common import (
    TAG_NAME_PATTERN,
    ApiModel,
    BoundingBox,
    BoxFilter,
    BoxLatitude,
    BoxLongitude,
    Coordinates,
    ListEnvelope,
    RequestModel,
    ResourceRequest,
    Tag,
    TagRef,
    hex_problem,
    is_hex,
)
from .domains import (
    Domain,
    check_domain_filter,
    check_one_domain_per_group,
    domain_filter_groups,
)
from .durations import parse_duration

# hex_key and the appKeys XML helpers live in .keys, re-exported for modules importing them here.
from .keys import app_skey_from_xml as app_skey_from_xml
from .keys import app_skey_xml as app_skey_xml
from .keys import check_app_keys, check_app_skey, effective_app_skey
from .keys import hex_key as hex_key

Connectivity = Literal["LORAWAN", "CELLULAR"]
Activation = Literal["ABP", "OTAA"]
HealthState = Literal["INIT", "ACTIVE", "RF_CNX_ERROR", "SUSPENDED"]
TagAction = Literal["TAG", "UNTAG"]

# --- alarm 004: no uplink activity -------------------------------------------------------

MIN_ALARM004 = timedelta(hours=1)
MAX_ALARM004 = timedelta(days=30)


class Alarm004Threshold(RequestModel):
    """One threshold of the no-uplink alarm: raise `level` after `duration` of silence."""

    status: Literal["ENABLE", "DISABLE"] = "ENABLE"
    level: int = Field(ge=2, le=6)
    duration: str

    @field_validator("duration")
    @classmethod
    def _duration_in_range(cls, value: str) -> str:
        span = parse_duration(value)
        if not MIN_ALARM004 <= span <= MAX_ALARM004:
            raise ValueError("the time without uplink must be between 1 hour and 30 days")
        return value.upper()

    @property
    def span(self) -> timedelta:
        return parse_duration(self.duration)


def default_alarm004() -> list[Alarm004Threshold]:
    """What applies when a device is created without thresholds: WARNING (3) after two days
    without uplink, MAJOR (5) after four."""
    return [
        Alarm004Threshold(status="ENABLE", level=3, duration="P2D"),
        Alarm004Threshold(status="ENABLE", level=5, duration="P4D"),
    ]


def check_alarm004(thresholds: list[Alarm004Threshold] | None) -> list[Alarm004Threshold] | None:
    if not thresholds:
        return thresholds
    if len(thresholds) > 2:
        raise ValueError("at most two thresholds")
    if len(thresholds) == 2:
        first, second = thresholds
        if second.status == "ENABLE" and first.status != "ENABLE":
            raise ValueError("the second threshold can be enabled only if the first one is")
        if first.level >= second.level:
            raise ValueError("the first threshold's level must be lower than the second's")
        if first.span >= second.span:
            raise ValueError("the first threshold's duration must be shorter than the second's")
    return thresholds


class AlarmsConfiguration(RequestModel):
    alarm004: list[Alarm004Threshold] | None = None

    _check = field_validator("alarm004")(check_alarm004)


# --- references ----------------------------------------------------------------------------


class IdRef(RequestModel):
    """A reference to another resource by its ID. Answers describe the resource referred to
    (its name, href, a model's commercial name...): sent back, those are ignored."""

    read_only_fields = frozenset(
        {"name", "href", "commercialName", "logo", "connectivity", "lorawanAsTransportKey"}
        | {"type", "typeMAC", "macMajorVersion", "macMinorVersion"}  # a device model's
    )

    ID: str = Field(min_length=1, max_length=64)


class NamedRef(ApiModel):
    ID: str
    name: str | None = None


class AppServerRef(NamedRef):
    """An application server a device is associated with, with its href."""

    href: str | None = None


class DeviceModelRef(ApiModel):
    ID: str
    commercialName: str | None = None
    connectivity: Connectivity | None = None


class RoutingProfile(ApiModel):
    ID: str | None = None
    name: str | None = None
    lorawanAsTransportKey: NamedRef | None = None


class DailyHistory(ApiModel):
    val: list[int] = Field(default_factory=list)


# --- key and identity rules ----------------------------------------------------------------


def normalise_eui(connectivity: str, eui: str) -> str:
    """DevEUI: 16 hex digits, upper-cased. IMEI: 15 digits (Luhn-checked, the check digit is
    then dropped) or 14 digits."""
    eui = eui.strip()
    if connectivity == "CELLULAR":
        if not eui.isdigit() or len(eui) not in (14, 15):
            raise ValueError("an IMEI has 14 digits, or 15 with its check digit")
        if len(eui) == 15:
            if not _luhn_ok(eui):
                raise ValueError("the IMEI's check digit (Luhn) is wrong")
            eui = eui[:14]
        return eui
    if not is_hex(eui, 16):
        raise ValueError(hex_problem(eui, 16))  # the caller names the field
    return eui.upper()


def _luhn_ok(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


# --- requests ------------------------------------------------------------------------------

# What a device answer carries that no request sets: the reference's readOnly properties
# (7.3) and the fields of our own answers (DeviceBrief, Device) that are not requests'.
DEVICE_READ_ONLY = frozenset(
    {"alarm1", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6", "creationDate", "now"}
    | {"healthState", "historyUpDaily", "historyDwDaily", "lastUpTimestamp", "lastDwTimestamp"}
    | {"firstUpTimestamp", "vendor", "LRRs", "LastGeoRadius", "LastGeoTimestamp", "avgRSSI"}
    | {"avgSNR", "avgESP", "classBState", "currentClass", "joinServer", "lastBatChangeBy"}
    | {"lastBatChanged", "lastBatLevel", "lastBatLevelTimestamp", "lastGeoLat", "lastGeoLon"}
    | {"lastInstantPER", "lastMeanPER", "lastRSSI", "lastSF", "lastSNR", "lastESP"}
    | {"lastNbTrans", "lastTxPower", "payloadEncryption", "pingSlotPeriod", "lastCellID"}
    | {"lastCellMCCMNC", "lastCellTrackingAreaNumber", "lastRAT", "lastServingNetworkMCCMNC"}
    | {"lastMicroflowTimestamp", "historyMicroflowDaily"}
    | {"ref", "href", "alarmLevel", "alarmCount", "lat", "lon", "lastIMEI"}  # ours
)
# What the reference lets a client write and the sandbox does not model (docs/architecture.md):
# accepted, passed on by the client, ignored by the sandbox.
DEVICE_NOT_MODELLED = frozenset(
    {"networkSubscription", "motionIndicator", "suspension", "alarm004", "driverMetadata"}
    | {"debug", "exchangeKeyVersion", "hsmAppKeyVersion", "hsmNwkKeyVersion", "nwKey"}
    | {"nwkKey", "nwkSEncKey", "sNwkSIntKey", "appKeyEncryptionMode"}
)


class _DeviceWritable(ResourceRequest):
    """Fields a create and an update share."""

    name: str | None = Field(default=None, max_length=128)
    tags: list[TagRef] | None = None
    domains: list[Domain] | None = None
    alarmsConfiguration: AlarmsConfiguration | None = None
    asTransportKey: IdRef | None = None
    hsmGroupID: str | None = None
    appServers: list[IdRef] | None = None
    adminLat: float | None = Field(default=None, ge=-90, le=90)
    adminLon: float | None = Field(default=None, ge=-180, le=180)
    customerAdminData: str | None = Field(default=None, max_length=1024)
    networkContextID: str | None = None
    appSKey: str | None = None
    appKeys: str | None = Field(default=None, deprecated="use appSKey")
    markerID: int | None = Field(default=None, deprecated="map markers are no longer used")
    verificationCode: str | None = Field(default=None, deprecated="feature removed")

    _domains = field_validator("domains")(check_one_domain_per_group)

    _app_skey = field_validator("appSKey")(check_app_skey)
    _app_keys = field_validator("appKeys")(check_app_keys)

    @model_validator(mode="after")
    def _location_pairs(self) -> _DeviceWritable:
        if (self.adminLat is None) != (self.adminLon is None):
            raise ValueError("adminLat and adminLon go together")
        return self

    def effective_app_skey(self) -> str | None:
        """appSKey, or the one in the deprecated XML document."""
        return effective_app_skey(self)


class DeviceCreate(_DeviceWritable):
    """POST /subscriptions/mine/devices."""

    # Not at creation: the occContext and location type (x-createForbidden). The routing
    # profile is set by an update or the import: here it is refused, not silently dropped.
    read_only_fields = DEVICE_READ_ONLY | {"occContext", "locationType"}
    not_modelled_fields = DEVICE_NOT_MODELLED | {"ownerToken", "ki"}

    connectivity: Connectivity = "LORAWAN"  # before EUI: the EUI rule depends on it
    EUI: str
    activation: Activation | None = None
    model: IdRef | None = None
    nwAddress: str | None = None
    appEUI: str | None = None
    appKey: str | None = None
    imsi: str | None = None
    iccid: str | None = None
    eid: str | None = None

    @field_validator("EUI")
    @classmethod
    def _eui(cls, value: str, info: ValidationInfo) -> str:
        return normalise_eui(info.data.get("connectivity", "LORAWAN"), value)

    @field_validator("nwAddress")
    @classmethod
    def _devaddr(cls, value: str | None) -> str | None:
        return hex_key(value, digits=8, what="DevAddr")

    @field_validator("appEUI")
    @classmethod
    def _app_eui(cls, value: str | None) -> str | None:
        return hex_key(value, digits=16, what="AppEUI/JoinEUI")

    @field_validator("appKey")
    @classmethod
    def _app_key(cls, value: str | None) -> str | None:
        return hex_key(value, digits=32, what="AppKey")

    @field_validator("imsi")
    @classmethod
    def _imsi(cls, value: str | None) -> str | None:
        if value is not None and not (value.isdigit() and 6 <= len(value) <= 15):
            raise ValueError("an IMSI has 6 to 15 digits")
        return value

    @field_validator("iccid")
    @classmethod
    def _iccid(cls, value: str | None) -> str | None:
        if value is not None and not (value.isdigit() and 18 <= len(value) <= 22):
            raise ValueError("an ICCID has 18 to 22 digits")
        return value

    def deprecated_fields_set(self) -> dict[str, str]:
        """Also `nwAddress` of an OTAA device: optional at creation, but deprecated (the
        network server allocates the DevAddr at join)."""
        found = super().deprecated_fields_set()
        if self.activation == "OTAA" and self.nwAddress and "nwAddress" in self.model_fields_set:
            found["nwAddress"] = "an OTAA device gets its DevAddr from the network at join"
        return found

    @model_validator(mode="after")
    def _rules(self) -> DeviceCreate:
        if not self.name:
            # Creation without a name: the DevEUI (or IMEI) stands for it.
            self.name = self.EUI
        if self.connectivity == "CELLULAR":
            lora_only = ("activation", "nwAddress", "appEUI", "appKey", "appSKey", "asTransportKey")
            given = [f for f in lora_only if getattr(self, f) is not None]
            if given:
                raise ValueError(f"not applicable to a cellular device: {', '.join(given)}")
            return self
        if self.activation is None:
            self.activation = "ABP" if (self.appSKey or self.nwAddress) else "OTAA"
        if self.activation == "ABP":
            if not self.nwAddress:
                raise ValueError("an ABP device needs its DevAddr (nwAddress)")
            if not self.effective_app_skey():
                raise ValueError("an ABP device needs its AppSKey")
        elif self.appSKey:
            raise ValueError("an OTAA device gets its AppSKey at join; do not give one")
        return self


class DeviceUpdate(_DeviceWritable):
    """PUT /subscriptions/mine/devices/{deviceUid}: only the fields given are changed. What
    cannot change after creation (x-updateForbidden) may be sent with its current value
    (`fixed_values`: EUI, connectivity, activation, DevAddr, and our iccid and eID); a
    different value is refused by the server. A new `model` must suit the device
    (schema.device_profiles.model_change_refusal)."""

    read_only_fields = DEVICE_READ_ONLY | {"ownerToken", "ki"}
    fixed_fields = frozenset({"EUI", "connectivity", "activation", "nwAddress", "iccid", "eid"})
    not_modelled_fields = DEVICE_NOT_MODELLED | {
        "occContext", "locationType", "appEUI", "appKey"
    }  # fmt: skip

    model: IdRef | None = None
    appServersRoutingProfile: IdRef | None = None
    imsi: str | None = None


class DevicesTagRequest(RequestModel):
    """POST /subscriptions/mine/devices/tags: tag or untag the devices with these EUIs."""

    name: str = Field(pattern=TAG_NAME_PATTERN)
    action: TagAction = "TAG"
    devEUIs: list[str] = Field(min_length=1, max_length=1000)


# --- responses -----------------------------------------------------------------------------


class DeviceBrief(ApiModel):
    """A device as listed. Counters alarm1..alarm6 are un-acknowledged alarms by severity."""

    EUI: str
    name: str
    connectivity: Connectivity = "LORAWAN"
    ref: str | None = None
    href: str | None = None
    activation: Activation | None = None
    model: DeviceModelRef | None = None
    healthState: HealthState = "INIT"
    creationDate: int = 0
    tags: list[Tag] = Field(default_factory=list)
    domains: list[Domain] = Field(default_factory=list)
    appServers: list[AppServerRef] = Field(default_factory=list)
    alarm1: int = 0
    alarm2: int = 0
    alarm3: int = 0
    alarm4: int = 0
    alarm5: int = 0
    alarm6: int = 0
    alarmLevel: int = 0
    alarmCount: int = 0
    lastUpTimestamp: int | None = None
    lastDwTimestamp: int | None = None
    lastSF: int | None = None
    lastRSSI: float | None = None
    lastSNR: float | None = None
    avgSNR: float | None = None
    lastBatLevel: int | None = None
    lat: float | None = None
    lon: float | None = None
    nwAddress: str | None = None
    customerAdminData: str | None = None
    networkContextID: str | None = None
    lastIMEI: str | None = None
    imsi: str | None = None
    iccid: str | None = None
    historyUpDaily: DailyHistory | None = None
    markerID: int | None = Field(default=None, deprecated="map markers are no longer used")

    @property
    def path_ref(self) -> str:
        """How to address this device in a path: `e` + EUI works for any device."""
        return self.ref or ("e" + self.EUI)


class DeviceLrr(ApiModel):
    """A base station that received the device's last uplink (the best first)."""

    ID: str
    RSSI: float
    SNR: float
    ESP: float | None = None
    lat: float | None = None
    lon: float | None = None


class Device(DeviceBrief):
    """A single device, with its configuration."""

    appEUI: str | None = None
    asTransportKey: NamedRef | None = None
    hsmGroupID: str | None = None
    alarmsConfiguration: AlarmsConfiguration | None = None
    appServersRoutingProfile: RoutingProfile | None = None
    adminLat: float | None = None
    adminLon: float | None = None
    eid: str | None = None
    LRRs: list[DeviceLrr] = Field(default_factory=list)  # stations that heard the last uplink
    now: int | None = None  # the server's time (ms) when it answered


class DevicePage(ListEnvelope[DeviceBrief]):
    """A page of the device list; `now` is the server's time as an ISO 8601 date-time (the
    reference's choice here, where a single device gives milliseconds)."""

    now: datetime | None = None


class DeviceCluster(ApiModel):
    count: int = Field(ge=1)
    location: Coordinates
    bbox: BoundingBox
    item: DeviceBrief | None = None


class DeviceClusters(ApiModel):
    count: int = 0
    clusters: list[DeviceCluster] = Field(default_factory=list)


class TagActionResult(ApiModel):
    """What a tag request changed (our sandbox reports it; other platforms may not)."""

    count: int | None = None


# Sort criteria the device list accepts (`sort=<criterion>,<asc|desc>`).
DEVICE_SORT_CRITERIA = (
    "name",
    "EUI",
    "creationDate",
    "lastUpTimestamp",
    "lastDwTimestamp",
    "lastSF",
    "avgSNR",
    "lastBatLevel",
)
MAX_CLUSTERS = 64


class DeviceFilter(BoxFilter):
    """Server-side filters of the device list (Document 1 §4.1 and the reference contract).

    Empty fields are not sent. Prefix filters: devEUI, name, query, simID. Exact: tag,
    asTransportKeyID, networkContextID, imei (on lastIMEI). appServerID is repeatable and a
    device must be associated with all of them. domain is repeatable, each `group:name` and
    exact (the reference): a device matches when, for every group named, it is in one of the
    domains given for that group (a device has one domain per group, so several of one group
    mean any of them).
    """

    query: str | None = None
    name: str | None = None
    devEUI: list[str] = Field(default_factory=list)
    tag: list[str] = Field(default_factory=list)
    appServerID: list[str] = Field(default_factory=list)
    asTransportKeyID: str | None = None
    connectivity: Connectivity | None = None
    networkContextID: str | None = None
    simID: str | None = None
    imei: str | None = None
    healthState: list[HealthState] = Field(default_factory=list)
    alarmLevel: int | None = Field(default=None, ge=1, le=6)
    domain: list[str] = Field(default_factory=list)
    minLat: BoxLatitude = None
    minLon: BoxLongitude = None
    maxLat: BoxLatitude = None
    maxLon: BoxLongitude = None

    _domains = field_validator("domain")(check_domain_filter)

    def domains_by_group(self) -> dict[str, list[str]]:
        return domain_filter_groups(self.domain)
