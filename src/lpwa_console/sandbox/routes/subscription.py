"""`GET|PUT /subscriptions/mine`."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema.subscription import Subscription, SubscriptionUpdate
from ..accounts import Account
from ..auth import AppServices, ClientBodies, SettingsWriter, SubscriptionReader
from ..errors import not_found
from ..network_ids import NET_ID
from ..store import subscription as store
from ..store.clock import now_ms
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/subscriptions/mine", tags=["subscription"], dependencies=[ClientBodies]
)


def _subscription(conn: sqlite3.Connection, account: Account) -> dict[str, Any]:
    assert account.subscription_id is not None
    row = store.get(conn, account.subscription_id)
    if row is None:
        raise not_found("subscription not found")
    return {
        "ID": row["ref"],
        "name": row["name"],
        # The reference's shape; the subscription is active since its creation.
        "state": {"value": "ACTIVE", "timestamp": row["creation_ts"]},
        "creationTimestamp": row["creation_ts"],
        # The options the reference requires besides hsm: the validations are a removed
        # feature (§2.2), cellular devices take HSS and SPR data (a creation gives `ki`), no
        # license option.
        "options": {
            "hsm": row["hsm"],
            "devAddrValidation": "DEACTIVATED",
            "devEUIValidation": "DEACTIVATED",
            "cellularSupport": "HSS_SPR",
            "license": "DEACTIVATED",
        },
        # Devices and groups name their network subscription by ID.
        "networkSubscriptionsHandling": {"mode": "ADVANCED"},
        "subscriber": {"ID": row["ref"], "name": row["name"]},
        "operator": {"nonRoamingDevicesNetID": NET_ID, "roamingDevicesNetID": NET_ID},
        "occContext": {
            "version": row["version"],
            "lastUpdate": row["last_update"] or row["creation_ts"],
            "who": row["who"] or row["name"],
        },
        "showTagSuggestionsWhenDomainRestrictions": bool(row["show_tag_suggestions"]),
        "subscription": {
            "grantedPermissions": list(account.permissions),
            "rights": list(account.rights),
            "domainRestrictions": account.restrictions.model_dump(by_alias=True)
            if account.restrictions
            else None,
        },
    }


@router.get("", response_model=Subscription, response_model_exclude_none=True)
def get_subscription(account: SubscriptionReader, svc: AppServices) -> dict[str, Any]:
    return _subscription(svc.db.conn(), account)


@router.put("", response_model=Subscription, response_model_exclude_none=True)
def update_subscription(
    body: SubscriptionUpdate, account: SettingsWriter, svc: AppServices
) -> dict[str, Any]:
    assert account.subscription_id is not None
    values: dict[str, Any] = {}
    if body.options is not None and body.options.hsm is not None:
        values["hsm"] = body.options.hsm
    if body.showTagSuggestionsWhenDomainRestrictions is not None:
        values["show_tag_suggestions"] = int(body.showTagSuggestionsWhenDomainRestrictions)
    if body.name:
        values["name"] = body.name
    with svc.db.write() as conn:
        store.update(conn, account.subscription_id, values, now=now_ms(), who=account.name)
    return _subscription(svc.db.conn(), account)
