"""Network resources of a subscription (Document 1 §2.6, §4.3): cellular network contexts,
AS transport keys, HSM groups, network subscriptions and the public exchange key.

Fields of network contexts, AS transport keys (beyond ID and name) and HSM groups are not
given by the specification; the ones here are our choice (documented per class).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from .common import ApiModel, ListEnvelope, RequestModel
from .devices import Connectivity
from .multicast import SupplierRef

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}$"
_APN = re.compile(
    r"[A-Za-z0-9]([A-Za-z0-9\-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9\-]*[A-Za-z0-9])?)*"
)


def check_apn(value: str | None) -> str | None:
    """An APN: dot-separated labels of letters, digits and inner hyphens, at most 100."""
    if value is None:
        return None
    value = value.strip()
    if len(value) > 100 or not _APN.fullmatch(value):
        raise ValueError("an APN is dot-separated labels of letters, digits and hyphens")
    return value


def check_plmn(value: str | None) -> str | None:
    """A PLMN ID: MCC (3 digits) + MNC (2 or 3 digits)."""
    if value is None:
        return None
    value = value.strip()
    if not (value.isdigit() and len(value) in (5, 6)):
        raise ValueError("a PLMN ID has 5 or 6 digits (MCC + MNC)")
    return value


# --- cellular network contexts -----------------------------------------------------------------


class CellularNetworkContext(ApiModel):
    """`/subscriptions/mine/cellularNetworkContexts/{networkContextID}`.

    Our choice of fields: ID, name, apn (access point name), plmnID (home network), ipVersion
    and description."""

    ID: str
    name: str
    href: str | None = None
    apn: str | None = None
    plmnID: str | None = None
    ipVersion: Literal["IPV4", "IPV6", "IPV4V6"] | None = None
    description: str | None = None


class CellularNetworkContextPage(ListEnvelope[CellularNetworkContext]):
    pass


class _NetworkContextWritable(RequestModel):
    apn: str | None = None
    plmnID: str | None = None
    ipVersion: Literal["IPV4", "IPV6", "IPV4V6"] | None = None
    description: str | None = Field(default=None, max_length=1024)

    @field_validator("apn")
    @classmethod
    def _apn(cls, value: str | None) -> str | None:
        return check_apn(value)

    @field_validator("plmnID")
    @classmethod
    def _plmn(cls, value: str | None) -> str | None:
        return check_plmn(value)


class CellularNetworkContextCreate(_NetworkContextWritable):
    """POST /subscriptions/mine/cellularNetworkContexts (201)."""

    ID: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1, max_length=128)


class CellularNetworkContextUpdate(_NetworkContextWritable):
    """PUT .../cellularNetworkContexts/{networkContextID}: the ID cannot change."""

    name: str | None = Field(default=None, min_length=1, max_length=128)


# --- AS transport keys ---------------------------------------------------------------------------


class AsTransportKey(ApiModel):
    """`/subscriptions/mine/asTransportKeys/{asTransportKeyID}`: ID and name."""

    ID: str
    name: str
    href: str | None = None


class AsTransportKeyPage(ListEnvelope[AsTransportKey]):
    pass


class AsTransportKeyCreate(RequestModel):
    ID: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1, max_length=128)


class AsTransportKeyUpdate(RequestModel):
    name: str | None = Field(default=None, min_length=1, max_length=128)


# --- HSM groups ----------------------------------------------------------------------------------


class HsmGroup(ApiModel):
    """GET /subscriptions/mine/hsmGroups items. Our choice: ID, name, hsmExchangeKeyVersion
    (the RSA exchange key version of the group's HSM), href."""

    ID: str
    name: str | None = None
    hsmExchangeKeyVersion: int | None = None
    href: str | None = None


class HsmGroupPage(ListEnvelope[HsmGroup]):
    pass


# --- network subscriptions -----------------------------------------------------------------------


class NetworkSubscriptionBrief(ApiModel):
    """A network subscription (list item). The routing booleans say which connections are
    allowed: platformCloudRouting (cloud platform), platformKafkaRouting (basic Kafka),
    thirdPartyAppServersRouting (basic HTTPS)."""

    ID: str
    name: str | None = None
    commercialName: str | None = None
    href: str | None = None
    connectivity: Connectivity | None = None
    communicationType: Literal["UNICAST", "MULTICAST"] | None = None
    hsmGroupID: str | None = None
    platformCloudRouting: bool = False
    platformKafkaRouting: bool = False
    thirdPartyAppServersRouting: bool = False
    supplier: SupplierRef | None = None
    granted: int | None = None
    used: int | None = None
    maxDestinationPerRoute: int | None = None
    nwGeolocalization: bool | None = None
    prAllowed: bool | None = None

    @property
    def label(self) -> str:
        return self.name or self.commercialName or self.ID


class NetworkSubscription(NetworkSubscriptionBrief):
    """GET /networkSubscriptions/{networkSubscriptionUid}: LoRaWAN and cellular details
    beyond these are kept as extra fields."""

    commercialDescription: str | None = None
    uplinkRate: float | None = None
    uplinkRateUnit: Literal["HOUR", "DAY", "WEEK"] | None = None
    downlinkRate: float | None = None
    downlinkRateUnit: Literal["HOUR", "DAY", "WEEK"] | None = None
    downlinkTransmission: bool | None = None


class NetworkSubscriptionPage(ListEnvelope[NetworkSubscriptionBrief]):
    pass


class NetworkSubscriptionFilter(RequestModel):
    """Filters of the list: connectivity and communicationType exact; connectivitySupplier
    and networkSubscriptionID exact."""

    connectivity: Connectivity | None = None
    communicationType: Literal["UNICAST", "MULTICAST"] | None = None
    connectivitySupplier: str | None = None
    networkSubscriptionID: str | None = None

    def to_params(self) -> list[tuple[str, str]]:
        return [(k, str(v)) for k, v in self.model_dump(exclude_none=True).items() if v != ""]


# --- public exchange key -------------------------------------------------------------------------


class PublicRsaJsonWebKey(ApiModel):
    """GET /subscriptions/mine/publicExchangeKey (filter hsmGroupID, exact match): the RSA
    public key to encrypt keys of an import file, as a JSON Web Key."""

    kid: str
    kty: Literal["RSA"] = "RSA"
    n: str
    e: str
