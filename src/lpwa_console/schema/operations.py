"""The operator's operations (Document 2 §2.2, §4.1, under `/admins/operators/{operatorUid}`):
HSM groups, the provisioning queue (`provqueues`), the command queue (`cmdqueues`), the SIM
cards and the operator's device list.

Document 2 names a few fields of these items and leaves the rest "not shown"; the reference
files carry none of them. Our shapes, written down here and in docs/architecture.md:
- a provisioning queue item is one request the platform sends to a subsystem (`subSystem`:
  LRC for LoRaWAN devices, base stations and profiles; HSS_SPR and PGW for cellular devices)
  about one thing (`type`, `action`, `entityID`); `state` PENDING until the subsystem has
  taken it, then DONE;
- a command queue item is one base station administration command, as the station's
  `lastCmdType`/`lastCmdStatus` word it (PENDING, PROCESSING, COMPLETED, ERR_...);
- a SIM card is the IMSI (and ICCID) of a cellular device;
- an operator device item carries the §2.2 fields.
Lists page by `pageIndex`/`pageSize` with `count` on the first page; the queues sort by
`creationTimestamp` (newest first by default).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from .common import ApiModel, ListEnvelope, QueryFilter, ResourceRequest

PROV_TYPES = (
    "DEVICE", "BASE_STATION", "ROUTING_PROFILE", "SERVICE_PROFILE", "DEVICE_PROFILE",
    "HSM_GROUP", "BASE_STATION_GROUP", "FLEET", "NETWORK_CONTEXT", "ENFORCEMENT_PROFILE",
    "MICROFLOW_PROFILE", "RF_REGION",
)  # fmt: skip
SUB_SYSTEMS = ("LRC", "SPR", "HSS_SPR", "PGW")
# Devices and base stations are activated and deactivated; profile-like things created and
# deleted. All are updated.
PROV_ACTIONS = ("CREATION", "UPDATE", "DELETION", "ACTIVATION", "DEACTIVATION")
ACTIVATED_TYPES = frozenset({"DEVICE", "BASE_STATION"})
PROV_STATES = ("PENDING", "DONE")
QUEUE_SORT_CRITERIA = ("creationTimestamp",)

ProvType = Literal[
    "DEVICE", "BASE_STATION", "ROUTING_PROFILE", "SERVICE_PROFILE", "DEVICE_PROFILE",
    "HSM_GROUP", "BASE_STATION_GROUP", "FLEET", "NETWORK_CONTEXT", "ENFORCEMENT_PROFILE",
    "MICROFLOW_PROFILE", "RF_REGION",
]  # fmt: skip
SubSystem = Literal["LRC", "SPR", "HSS_SPR", "PGW"]


def prov_action_allowed(type_: str, action: str) -> bool:
    """Whether this action exists for this type (§2.2: creation/deletion for profile-like
    types, activation/deactivation for devices and base stations, update for all)."""
    if action == "UPDATE":
        return True
    if type_ in ACTIVATED_TYPES:
        return action in ("ACTIVATION", "DEACTIVATION")
    return action in ("CREATION", "DELETION")


# --- provisioning queue ---------------------------------------------------------------------


class ProvisioningQueueItem(ApiModel):
    """GET /admins/operators/{op}/provqueues items and /provqueues/{eventUid}."""

    UID: str
    type: str
    action: str
    subSystem: str
    state: str = "PENDING"
    creationTimestamp: int = 0
    lastUpdateTimestamp: int | None = None
    entityID: str | None = None  # DevEUI or IMEI, lrrID, profile or HSM group ID
    entityUID: str | None = None
    subscriberID: str | None = None
    partnerID: str | None = None
    href: str | None = None


class ProvisioningQueuePage(ListEnvelope[ProvisioningQueueItem]):
    """GET /admins/operators/{op}/provqueues."""


class ProvisioningQueueFilter(QueryFilter):
    """`subSystem` (§4.1) and, ours, `type`."""

    subSystem: SubSystem | None = None
    type: ProvType | None = None


# --- command queue --------------------------------------------------------------------------


class CommandQueueItem(ApiModel):
    """GET /admins/operators/{op}/cmdqueues items and /cmdqueues/{eventUid}: one base
    station administration command. `type` is the station's lastCmdType (REBOOT, UPGRADE,
    CHANGE_SUPPORT_PASSWORD, ...), `state` its lastCmdStatus."""

    UID: str
    type: str
    command: str | None = None  # the API operation that queued it (reboot, upgrade, ...)
    state: str = "PENDING"
    creationTimestamp: int = 0
    startTimestamp: int | None = None
    endTimestamp: int | None = None
    lrrID: str | None = None
    baseStationUID: str | None = None
    partnerID: str | None = None
    data: str | None = None
    completionData: str | None = None
    who: str | None = None
    href: str | None = None


class CommandQueuePage(ListEnvelope[CommandQueueItem]):
    """GET /admins/operators/{op}/cmdqueues."""


class CommandQueueFilter(QueryFilter):
    """Ours (§4.1 names none): the command type, the state, one station."""

    type: str | None = Field(default=None, max_length=64, pattern=r"^[A-Z0-9_]+$")
    state: str | None = Field(default=None, max_length=64, pattern=r"^[A-Z0-9_]+$")
    lrrID: str | None = Field(default=None, max_length=8, pattern=r"^[0-9A-Fa-f]{1,8}$")


# --- SIM cards and devices ------------------------------------------------------------------


class SimCard(ApiModel):
    """GET /admins/operators/{op}/sims items: a cellular device's SIM card."""

    IMSI: str
    ICCID: str | None = None
    IMEI: str | None = None
    deviceUID: str | None = None
    deviceName: str | None = None
    subscriberID: str | None = None
    creationTimestamp: int | None = None


