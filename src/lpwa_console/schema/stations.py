"""Base stations of a network partner (`/partners/mine/bss`, Document 2 §2.4 and §4.3).

A station is addressed by its UID, `i` + its lrrID in upper case, or `u` + its lrrUUID.
Its lrrID is 8 hexadecimal digits, stored upper case; `00000000` and the prefixes `FFFE`
and `FFFF` are reserved. The platform allocates one when a creation does not give it.

`alarmsConfiguration` (§2.4): alarm102 (connection lost) has at most one threshold and,
when null or unset at creation, gets CRITICAL after 30 seconds; alarm103 (no uplink) has at
most two, the second with a longer duration and a higher severity.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Literal, get_args

from pydantic import Field, field_serializer, field_validator, model_validator

from .catalogs import RfHardwareConfig
from .common import (
    ApiModel,
    BoxFilter,
    BoxLatitude,
    BoxLongitude,
    Distribution,
    ListEnvelope,
    RequestModel,
    ResourceRequest,
    VersionValue,
)
from .domains import (
    Domain,
    check_domain_filter,
    check_one_domain_per_group,
    domain_filter_groups,
)
from .durations import format_duration, parse_duration

CnxState = Literal["NEVERCNX", "CNX", "DISC", "UNKNOWN"]
BsState = Literal["INIT", "VALIDATING", "ACTIVE", "SUSPENDED"]
BsHealthState = Literal["INIT", "ACTIVE", "BACKHAUL_CNX_ERROR", "RF_ERROR", "SUSPENDED"]
BS_HEALTH_STATES: tuple[BsHealthState, ...] = get_args(BsHealthState)
SecurityType = Literal["IPSEC_X509", "DISABLE"]
SecurityState = Literal[
    "EXPIRED",
    "EXPIRATION_IN_LESS_THAN_1_WEEK",
    "EXPIRATION_IN_LESS_THAN_1_MONTH",
    "DISABLED",
    "UNKNOWN",
]
SoftwareType = Literal["LRR_LINUX", "BASIC_STATION_LINUX", "LRR_FREERTOS"]
RfCoverageType = Literal["PERMANENT", "TEMPORARY_MOBILE", "TEMPORARY_STATIONARY"]
TagAction = Literal["TAG", "UNTAG"]

# --- lrrID ------------------------------------------------------------------------------------

_LRR_ID = re.compile(r"[0-9A-F]{8}")
_LRR_UUID = re.compile(r"[0-9A-F]{6}-[0-9A-F]{2,48}")
RESERVED_LRR_PREFIXES = ("FFFE", "FFFF")


def normalise_lrr_id(value: str) -> str:
    """An lrrID in upper case; ValueError when it is not 8 hexadecimal digits or reserved."""
    text = value.strip().upper()
    if not _LRR_ID.fullmatch(text):
        raise ValueError("an LRR ID has 8 hexadecimal digits")
    if text == "00000000" or text.startswith(RESERVED_LRR_PREFIXES):
        raise ValueError(f"{text} is reserved (00000000, FFFE... and FFFF... cannot be used)")
    return text


def normalise_lrr_uuid(value: str) -> str:
    text = value.strip().upper()
    if len(text) > 55 or not _LRR_UUID.fullmatch(text):
        raise ValueError("an LRR UUID is 6 hexadecimal digits, '-', then 2 to 48 of them")
    return text


def station_ref(lrr_id: str) -> str:
    """The `i` + lrrID form that addresses a station in a path."""
    return "i" + lrr_id.upper()


# --- alarmsConfiguration (§2.4) --------------------------------------------------------------

MAX_THRESHOLD = timedelta(days=365)
DEFAULT_ALARM102_DURATION = "PT30S"
DEFAULT_ALARM102_SEVERITY = 6  # CRITICAL


class AlarmThreshold(RequestModel):
    """Raise the alarm at `severity` (2 INDETERMINATE .. 6 CRITICAL) after `duration` (ISO
    8601, e.g. PT30S, PT2H, P1D)."""

    duration: str
    severity: int = Field(ge=2, le=6)

    @field_validator("duration")
    @classmethod
    def _duration(cls, value: str) -> str:
        span = parse_duration(value)
        if not timedelta(0) < span <= MAX_THRESHOLD:
            raise ValueError("the duration must be more than 0 seconds and at most 365 days")
        return value.strip().upper()

    @property
    def span(self) -> timedelta:
        return parse_duration(self.duration)


def default_alarm102() -> list[AlarmThreshold]:
    """CRITICAL after 30 seconds of disconnection."""
    return [AlarmThreshold(duration=DEFAULT_ALARM102_DURATION, severity=DEFAULT_ALARM102_SEVERITY)]


def check_alarm102(thresholds: list[AlarmThreshold] | None) -> list[AlarmThreshold] | None:
    if thresholds is not None and len(thresholds) > 1:
        raise ValueError("alarm102 has at most one threshold")
    return thresholds


def check_alarm103(thresholds: list[AlarmThreshold] | None) -> list[AlarmThreshold] | None:
    if not thresholds:
        return thresholds
    if len(thresholds) > 2:
        raise ValueError("alarm103 has at most two thresholds")
    if len(thresholds) == 2:
        first, second = thresholds
        if second.span <= first.span:
            raise ValueError("the second threshold's duration must be longer than the first's")
        if second.severity <= first.severity:
            raise ValueError("the second threshold's severity must be higher than the first's")
    return thresholds


class AlarmsConfiguration(RequestModel):
    """alarm102: connection lost (at most 1 threshold); alarm103: no uplink (at most 2, the
    second longer and more severe). Null alarm102 at creation means the default."""

    alarm102: list[AlarmThreshold] | None = None
    alarm103: list[AlarmThreshold] | None = None

    _alarm102 = field_validator("alarm102")(check_alarm102)
    _alarm103 = field_validator("alarm103")(check_alarm103)


class AlarmThresholdView(ApiModel):
    duration: str
    severity: int

    @property
    def span(self) -> timedelta:
        return parse_duration(self.duration)


class AlarmsConfigurationView(ApiModel):
    """alarmsConfiguration as answered (required in station answers)."""

    alarm102: list[AlarmThresholdView] = Field(default_factory=list)
    alarm103: list[AlarmThresholdView] = Field(default_factory=list)

    def to_request(self) -> AlarmsConfiguration:
        return AlarmsConfiguration.model_validate(self.model_dump(include={"alarm102", "alarm103"}))


def threshold_text(span: timedelta) -> str:
    return format_duration(span)


# --- references and small parts ---------------------------------------------------------------


class ModelRef(RequestModel):
    """The station model (base station profile) by its ID; what answers add is ignored."""

    read_only_fields = frozenset({"commercialName", "logo", "rfHardwareConfig", "softwareType"})
    ID: str = Field(min_length=1, max_length=40)
    ismBands: list[str] | None = None


class BsSecurityRequest(RequestModel):
    read_only_fields = frozenset({"expirationDate", "generationDate"})
    type: SecurityType


class HostRef(RequestModel):
    read_only_fields = frozenset({"name"})
    ID: str | None = None
    accessRight: Literal["RO", "RW"] | None = None


class RfProbeSetting(RequestModel):
    enabled: bool


class AppServerIdRef(RequestModel):
    read_only_fields = frozenset({"name", "href"})
    ID: str


# --- responses ------------------------------------------------------------------------------


class StationModel(ApiModel):
    ID: str
    commercialName: str | None = None
    logo: str | None = None
    softwareType: SoftwareType | None = None
    rfHardwareConfig: str | None = None


class StationVendor(ApiModel):
    ID: str | None = None
    commercialName: str | None = None
    logo: str | None = None


class StationModelVendor(ApiModel):
    ID: str
    commercialName: str | None = None
    commercialDescription: str | None = None


class IsmBandBrief(ApiModel):
    ID: str | None = None
    name: str | None = None


class StationModelBrief(ApiModel):
    """A base station model the partner may create stations of (GET /partners/mine/
    bsProfiles): what a station's `model.ID` names."""

    ID: str
    commercialName: str
    vendor: StationModelVendor
    rfHardwareConfig: str | None = None
    softwareType: SoftwareType | None = None
    defaultIsmBands: list[IsmBandBrief] = Field(default_factory=list)

    @property
    def name(self) -> str:
        return self.commercialName


