"""`GET|PUT /subscriptions/mine`."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema.subscription import Subscription, SubscriptionUpdate
from ..accounts import Account
from ..auth import AppServices, ClientBodies, SettingsWriter, SubscriptionReader
from ..errors import not_found
from ..store import subscription as store
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
        "state": "ACTIVE",
        "creationTimestamp": row["creation_ts"],
        "options": {"hsm": row["hsm"]},
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
        store.update(conn, account.subscription_id, values)
    return _subscription(svc.db.conn(), account)
