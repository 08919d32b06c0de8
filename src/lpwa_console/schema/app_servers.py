"""Application servers (`/subscriptions/mine/appServers`, Document 1 §2.5 and §4.3).

Path identifier: the sequential UID (scope SUBSCRIPTION only) or `id:` + the server's ID (all
scopes; use `app_server_ref`). Servers of scope OPERATOR are provided by the operator: they can
be read, never written.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator, model_validator

# APP_SERVERS_HREF, app_server_href and app_server_ref live in common.py (the sandbox's device
# list links devices to their servers without importing this module, issue 8): re-exported.
from .common import APP_SERVERS_HREF as APP_SERVERS_HREF
from .common import (
    ApiModel,
    ListEnvelope,
    QueryFilter,
    RequestModel,
    ResourceRequest,
)
from .common import app_server_href as app_server_href
from .common import app_server_ref as app_server_ref
from .devices import hex_key
from .domains import Domain, check_one_domain_per_group
from .multicast import OccContext

AppServerScope = Literal["SUBSCRIPTION", "OPERATOR"]
AppServerType = Literal["HTTP", "HTTP_CELLULAR", "KAFKA"]
AppServerState = Literal["ACTIVE", "DEACTIVATED"]
AppServerValidationState = Literal["VALIDATED", "SUSPENDED"]
AppServerHealthState = Literal["ACTIVE", "INIT", "ERROR", "DEACTIVATED"]
AppServerStrategy = Literal["SEQUENTIAL", "BLAST"]
ContentType = Literal["xml", "json", "jsontyped"]
DownlinkSecurityStatus = Literal["DOWNLINK_AS_KEY", "NONE"]

APP_SERVER_SCOPES: tuple[AppServerScope, ...] = ("SUBSCRIPTION", "OPERATOR")
MAX_CUSTOM_HEADERS = 5
APP_SERVER_SORT_CRITERIA = ("name", "ID", "type", "deviceCount")


# --- responses -------------------------------------------------------------------------------


class AppServerDestination(ApiModel):
    """A destination as returned. HTTP: several `addresses`, `ports` (a list or ranges, not
    only `*`), `strategy` (BLAST, SEQUENTIAL, or a value of a newer platform). KAFKA:
    brokerID, topicName."""

    addresses: list[str] | None = None  # HTTP only: absent, not empty, for KAFKA
    ports: str | None = None
    strategy: str | None = None
    brokerID: str | None = None
    topicName: str | None = None


class CustomHttpHeader(ApiModel):
    name: str
    value: str


class DownlinkSecurity(ApiModel):
    status: DownlinkSecurityStatus
    asID: str | None = None
    maxTimestampDeviation: int | None = None


class KafkaNotification(ApiModel):
    baseStationAlarms: bool = False
    deviceAlarms: bool = False


class TpxIotFlow(ApiModel):
    connectionId: str | None = None
    connectorId: str | None = None
    flowId: str | None = None
    state: str | None = None


class AppServerBrief(ApiModel):
    """An application server as listed. scope is always present; baseStationCount, state,
    type and validationState do not apply to scope OPERATOR.

    Counts are of direct associations (not through AS routing profiles) and, for a user with
    domain restrictions, of the items those restrictions let them see: deviceCount,
    multicastGroupCount, baseStationCount, and rfProbeCount (RF probes, §2.5). A server may
    leave out the counts it cannot give (the sandbox has no base stations or RF probes)."""

    ID: str
    name: str
    scope: AppServerScope
    href: str | None = None
    type: AppServerType | None = None
    state: AppServerState | None = None
    validationState: AppServerValidationState | None = None
    healthState: AppServerHealthState | None = None
    baseStationCount: int | None = None
    rfProbeCount: int | None = None
    deviceCount: int | None = None
    multicastGroupCount: int | None = None
    domains: list[Domain] = Field(default_factory=list)
    notification: KafkaNotification | None = None
    tpxIotFlow: TpxIotFlow | None = None

    @property
    def path_ref(self) -> str:
        """`id:` + ID: valid whatever the scope."""
        return app_server_ref(self.ID)

    @property
    def writable(self) -> bool:
        return self.scope == "SUBSCRIPTION"


class AppServer(AppServerBrief):
    """A single application server (contentType, downlinkSecurity, occContext do not apply to
    scope OPERATOR)."""

    contentType: ContentType | None = None
    downlinkSecurity: DownlinkSecurity | None = None
    destinations: list[AppServerDestination] = Field(default_factory=list)
    customHttpHeaders: list[CustomHttpHeader] = Field(default_factory=list)
    flowMatcherTags: list[str] = Field(default_factory=list)
    occContext: OccContext | None = None


class AppServerPage(ListEnvelope[AppServerBrief]):
    pass


class SecurityAppServer(ApiModel):
    """GET|PUT /appServers/{appServerUid}/security."""

    downlinkSecurity: DownlinkSecurity
    occContext: OccContext | None = None


class AppServerIotFlowConnectorMetrics(ApiModel):
    """GET /appServers/{appServerUid}/iotFlowConnector/metrics."""

    activeThingsLast1h: int
    activeThingsLast24h: int
    downlinksLast1h: int
    downlinksLast1hFailed: int
    downlinksLast24h: int
    downlinksLast24hFailed: int
    uplinksLast1h: int
    uplinksLast1hFailed: int
    uplinksLast24h: int
    uplinksLast24hFailed: int


# --- requests --------------------------------------------------------------------------------

_PORTS = re.compile(r"\*|(\d{1,5}(-\d{1,5})?)(,\d{1,5}(-\d{1,5})?)*")
_HEADER_NAME = r"^([!#$%&'*+\-.^`|~\w])+$"
_HEADER_VALUE = r"^([\x21-\x7e](([ \t])+[\x21-\x7e])?)+$"


def check_ports(value: str) -> str:
    """`*`, a port, a range `8000-8010`, or a comma-separated list of them (1..65535)."""
    text = value.replace(" ", "")
    if not _PORTS.fullmatch(text):
        raise ValueError("ports must be *, a port, a range such as 8000-8010, or a list of them")
    if text != "*":
        for part in text.split(","):
            bounds = [int(p) for p in part.split("-")]
            if not all(1 <= p <= 65535 for p in bounds) or bounds != sorted(bounds):
                raise ValueError(f"ports: {part} is not a port or an increasing range in 1-65535")
    return text


class HttpDestination(RequestModel):
    """An HTTP destination: several addresses; ports (HTTP only); strategy BLAST (all at
    once) or SEQUENTIAL (one after another)."""

    addresses: list[str] = Field(min_length=1)
    ports: str | None = None
    strategy: AppServerStrategy

    @field_validator("addresses")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        cleaned = [a.strip() for a in value]
        if any(not a or " " in a for a in cleaned):
            raise ValueError("an address cannot be empty or contain spaces")
        return cleaned

    @field_validator("ports")
    @classmethod
    def _ports(cls, value: str | None) -> str | None:
        return None if value is None else check_ports(value)


class KafkaDestination(RequestModel):
    brokerID: str = Field(min_length=1)
    topicName: str = Field(min_length=1)


class CustomHttpHeaderRequest(RequestModel):
    name: str = Field(pattern=_HEADER_NAME)
    value: str = Field(pattern=_HEADER_VALUE)


class DownlinkSecurityRequest(RequestModel):
    """Downlink security: with status DOWNLINK_AS_KEY, the AS ID and its key (32 hex)."""

    status: DownlinkSecurityStatus
    asID: str | None = None
    downlinkAsKey: str | None = None
    maxTimestampDeviation: int | None = Field(default=None, ge=0)

    @field_validator("downlinkAsKey")
    @classmethod
    def _key(cls, value: str | None) -> str | None:
        return hex_key(value, digits=32, what="downlinkAsKey")


class OccVersion(RequestModel):
    read_only_fields = frozenset({"lastUpdate", "who"})

    version: int = Field(ge=0)


# What a server answer carries that no request sets (the reference's readOnly properties and
# our own answers'), and what the reference lets a client write that the sandbox does not model.
APP_SERVER_READ_ONLY = frozenset(
    {"ID", "baseStationCount", "deviceCount", "multicastGroupCount", "healthState"}
    | {"validationState", "scope", "href", "rfProbeCount"}
)
APP_SERVER_NOT_MODELLED = frozenset({"description", "notification", "tpxIotFlow"})


class _AppServerWritable(ResourceRequest):
    name: str | None = Field(default=None, min_length=1, max_length=128)
    contentType: ContentType | None = None
    destinations: list[HttpDestination] | list[KafkaDestination] | None = None
    customHttpHeaders: list[CustomHttpHeaderRequest] | None = Field(
        default=None, max_length=MAX_CUSTOM_HEADERS
    )
    downlinkSecurity: DownlinkSecurityRequest | None = None
    domains: list[Domain] | None = None
    flowMatcherTags: list[str] | None = None

    _domains = field_validator("domains")(check_one_domain_per_group)

    def _check_destinations(self, kind: AppServerType) -> None:
        dests = self.destinations or []
        kafka = [d for d in dests if isinstance(d, KafkaDestination)]
        http = [d for d in dests if isinstance(d, HttpDestination)]
        if kind == "KAFKA" and http:
            raise ValueError("destinations: a KAFKA server takes brokerID and topicName")
        if kind != "KAFKA" and kafka:
            raise ValueError(f"destinations: a {kind} server takes addresses and strategy")
        if kind in ("KAFKA", "HTTP_CELLULAR") and len(dests) > 1:
            raise ValueError(f"destinations: a {kind} server has at most one destination")
        if kind == "HTTP" and any(d.ports is None for d in http):
            raise ValueError("destinations: an HTTP destination needs its ports")
        if kind == "HTTP_CELLULAR" and any(d.ports is not None for d in http):
            raise ValueError("destinations: an HTTP_CELLULAR destination has no ports")


class AppServerCreate(_AppServerWritable):
    """POST /subscriptions/mine/appServers (201). The scope is always SUBSCRIPTION: it is not
    sent. type defaults to HTTP on the server."""

    read_only_fields = APP_SERVER_READ_ONLY | {"state", "occContext"}  # x-createForbidden
    not_modelled_fields = APP_SERVER_NOT_MODELLED

    name: str = Field(min_length=1, max_length=128)
    type: AppServerType | None = None

    @model_validator(mode="after")
    def _rules(self) -> AppServerCreate:
        self._check_destinations(self.type or "HTTP")
        return self


class AppServerUpdate(_AppServerWritable):
    """PUT /subscriptions/mine/appServers/{appServerUid}: only what is given changes. type
    cannot change; give it here only to check the destinations against it (not sent)."""

    read_only_fields = APP_SERVER_READ_ONLY
    not_modelled_fields = APP_SERVER_NOT_MODELLED | {"state"}

    occContext: OccVersion | None = None
    type: AppServerType | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _rules(self) -> AppServerUpdate:
        if self.type is not None:
            self._check_destinations(self.type)
        return self


class SecurityAppServerUpdate(RequestModel):
    """PUT /appServers/{appServerUid}/security."""

    downlinkSecurity: DownlinkSecurityRequest
    occContext: OccVersion | None = None

    @model_validator(mode="after")
    def _key_with_status(self) -> SecurityAppServerUpdate:
        sec = self.downlinkSecurity
        if sec.status == "DOWNLINK_AS_KEY" and not (sec.asID and sec.downlinkAsKey):
            raise ValueError("downlinkSecurity: DOWNLINK_AS_KEY needs asID and downlinkAsKey")
        return self


class AppServerFilter(QueryFilter):
    """Filters of the server list. scope is repeatable and combined by OR; when no scope is
    sent the platform lists SUBSCRIPTION servers only. type is repeatable (OR). name, ID and
    query are prefix filters."""

    scope: list[AppServerScope] = Field(default_factory=list)
    type: list[AppServerType] = Field(default_factory=list)
    query: str | None = None
    name: str | None = None
    ID: str | None = None


ALL_SCOPES = AppServerFilter(scope=["SUBSCRIPTION", "OPERATOR"])
