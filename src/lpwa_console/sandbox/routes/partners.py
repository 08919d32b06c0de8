"""The network partner: `/partners/{partnerUid}` (Document 2 §2.4, §4.3).

The answer carries the caller's own grantedPermissions and domainRestrictions (§5.2). A
partner changes its settings with `a` (a subscriber partner: `ra`, as the reference says),
and only from an account without domain restrictions: one of the settings exists to limit
what restricted accounts see.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter

from ...schema.partners import PARTNER_PERMISSIONS, Partner, PartnerUpdate
from ..auth import AppServices, ClientBodies
from ..errors import forbidden
from ..store import partners as store
from ._partners import PartnerReader, PartnerScope, is_operator

router = APIRouter(prefix="/partners", tags=["partners"], dependencies=[ClientBodies])


def partner_answer(conn: sqlite3.Connection, scope: PartnerScope) -> dict[str, Any]:
    out = store.answer(conn, scope.uid)
    account = scope.account
    permissions = (
        list(PARTNER_PERMISSIONS)
        if is_operator(account)
        else [p for p in account.permissions if p in PARTNER_PERMISSIONS]
    )
    out["partner"] |= {"grantedPermissions": permissions}
    if scope.restrictions is not None and scope.restricted:
        out["partner"]["domainRestrictions"] = scope.restrictions.model_dump(by_alias=True)
    return out


@router.get("/{partnerUid}", response_model=Partner, response_model_exclude_none=True)
def get_partner(scope: PartnerReader, svc: AppServices) -> dict[str, Any]:
    return partner_answer(svc.db.conn(), scope)


@router.put("/{partnerUid}", response_model=Partner, response_model_exclude_none=True)
def update_partner(
    body: PartnerUpdate, scope: PartnerReader, svc: AppServices, force: bool | None = None
) -> dict[str, Any]:
    """`force` is deprecated and ignored."""
    conn = svc.db.conn()
    row = store.get(conn, scope.uid)
    assert row is not None
    needed = "ra" if row["type"] == "SUBSCRIBER" else "a"
    if not scope.can(needed):
        raise forbidden(f"changing the partner needs the partner permission '{needed}'")
    if scope.restricted:
        raise forbidden(
            "partner settings can be changed only by an account without domain restrictions"
        )
    values: dict[str, Any] = {}
    given = body.model_fields_set
    if "showTagSuggestionsWhenDomainRestrictions" in given:
        values["show_tag_suggestions"] = int(bool(body.showTagSuggestionsWhenDomainRestrictions))
    if "alarmStateNotifications" in given:
        values["alarm_state_notifications"] = body.alarmStateNotifications
    with svc.db.write() as write:
        store.update(write, scope.uid, values)
    return partner_answer(svc.db.conn(), scope)
