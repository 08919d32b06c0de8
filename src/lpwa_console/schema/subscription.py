"""The subscription (`/subscriptions/mine`, Document 1 §2.2)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field

from .common import ApiModel, RequestModel, ResourceRequest
from .domains import DomainRestrictions

Permission = Literal["x", "a", "ra", "rc", "s1"]
Toggle = Literal["DEACTIVATED", "ACTIVATED"]


class SubscriptionOptions(ApiModel):
    hsm: Toggle
    devAddrValidation: Literal["DEACTIVATED", "ADM-VC"] | None = Field(
        default=None, deprecated="feature removed"
    )
    devEUIValidation: Literal["DEACTIVATED", "ADM-VC"] | None = Field(
        default=None, deprecated="feature removed"
    )


class SubscriptionGrant(ApiModel):
    grantedPermissions: list[Permission] = Field(default_factory=list)
    domainRestrictions: DomainRestrictions | None = None
    # The caller's access rights (`LPWA_MGR::...`). Where a platform conveys them is not
    # shown (§5.6); the sandbox says them here so a console can tell before it is refused.
    rights: list[str] | None = None


class SubscriptionState(ApiModel):
    """`state` as the reference gives it; a plain value (what the sandbox gave before)
    reads as the value."""

    value: str
    timestamp: int | None = None


def _state_object(value: object) -> object:
    return {"value": value} if isinstance(value, str) else value


class Subscription(ApiModel):
    ID: str | None = None
    name: str | None = None
    options: SubscriptionOptions
    showTagSuggestionsWhenDomainRestrictions: bool = True
    subscription: SubscriptionGrant
    creationTimestamp: int | None = None
    state: Annotated[SubscriptionState | None, BeforeValidator(_state_object)] = None


class SubscriptionOptionsUpdate(RequestModel):
    read_only_fields = frozenset({"cellularSupport", "license", "externalJS"})

    hsm: Toggle | None = None
    # Accepted and ignored by the platform (feature removed); never sent by the console.
    devAddrValidation: Literal["DEACTIVATED", "ADM-VC"] | None = Field(
        default=None, deprecated="feature removed"
    )
    devEUIValidation: Literal["DEACTIVATED", "ADM-VC"] | None = Field(
        default=None, deprecated="feature removed"
    )


class SubscriptionUpdate(ResourceRequest):
    """PUT /subscriptions/mine. What GET answers and no request sets (the reference's readOnly
    properties, our ID, the caller's grant) is ignored; the reference's other writable
    properties are not modelled by the sandbox (docs/architecture.md)."""

    read_only_fields = frozenset(
        {"ID", "subscription", "creationTimestamp", "state", "subscriber", "operator"}
        | {"installationID", "networkSubscriptionsHandling", "nonRoamingDevicesNetID"}
        | {"roamingDevicesNetID", "segregationID", "twaExchangeKeyVersion"}
        | {"baseStationTagsNamespace"}
    )
    not_modelled_fields = frozenset(
        {"alarmStateNotifications", "defaultIsmBand", "defaultIsmBands", "nsID", "occContext"}
    )

    options: SubscriptionOptionsUpdate | None = None
    showTagSuggestionsWhenDomainRestrictions: bool | None = None
    name: str | None = None