class SimCardPage(ListEnvelope[SimCard]):
    """GET /admins/operators/{op}/sims."""


class SimCardFilter(QueryFilter):
    """Ours: an IMSI prefix."""

    imsi: str | None = Field(default=None, max_length=15, pattern=r"^[0-9]{1,15}$")


class OperatorDevice(ApiModel):
    """GET /admins/operators/{op}/devices items (§2.2): `imei` is the first 14 digits of a
    cellular device's IMEI; `devAddr` a LoRaWAN DevAddr or a cellular IP address."""

    UID: str
    devEUI: str | None = None
    imei: str | None = None
    connectivity: str = "LORAWAN"
    devAddr: str | None = None
    name: str | None = None
    subscriberID: str | None = None
    lorawanDebug: bool = False
    lorawanDebugSince: str | None = None


class OperatorDevicePage(ListEnvelope[OperatorDevice]):
    """GET /admins/operators/{op}/devices."""


_IMEI = re.compile(r"[0-9]{14,15}")


class OperatorDeviceFilter(QueryFilter):
    """`imei` (exact: 14 or 15 digits, compared on the first 14, §2.2), `lorawanDebug`
    (only devices in LoRaWAN debugging) and, ours, `devEUI` (exact)."""

    imei: str | None = None
    lorawanDebug: bool | None = None
    devEUI: str | None = Field(default=None, pattern=r"^[0-9A-Fa-f]{16}$")

    @field_validator("imei")
    @classmethod
    def _imei(cls, value: str | None) -> str | None:
        if value is not None and value != "" and not _IMEI.fullmatch(value):
            raise ValueError("an IMEI is 14 or 15 digits")
        return value or None

    def to_params(self) -> list[tuple[str, str]]:
        params = super().to_params()
        return [(k, v.lower() if k == "lorawanDebug" else v) for k, v in params]


# --- HSM groups (operator view) -----------------------------------------------------------


class OperatorHsmGroup(ApiModel):
    """GET /admins/operators/{op}/hsmGroups items and /hsmGroups/{hsmGroupUid}: an HSM group
    with the subscription it serves and the versions of its current AES keys."""

    UID: str
    ID: str
    name: str | None = None
    subscriberID: str | None = None
    hsmNwkKeyVersion: str | None = None
    hsmAppKeyVersion: str | None = None
    hsmExchangeKeyVersion: str | None = None
    href: str | None = None


class OperatorHsmGroupPage(ListEnvelope[OperatorHsmGroup]):
    """GET /admins/operators/{op}/hsmGroups."""


HSM_GROUP_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$"
KEY_VERSION = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
_HSM_READ_ONLY = frozenset(
    {"UID", "href", "hsmAppKeyVersion", "hsmExchangeKeyVersion", "subscriberID"}
)


class OperatorHsmGroupCreate(ResourceRequest):
    """POST /admins/operators/{op}/hsmGroups: a group for a subscription. Its first AES keys
    (and its RSA exchange key) are made by the HSM; `hsmNwkKeyVersion` names the first
    network key's version (default `<ID>-nwk-v1`)."""

    read_only_fields = _HSM_READ_ONLY - {"subscriberID"}

    ID: str = Field(pattern=HSM_GROUP_ID)
    name: str = Field(min_length=1, max_length=128)
    subscriberID: str = Field(min_length=1, max_length=64)
    hsmNwkKeyVersion: str | None = Field(default=None, pattern=KEY_VERSION)


class OperatorHsmGroupUpdate(ResourceRequest):
    """PUT /admins/operators/{op}/hsmGroups/{hsmGroupUid}: the name, and `hsmNwkKeyVersion`:
    a version the group holds becomes current again; a new one makes the HSM generate a new
    network key under it (a rotation)."""

    read_only_fields = _HSM_READ_ONLY
    fixed_fields = frozenset({"ID"})

    name: str | None = Field(default=None, min_length=1, max_length=128)
    hsmNwkKeyVersion: str | None = Field(default=None, pattern=KEY_VERSION)