class StationModelPage(ListEnvelope[StationModelBrief]):
    """GET /partners/mine/bsProfiles: index-paged (`pageIndex`, `more`)."""


class StationTag(ApiModel):
    name: str
    multicastVisibility: bool = True
    href: str | None = None


class RfProbeState(ApiModel):
    enabled: bool = False


class BsSecurity(ApiModel):
    type: SecurityType = "DISABLE"
    expirationDate: int | None = None
    generationDate: int | None = None


class StationOwner(ApiModel):
    ID: str
    name: str | None = None
    accessRight: str | None = None


class _StationFields(ApiModel):
    lrrID: str
    name: str
    href: str | None = None
    lrrUUID: str | None = None
    model: StationModel | None = None
    vendor: StationVendor | None = None
    state: BsState = "ACTIVE"
    stateSince: int = 0
    healthState: BsHealthState = "INIT"
    cnxState: CnxState = "NEVERCNX"
    cnxStateSince: int | None = None
    creationDate: int = 0
    alarm1: int = 0
    alarm2: int = 0
    alarm3: int = 0
    alarm4: int = 0
    alarm5: int = 0
    alarm6: int = 0
    alarmLevel: int = 0
    alarmCount: int = 0
    tags: list[StationTag] = Field(default_factory=list)
    domains: list[Domain] = Field(default_factory=list)
    rfProbe: RfProbeState | None = None
    bsSecurity: BsSecurity | None = None
    ismBand: str | None = None
    rfRegionID: str | None = None
    version: VersionValue = None
    lastReboot: int | None = None
    lastReport: int | None = None
    cpu: int | None = None
    ram: int | None = None
    customerAdminData: str | None = None
    gpsReceiverConfig: Literal["PRESENT", "ABSENT"] | None = None

    @property
    def path_ref(self) -> str:
        """How to address this station in a path: `i` + lrrID."""
        return station_ref(self.lrrID)

    @property
    def alarm_counts(self) -> tuple[int, int, int, int, int, int]:
        return (self.alarm1, self.alarm2, self.alarm3, self.alarm4, self.alarm5, self.alarm6)


