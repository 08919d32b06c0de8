"""Network partners (`/partners/mine`, `/partners/{partnerUid}`, Document 2 §2.4) and the
operator's view of them (`/admins/operators/{operatorUid}/partners`, §4.1).

A partner is a subscriber (`id:sub:` + its subscriber ID: a subscription that also runs
base stations) or a supplier (`id:sup:` + its ID). `totalBaseStationsUsed` counts the
stations it created; `totalBaseStationsGranted` (absent: no limit) caps them. The answer
carries the caller's own `grantedPermissions` and `domainRestrictions` (§5.2).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .common import ApiModel, ListEnvelope, RequestModel, ResourceRequest
from .domains import DomainRestrictions

PartnerType = Literal["SUPPLIER", "SUBSCRIBER"]
PARTNER_PERMISSIONS = ("x", "a", "ra", "rc", "s1")


class PartnerIdentity(ApiModel):
    ID: str
    name: str | None = None
    grantedPermissions: list[str] = Field(default_factory=list)
    domainRestrictions: DomainRestrictions | None = None


class PartnerState(ApiModel):
    value: str = "ACTIVE"
    timestamp: int = 0


class Partner(ApiModel):
    """GET /partners/mine (and the operator's view of one partner)."""

    partner: PartnerIdentity
    type: PartnerType = "SUBSCRIBER"
    href: str | None = None
    totalBaseStationsUsed: int = 0
    totalBaseStationsGranted: int | None = None
    showTagSuggestionsWhenDomainRestrictions: bool = True
    creationTimestamp: int = 0
    state: PartnerState | None = None
    alarmStateNotifications: str | None = None
    defaultIsmBands: list[Any] | None = None

    @property
    def ID(self) -> str:
        return self.partner.ID

    @property
    def name(self) -> str:
        return self.partner.name or self.partner.ID

    @property
    def permissions(self) -> frozenset[str]:
        return frozenset(self.partner.grantedPermissions)

    @property
    def stations_left(self) -> int | None:
        """How many more stations may be created (None: no limit)."""
        if self.totalBaseStationsGranted is None:
            return None
        return max(0, self.totalBaseStationsGranted - self.totalBaseStationsUsed)


class PartnerPage(ListEnvelope[Partner]):
    """The operator's list of partners."""


PARTNER_READ_ONLY = frozenset(
    {"totalBaseStationsUsed", "totalBaseStationsGranted", "creationTimestamp", "state"}
    | {"type", "supplier", "operator", "options", "installationID", "segregationID"}
    | {"baseStationsNetID", "defaultBsSecurity", "keyInstallerPubkeyAuthentication"}
    | {"allowedAdministration", "allowedBsTagging", "baseStationTagsNamespace"}
    | {"delegateAdministration", "delegateBsTagging", "delegateBsValidation", "href"}
    | {"partner"}
)


class PartnerRef(RequestModel):
    """The partner's identity as the reference's PUT takes it back: {ID, name}; what our
    answer adds (the caller's permissions and restrictions) is read-only."""

    read_only_fields = frozenset({"grantedPermissions", "domainRestrictions"})

    ID: str | None = None
    name: str | None = None


class PartnerUpdate(ResourceRequest):
    """PUT /partners/mine: what a partner sets for itself. occContext is deprecated and
    ignored (§2.4)."""

    read_only_fields = PARTNER_READ_ONLY - {"partner"}
    not_modelled_fields = frozenset({"occContext", "defaultIsmBand", "defaultIsmBands"})

    showTagSuggestionsWhenDomainRestrictions: bool | None = None
    alarmStateNotifications: str | None = Field(default=None, max_length=64)
    # Required in the reference's PUT body: the partner as read (the sandbox ignores it).
    partner: PartnerRef | None = None


class PartnerCreate(RequestModel):
    """POST /admins/operators/{operatorUid}/partners: a new partner (operator only)."""

    type: PartnerType = "SUPPLIER"
    ID: str = Field(min_length=1, max_length=64, pattern=r"^[^\s:/]+$")
    name: str = Field(min_length=1, max_length=128)
    totalBaseStationsGranted: int | None = Field(default=None, ge=0, le=10_000_000)


DELEGATION_FLAGS = frozenset(
    {"delegateAdministration", "delegateBsTagging", "delegateBsValidation"}
)


class OperatorPartnerUpdate(RequestModel):
    """PUT /admins/operators/{operatorUid}/partners/{networkPartnerUid} (deprecated by the
    reference for its delegation flags): the operator changes the grant and the name."""

    read_only_fields = PARTNER_READ_ONLY - {"totalBaseStationsGranted"} - DELEGATION_FLAGS | {
        "showTagSuggestionsWhenDomainRestrictions",
        "alarmStateNotifications",
        "occContext",
        "defaultIsmBands",
    }

    name: str | None = Field(default=None, min_length=1, max_length=128)
    totalBaseStationsGranted: int | None = Field(default=None, ge=0, le=10_000_000)
    # What this PUT was for (§4.1, deprecated): the delegation flags, always 1 (§2.2). 1 is
    # accepted and changes nothing; another value is refused.
    delegateAdministration: Literal[1] | None = Field(default=None, deprecated="always 1")
    delegateBsTagging: Literal[1] | None = Field(default=None, deprecated="always 1")
    delegateBsValidation: Literal[1] | None = Field(default=None, deprecated="always 1")


class StationCreditTransaction(ApiModel):
    """One station credit movement: a station created (-1) or a grant changed."""

    ID: int
    timestamp: int
    type: str
    amount: int
    balance: int | None = None
    lrrID: str | None = None
    who: str | None = None


class StationCreditTransactions(ListEnvelope[StationCreditTransaction]):
    """GET /admins/operators/{op}/partners/{networkPartnerUid}/stationCreditTransactions."""
