"""The network partner: `/partners/{partnerUid}` (Document 2 §2.4, §4.3).

The answer carries the caller's own grantedPermissions and domainRestrictions (§5.2). A
partner changes its settings with `a` (a subscriber partner: `ra`, as the reference says),
and only from an account without domain restrictions: one of the settings exists to limit
what restricted accounts see.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any

from fastapi import Query

from ...schema.partners import PARTNER_PERMISSIONS, Partner, PartnerUpdate
from ...schema.stations import StationModelPage
from ..auth import AppServices, ClientBodies
from ..errors import forbidden
from ..store import catalogs as catalog_store
from ..store import partners as store
from ..store.clock import now_ms
from ._common import PageParams, list_answer
from ._partners import PartnerReader, PartnerScope, is_operator
from ._router import RecordedRouter

router = RecordedRouter(prefix="/partners", tags=["partners"], dependencies=[ClientBodies])
# What a partner reads of a base station model (the operator's catalog keeps more).
MODEL_FIELDS = ("ID", "commercialName", "vendor", "rfHardwareConfig", "softwareType")


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
        store.update(write, scope.uid, values, now=now_ms(), who=scope.account.name)
    return partner_answer(svc.db.conn(), scope)


@router.get(
    "/{partnerUid}/bsProfiles", response_model=StationModelPage, response_model_exclude_none=True
)
def list_station_models(
    scope: PartnerReader,
    svc: AppServices,
    paging: PageParams,
    vendorID: str | None = None,
    language_tag: Annotated[str | None, Query(alias="language-tag")] = None,
) -> dict[str, Any]:
    """The base station models the partner may create stations of: the operator's catalog
    (its custom models too), by ID, named in the language asked when the catalog has it."""
    del scope  # the partner's permission x is all it takes
    conn = svc.db.conn()
    lang, default = catalog_store.language(conn, language_tag)
    rows, more = catalog_store.bs_profiles(
        conn, lang, default, paging.offset, paging.size, vendor=vendorID
    )
    items = [{k: row[k] for k in MODEL_FIELDS if row.get(k) is not None} for row in rows]
    for item in items:
        vendor = item["vendor"]
        item["vendor"] = {k: v for k, v in vendor.items() if v is not None}
    count = lambda: catalog_store.bs_profile_count(conn, vendor=vendorID)  # noqa: E731
    return list_answer(items, more, first=paging.first, count=count)
