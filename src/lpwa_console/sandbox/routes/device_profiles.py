"""The device catalog a subscription may use (Document 1, reference contract):
`GET /subscriptions/mine/deviceProfiles` and `/subscriptions/mine/deviceVendors`.

Pages are addressed by `pageIndex` (from 1) and answer `more`; like the other lists of the
sandbox they also take `pageSize` (default 100, 10..1000). Both lists take the
`language-tag` parameter: the profiles answer with the names the operator's catalog has in
that language (its default language where it has none; store/catalogs.py); the vendor list
answers in the default language."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query

from ...schema.device_profiles import (
    Connectivity,
    DeviceProfileFilter,
    DeviceProfilePage,
    DeviceVendorFilter,
    DeviceVendorPage,
    IsmBandID,
    VendorSort,
)
from ..auth import AppServices, ClientBodies, SubscriptionReader
from ..store import device_profiles as store
from ._common import PageParams
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/subscriptions/mine", tags=["device-profiles"], dependencies=[ClientBodies]
)
Many = Annotated[list[str] | None, Query()]
Bands = Annotated[list[IsmBandID] | None, Query()]


@router.reads("/deviceProfiles", DeviceProfilePage)
def list_profiles(
    account: SubscriptionReader,
    svc: AppServices,
    paging: PageParams,
    typeMAC: str | None = None,
    vendorID: str | None = None,
    ismBandID: Bands = None,
    connectivity: Connectivity | None = None,
    ID: Many = None,
    language_tag: Annotated[str | None, Query(alias="language-tag")] = None,
) -> dict[str, Any]:
    filters = DeviceProfileFilter.model_validate(
        {
            "typeMAC": typeMAC,
            "vendorID": vendorID,
            "ismBandID": ismBandID or [],
            "connectivity": connectivity,
            "ID": ID or [],
        }
    )
    conn = svc.db.conn()
    briefs, more = store.profiles(conn, filters, paging.offset, paging.size, language=language_tag)
    return {"briefs": briefs, "more": more}


@router.reads("/deviceVendors", DeviceVendorPage)
def list_vendors(
    account: SubscriptionReader,
    svc: AppServices,
    paging: PageParams,
    ID: Many = None,
    connectivity: Connectivity | None = None,
    ismBandID: Bands = None,
    sort: VendorSort | None = None,
    name: str | None = None,
    language_tag: Annotated[str | None, Query(alias="language-tag")] = None,
) -> dict[str, Any]:
    filters = DeviceVendorFilter.model_validate(
        {"ID": ID or [], "connectivity": connectivity, "ismBandID": ismBandID or [], "sort": sort}
    )
    # `name`: the deprecated prefix filter, still honoured.
    briefs, more = store.vendors(
        svc.db.conn(), account.sub, filters, paging.offset, paging.size, name_prefix=name
    )
    return {"briefs": briefs, "more": more}
