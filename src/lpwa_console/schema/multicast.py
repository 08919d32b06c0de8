"""Multicast groups (`/subscriptions/mine/multicastGroups`, Document 1 §2.4 and §4.2).

A group is addressed like a device: its UID or `e` + its EUI in upper case.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from .common import ApiModel, ListEnvelope, QueryFilter, ResourceRequest, is_hex
from .devices import DailyHistory, IdRef
from .domains import Domain, check_one_domain_per_group
from .keys import check_app_keys, check_app_skey, deprecated_app_keys, effective_app_skey, hex_key

MulticastClass = Literal["B", "C"]


# --- responses -------------------------------------------------------------------------------


class AppServerLink(ApiModel):
    """An application server a group (or device) is associated with."""

    ID: str
    name: str | None = None
    href: str | None = None


class BsTag(ApiModel):
    """A base station tag; `namespace` tells who defined it."""

    name: str
    namespace: Literal["OPERATOR", "SUBSCRIBER"] | None = None
    href: str | None = None


class BsTags(ApiModel):
    tags: list[BsTag] = Field(default_factory=list)


class BsTagSuggestions(ApiModel):
    """GET /multicastGroups/bss/tags/suggestions and /managedCustomerNetwork/bss/tags/suggestions.

    Same envelope as TagSuggestions (`briefs` of `{name}`, `query`), items may carry
    `namespace`. Empty for a user with domain restrictions when the subscription's
    showTagSuggestionsWhenDomainRestrictions is false."""

    briefs: list[BsTag] = Field(default_factory=list)
    query: str = ""


class SupplierRef(ApiModel):
    ID: str
    commercialName: str | None = None


class MulticastNetworkSubscription(ApiModel):
    ID: str | None = None
    commercialName: str | None = None
    href: str | None = None
    multicastMaxLrrCells: int | None = None
    supplier: SupplierRef | None = None


class _MulticastGroupFields(ApiModel):
    """What a listed and a single multicast group share."""

    EUI: str
    name: str
    nwAddress: str | None = None
    href: str | None = None
    creationDate: int = 0
    alarmLevel: int = 0
    alarmCount: int = 0
    appServers: list[AppServerLink] = Field(default_factory=list)
    domains: list[Domain] = Field(default_factory=list)
    bss: BsTags | None = None
    historyDwDaily: DailyHistory | None = None
    lastDwTimestamp: int | None = None
    networkSubscription: MulticastNetworkSubscription | None = None

    @property
    def path_ref(self) -> str:
        """How to address this group in a path: `e` + EUI."""
        return "e" + self.EUI.upper()


class MulticastGroupBrief(_MulticastGroupFields):
    """A multicast group as listed: alarm1..alarm6 count un-acknowledged alarms by severity
    (1 CLEARED .. 6 CRITICAL) and are required in list items (§2.4)."""

    alarm1: int
    alarm2: int
    alarm3: int
    alarm4: int
    alarm5: int
    alarm6: int

    @property
    def alarm_counts(self) -> tuple[int, int, int, int, int, int]:
        return (self.alarm1, self.alarm2, self.alarm3, self.alarm4, self.alarm5, self.alarm6)


class OccContext(ApiModel):
    """Optimistic concurrency: send `version` back on update."""

    version: int = 0
    lastUpdate: int | None = None
    who: str | None = None


class MulticastGroup(_MulticastGroupFields):
    """A single multicast group (GET one, and the answers of create and update). §2.4
    requires alarm1..alarm6 in list items only: here they may be absent (None)."""

    alarm1: int | None = None
    alarm2: int | None = None
    alarm3: int | None = None
    alarm4: int | None = None
    alarm5: int | None = None
    alarm6: int | None = None
    class_: MulticastClass | None = Field(default=None, alias="class")
    customerAdminData: str | None = None
    downlinkDataRate: int | None = None
    downlinkFrequency: float | None = None
    pingSlotPeriod: int | None = None
    firstDwTimestamp: int | None = None
    lastFCntDn: int | None = None
    now: int | None = None
    occContext: OccContext | None = None

    @property
    def alarm_counts(self) -> tuple[int, int, int, int, int, int] | None:
        """The six counters, or None when the answer did not carry them all."""
        a1, a2, a3, a4, a5, a6 = (
            self.alarm1, self.alarm2, self.alarm3, self.alarm4, self.alarm5, self.alarm6
        )  # fmt: skip
        if a1 is None or a2 is None or a3 is None or a4 is None or a5 is None or a6 is None:
            return None
        return (a1, a2, a3, a4, a5, a6)


class MulticastGroupPage(ListEnvelope[MulticastGroupBrief]):
    now: int | None = None


# --- requests --------------------------------------------------------------------------------


# What a group answer carries that no request sets (the reference's readOnly properties and
# our own answers'), and what the reference lets a client write that the sandbox does not model.
MULTICAST_READ_ONLY = frozenset(
    {"alarm1", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6", "creationDate", "now"}
    | {"firstDwTimestamp", "historyDwDaily", "lastDwTimestamp", "lastFCntDn"}
    | {"href", "alarmLevel", "alarmCount"}  # ours
)
MULTICAST_NOT_MODELLED = frozenset({"networkSubscription", "nwkSEncKey", "sNwkSIntKey"})


class _MulticastWritable(ResourceRequest):
    name: str | None = Field(default=None, max_length=128)
    appSKey: str | None = None
    appKeys: str | None = Field(default=None, deprecated="use appSKey")
    verificationCode: str | None = Field(default=None, deprecated="feature removed")
    appServers: list[IdRef] | None = None
    domains: list[Domain] | None = None
    customerAdminData: str | None = Field(default=None, max_length=1024)
    downlinkDataRate: int | None = Field(default=None, ge=0, le=15)
    downlinkFrequency: float | None = Field(default=None, ge=433, le=928)
    pingSlotPeriod: int | None = Field(default=None, ge=1, le=128)

    _domains = field_validator("domains")(check_one_domain_per_group)

    _app_skey = field_validator("appSKey")(check_app_skey)
    _app_keys = field_validator("appKeys")(check_app_keys)

    @model_validator(mode="after")
    def _one_key_form(self) -> _MulticastWritable:
        if self.appSKey is not None and deprecated_app_keys(self) is not None:
            raise ValueError("give appSKey or the deprecated appKeys, not both")
        return self

    def effective_app_skey(self) -> str | None:
        """appSKey, or the one in the deprecated XML document."""
        return effective_app_skey(self)


class MulticastGroupCreate(_MulticastWritable):
    """POST /subscriptions/mine/multicastGroups (201). Needs its EUI, its DevAddr
    (`nwAddress`) and its AppSKey (`appSKey`, or the deprecated `appKeys` XML)."""

    read_only_fields = MULTICAST_READ_ONLY | {"occContext"}  # x-createForbidden
    not_modelled_fields = MULTICAST_NOT_MODELLED | {"bss"}
    # Required by `_rules` (appSKey, or the deprecated appKeys): forms mark it (models/forms).
    required_by_rule: ClassVar[frozenset[str]] = frozenset({"appSKey"})

    EUI: str
    nwAddress: str
    class_: MulticastClass | None = Field(default=None, alias="class")
    nwKey: str | None = None

    @field_validator("EUI")
    @classmethod
    def _eui(cls, value: str) -> str:
        if not is_hex(value.strip(), 16):
            raise ValueError("a multicast group EUI has 16 hexadecimal digits")
        return value.strip().upper()

    @field_validator("nwAddress")
    @classmethod
    def _devaddr(cls, value: str) -> str:
        key = hex_key(value, digits=8, what="DevAddr")
        assert key is not None
        return key

    @field_validator("nwKey")
    @classmethod
    def _nw_key(cls, value: str | None) -> str | None:
        return hex_key(value, digits=32, what="NwkSKey")

    @model_validator(mode="after")
    def _rules(self) -> MulticastGroupCreate:
        if not self.name:
            # Creation without a name: the EUI stands for it.
            self.name = self.EUI
        if self.effective_app_skey() is None:
            raise ValueError("a multicast group needs its AppSKey (appSKey)")
        return self


class MulticastGroupUpdate(_MulticastWritable):
    """PUT /subscriptions/mine/multicastGroups/{multicastGroupUid}: only the fields given
    change. EUI and DevAddr cannot change (x-updateForbidden): sent with their current value
    they are accepted (`fixed_values`), a different value is refused; base stations are
    ignored."""

    read_only_fields = MULTICAST_READ_ONLY | {"bss"}
    fixed_fields = frozenset({"EUI", "nwAddress"})
    not_modelled_fields = MULTICAST_NOT_MODELLED | {"class", "nwKey", "occContext"}


# networkSubscriptionID filter keywords: groups without a network subscription, with any.
UNSET_NETWORK_SUBSCRIPTION = "_unset"
ANY_NETWORK_SUBSCRIPTION = "_any"


class MulticastGroupFilter(QueryFilter):
    """Filters of the group list. appServerID is repeatable and a group must be associated
    with all of them; bsTag and domain are repeatable too. devEUI, name and query are prefix
    filters as in the device list. networkSubscriptionID: the groups of that network
    subscription (exact), or UNSET_NETWORK_SUBSCRIPTION (`_unset`: without one) or
    ANY_NETWORK_SUBSCRIPTION (`_any`: with one, whichever)."""

    query: str | None = None
    name: str | None = None
    devEUI: str | None = None
    devAddr: str | None = None
    networkSubscriptionID: str | None = None
    alarmLevel: int | None = Field(default=None, ge=1, le=6)
    appServerID: list[str] = Field(default_factory=list)
    bsTag: list[str] = Field(default_factory=list)
    domain: list[str] = Field(default_factory=list)


MULTICAST_SORT_CRITERIA = ("name", "EUI", "creationDate", "lastDwTimestamp", "alarmLevel")
