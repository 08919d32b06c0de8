from __future__ import annotations

import builtins
import warnings

from ...schema.common import ListEnvelope, Tag, TagSuggestions, path_segment
from ...schema.devices import (
    Device,
    DeviceBrief,
    DeviceClusters,
    DeviceCreate,
    DeviceFilter,
    DevicePage,
    DevicesTagRequest,
    DeviceUpdate,
    TagAction,
    TagActionResult,
)
from ..pagination import Paginator, Params, page_params, sort_params
from ._resource import APIResource, box_params

BASE = "/subscriptions/mine/devices"


class DeviceTags(ListEnvelope[Tag]):
    pass


class DevicesResource(APIResource):
    """`/subscriptions/mine/devices`."""

    async def _page(self, params: Params) -> DevicePage:
        return await self._client.get(BASE, DevicePage, params=params)

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: DeviceFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
    ) -> DevicePage:
        query = (filters or DeviceFilter()).to_params() + sort_params(sort, descending)
        return await self._page(page_params(page_index, page_size) + query)

    def iterate(
        self,
        *,
        filters: DeviceFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_size: int = 500,
    ) -> Paginator[DeviceBrief]:
        query = (filters or DeviceFilter()).to_params() + sort_params(sort, descending)
        return Paginator(self._page, query, page_size=page_size)

    def iterate_by_cursor(
        self, *, filters: DeviceFilter | None = None, page_size: int = 500
    ) -> Paginator[DeviceBrief]:
        """Every device exactly once, even while others are created (sorted by EUI)."""
        query = sort_params("EUI", False) + (filters or DeviceFilter()).to_params()
        return Paginator(self._page, query, page_size=page_size, by_cursor=True)

    async def get(self, device: str) -> Device:
        """`device` is a UID or `e` + EUI (see schema.common.device_ref)."""
        return await self._client.get(f"{BASE}/{path_segment(device)}", Device)

    async def create(self, device: DeviceCreate) -> Device:
        return await self._client.post(BASE, Device, json=device.to_wire())

    async def update(self, device: str, update: DeviceUpdate) -> Device:
        return await self._client.put(
            f"{BASE}/{path_segment(device)}", Device, json=update.to_wire()
        )

    async def delete(self, device: str) -> None:
        """Delete a device (a UID or `e` + EUI) with its alarms and history."""
        await self._client.delete(f"{BASE}/{path_segment(device)}")

    async def tag(
        self, name: str, dev_euis: builtins.list[str], action: TagAction = "TAG"
    ) -> TagActionResult:
        """`action` goes in the body (Document 1) and as a query parameter (the 7.3 contract,
        whose body has none): a platform reading either form does what was asked."""
        body = DevicesTagRequest(name=name, action=action, devEUIs=dev_euis)
        return await self._client.post(
            f"{BASE}/tags",
            TagActionResult,
            json=body.to_wire() | {"action": action},
            params={"action": action},
        )

    async def untag(self, name: str, dev_euis: builtins.list[str]) -> TagActionResult:
        return await self.tag(name, dev_euis, "UNTAG")

    async def tag_suggestions(self, query: str) -> TagSuggestions:
        """`query`, a tag name's first characters, is always sent (the reference requires it)."""
        return await self._client.get(
            f"{BASE}/tags/suggestions", TagSuggestions, params={"query": query}
        )

    async def clusters(
        self,
        min_lat: float,
        min_lon: float,
        max_lat: float,
        max_lon: float,
        *,
        filters: DeviceFilter | None = None,
    ) -> DeviceClusters:
        params = box_params(min_lat, min_lon, max_lat, max_lon)
        params += (filters or DeviceFilter()).without_box().to_params()
        return await self._client.get(f"{BASE}/clusters", DeviceClusters, params=params)

    async def tags_of(self, device: str) -> DeviceTags:
        """Deprecated endpoint: read the tags from `get(device).tags` instead."""
        warnings.warn(
            "GET /devices/{deviceUid}/tags is deprecated; use DevicesResource.get()",
            DeprecationWarning,
            stacklevel=2,
        )
        return await self._client.get(f"{BASE}/{path_segment(device)}/tags", DeviceTags)