class BaseStationBrief(_StationFields):
    """A station as listed (and inside clusters)."""

    lat: float | None = None
    lon: float | None = None
    alt: int | None = None
    lastUpFrameDate: int | None = None
    lastDwFrameDate: int | None = None
    minRC: int | None = None
    customVersion: str | None = None


class BaseStation(_StationFields):
    """One station (GET, and the answers of POST and PUT). `alarmsConfiguration` is
    always given."""

    alarmsConfiguration: AlarmsConfigurationView = Field(default_factory=AlarmsConfigurationView)
    lastGeoLat: float | None = None
    lastGeoLon: float | None = None
    lastGeoAlt: int | None = None
    contactInfo: str | None = None
    staticAddress: str | None = None
    smn: str | None = None
    publicKey: str | None = None
    rfCoverageType: RfCoverageType | None = None
    rfHardwareConfig: str | None = None
    owner: StationOwner | None = None
    # The RF probe's application servers: absent without any (the reference's 1 to 5).
    appServers: list[ApiModel] | None = None
    identificationMode: Literal["LRR_ID", "LRR_UUID"] | None = None
    # The type of the station's last administration command (Document 2 §2.2; e.g.
    # CHANGE_SUPPORT_PASSWORD), as `/admins/lastCmdStatus` names it.
    lastAcmdReqType: str | None = None
    lastCmdType: str | None = None
    now: int | None = None

    @field_serializer("version")
    def _version_object(self, version: str | None) -> dict[str, str] | None:
        """Written as the reference's object (its brief keeps the plain value); read in
        either shape (VersionValue)."""
        return None if version is None else {"version": version}


class BaseStationPage(ListEnvelope[BaseStationBrief]):
    now: int | None = None


class BaseStationCluster(ApiModel):
    count: int = Field(ge=1)
    location: dict[str, float]
    bbox: dict[str, dict[str, float]]
    item: BaseStationBrief | None = None


class BaseStationClusters(ApiModel):
    count: int = 0
    clusters: list[BaseStationCluster] = Field(default_factory=list)


class HealthCount(ApiModel):
    healthState: BsHealthState
    count: int


class BaseStationCounters(Distribution[HealthCount]):
    """GET /bss/counters: stations per health state."""


class StationTags(ApiModel):
    """GET /bss/{bsUid}/tags."""

    briefs: list[StationTag] = Field(default_factory=list)
    more: bool = False


