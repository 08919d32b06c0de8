"""The device catalog of the subscription: `/subscriptions/mine/deviceProfiles` and
`/subscriptions/mine/deviceVendors` (paged by index, `more` says when a next page exists)."""

from __future__ import annotations

from ...schema.device_profiles import (
    DeviceProfileFilter,
    DeviceProfilePage,
    DeviceVendorFilter,
    DeviceVendorPage,
)
from ._resource import APIResource

MINE = "/subscriptions/mine"


class DeviceProfilesResource(APIResource):
    """`/subscriptions/mine/deviceProfiles`."""

    async def list(
        self,
        page_index: int = 1,
        page_size: int | None = None,
        *,
        filters: DeviceProfileFilter | None = None,
    ) -> DeviceProfilePage:
        params = [("pageIndex", str(page_index))]
        if page_size is not None:  # the sandbox's extension; platforms have a fixed size
            params.append(("pageSize", str(page_size)))
        params += filters.to_params() if filters else []
        return await self._client.get(f"{MINE}/deviceProfiles", DeviceProfilePage, params=params)


class DeviceVendorsResource(APIResource):
    """`/subscriptions/mine/deviceVendors`."""

    async def list(
        self,
        page_index: int = 1,
        page_size: int | None = None,
        *,
        filters: DeviceVendorFilter | None = None,
    ) -> DeviceVendorPage:
        params = [("pageIndex", str(page_index))]
        if page_size is not None:
            params.append(("pageSize", str(page_size)))
        params += filters.to_params() if filters else []
        return await self._client.get(f"{MINE}/deviceVendors", DeviceVendorPage, params=params)