class StationTagSuggestions(ApiModel):
    briefs: list[StationTag] = Field(default_factory=list)
    query: str = ""


class StationTagResult(ApiModel):
    """The answer of a tag action: the tag (and, from the sandbox, how many it changed)."""

    name: str | None = None
    multicastVisibility: bool | None = None
    count: int | None = None


# --- requests --------------------------------------------------------------------------------

# What a station answer carries that no request sets (the reference's readOnly properties
# and those of our answers).
STATION_READ_ONLY = frozenset(
    {"activateBeaconTransmission", "activateRX2Optimization", "activateSupportFor802_15_4"}
    | {f"alarm{i}" for i in range(1, 7)}
    | {"allowClassB", "backup", "classBState", "cnxState", "cnxStateSince", "cpu", "customs"}
    | {"creationDate", "dwFrame", "fpgaBoards", "gpsSync", "healthState", "identificationMode"}
    | {"ints", "lastGeoAlt", "lastGeoLat", "lastGeoLon", "lastReboot", "lastRebootCause"}
    | {"lastReport", "lastSystemReboot", "locationType", "log", "logicalChannels", "lrcs"}
    | {"mfs", "now", "owner", "power", "ram", "reverseSshState", "rfRegionID"}
    | {"rfRegionIDVersion", "rfRegionName", "rfRegionHref", "rfScanState", "rfcellState"}
    | {"stateSince", "temp", "timeSync", "upFrame", "upgradePolicy", "vendor", "version"}
    | {"supportPassword", "beacons", "ants", "lastAcmdReqType", "lastCmdType"}
    # ours (list items and answers)
    | {"href", "alarmLevel", "alarmCount", "tags", "lat", "lon", "alt", "lastUpFrameDate"}
    | {"lastDwFrameDate", "minRC", "customVersion"}
)
# Writable in the reference, not modelled by the sandbox: accepted, passed on, ignored.
STATION_NOT_MODELLED = frozenset(
    {"gpsAntennaConfig", "host", "appServers", "publicKey", "occContext"}
)
# Deprecated strings replaced by mfs, lrcs and power (ignored in requests, §2.4).
STATION_DEPRECATED_IGNORED = frozenset(
    {"diskConfig", "lrcConfig", "powerConfig", "antennasConfig", "wanConfig"}
)


class _StationWritable(ResourceRequest):
    name: str | None = Field(default=None, min_length=1, max_length=128)
    domains: list[Domain] | None = None
    alarmsConfiguration: AlarmsConfiguration | None = None
    rfProbe: RfProbeSetting | None = None
    bsSecurity: BsSecurityRequest | None = None
    ismBand: str | None = Field(default=None, max_length=64)
    contactInfo: str | None = Field(default=None, max_length=1024)
    customerAdminData: str | None = Field(default=None, max_length=1024)
    staticAddress: str | None = Field(default=None, max_length=256)
    smn: str | None = Field(default=None, max_length=256)
    rfCoverageType: RfCoverageType | None = None
    rfHardwareConfig: RfHardwareConfig | None = None
    gpsReceiverConfig: Literal["PRESENT", "ABSENT"] | None = None
    state: BsState | None = None
    alarm103: str | None = Field(default=None, deprecated="use alarmsConfiguration.alarm103")
    adminAltGround: int | None = Field(
        default=None, deprecated="use altitudeAboveGround of each antenna"
    )

    _domains = field_validator("domains")(check_one_domain_per_group)


class BaseStationCreate(_StationWritable):
    """POST /partners/mine/bss (201). lrrID is allocated when not given (giving it is not
    recommended); the model is required."""

    read_only_fields = STATION_READ_ONLY
    not_modelled_fields = STATION_NOT_MODELLED | STATION_DEPRECATED_IGNORED

    model: ModelRef
    lrrID: str | None = None
    lrrUUID: str | None = None

    @field_validator("lrrID")
    @classmethod
    def _lrr_id(cls, value: str | None) -> str | None:
        return None if value is None else normalise_lrr_id(value)

    @field_validator("lrrUUID")
    @classmethod
    def _lrr_uuid(cls, value: str | None) -> str | None:
        return None if value is None else normalise_lrr_uuid(value)

    @model_validator(mode="after")
    def _defaults(self) -> BaseStationCreate:
        # §2.4: alarm102 null or unset at creation -> CRITICAL after 30 seconds.
        config = self.alarmsConfiguration or AlarmsConfiguration()
        if config.alarm102 is None:
            config = AlarmsConfiguration(alarm102=default_alarm102(), alarm103=config.alarm103)
        self.alarmsConfiguration = config
        return self


class BaseStationUpdate(_StationWritable):
    """PUT /partners/mine/bss/{bsUid}: only the fields given change. lrrID, lrrUUID and the
    model are fixed at creation (the same value is accepted)."""

    read_only_fields = STATION_READ_ONLY
    fixed_fields = frozenset({"lrrID", "lrrUUID", "model"})
    not_modelled_fields = STATION_NOT_MODELLED | STATION_DEPRECATED_IGNORED


class StationsTagRequest(RequestModel):
    """POST /bss/tags: tag or untag the stations with these lrrIDs (or, without any, those
    the query filters select, one page)."""

    name: str = Field(min_length=1, max_length=40)
    multicastVisibility: bool | None = None
    managedNetworkVisibility: bool | None = Field(default=None, deprecated="no longer used")
    action: TagAction | None = None
    LRRIDs: list[str] | None = Field(default=None, max_length=1000)

    @field_validator("LRRIDs")
    @classmethod
    def _ids(cls, values: list[str] | None) -> list[str] | None:
        return None if values is None else [normalise_lrr_id(v) for v in values]


class StationTagCreate(RequestModel):
    """POST /bss/{bsUid}/tags and PUT /bss/{bsUid}/tags/{tagUid}."""

    read_only_fields = frozenset({"href"})
    name: str = Field(min_length=1, max_length=40)
    multicastVisibility: bool | None = None
    managedNetworkVisibility: bool | None = Field(default=None, deprecated="no longer used")


class StationsDomainsRequest(RequestModel):
    """POST /bss/domains: add (replacing the one of the same group) and remove domains."""

    addedDomains: list[Domain] = Field(default_factory=list)
    removedDomains: list[Domain] = Field(default_factory=list)
    LRRIDs: list[str] = Field(min_length=1, max_length=1000)

    _added = field_validator("addedDomains")(check_one_domain_per_group)

    @field_validator("LRRIDs")
    @classmethod
    def _ids(cls, values: list[str]) -> list[str]:
        return [normalise_lrr_id(v) for v in values]


class BaseStationFilter(BoxFilter):
    """Filters of the station list (the reference's). Prefix: name, LRRID (repeatable, any),
    version, LRRUUID, query (lrrID, lrrUUID or name). Exact: customVersion, tag (all must
    match), rfRegionID (any), domain (`group:name`, as devices), appServerID (all).
    healthState: any of them. alarmLevel: an un-acknowledged alarm at least this severe.
    minRC: remaining capacity at most this. rebootFrom: rebooted since (ISO 8601)."""

    name: str | None = None
    LRRID: list[str] = Field(default_factory=list)
    version: str | None = None
    customVersion: str | None = None
    rebootFrom: str | None = None
    minRC: int | None = None
    alarmLevel: int | None = Field(default=None, ge=1, le=6)
    minLat: BoxLatitude = None
    minLon: BoxLongitude = None
    maxLat: BoxLatitude = None
    maxLon: BoxLongitude = None
    LRRUUID: str | None = None
    healthState: list[BsHealthState] = Field(default_factory=list)
    query: str | None = None
    tag: list[str] = Field(default_factory=list)
    domain: list[str] = Field(default_factory=list)
    rfRegionID: list[str] = Field(default_factory=list)
    bsSecurityState: SecurityState | None = None
    appServerID: list[str] = Field(default_factory=list)

    _domains = field_validator("domain")(check_domain_filter)

    def domains_by_group(self) -> dict[str, list[str]]:
        return domain_filter_groups(self.domain)


# The reference's sort criteria, and lrrID (Document 2 §4.3), the only one with a cursor.
BS_SORT_CRITERIA = (
    "name",
    "lastUpFrameDate",
    "lastDwFrameDate",
    "version",
    "lastReboot",
    "creationDate",
    "lrrID",
)
BS_CURSOR_SORT = "lrrID"
MAX_CLUSTERS = 64
