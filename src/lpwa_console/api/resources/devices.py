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
from ..pagination import CursorPaginator, IndexPaginator
from ._resource import APIResource

BASE = "/subscriptions/mine/devices"


class DeviceTags(ListEnvelope[Tag]):
    pass


def _sort_param(sort: str | None, descending: bool) -> list[tuple[str, str]]:
    return [("sort", f"{sort},{'desc' if descending else 'asc'}")] if sort else []


class DevicesResource(APIResource):
    """`/subscriptions/mine/devices`."""

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: DeviceFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
    ) -> DevicePage:
        params = [("pageIndex", str(page_index)), ("pageSize", str(page_size))]
        params += (filters or DeviceFilter()).to_params() + _sort_param(sort, descending)
        return await self._client.get(BASE, DevicePage, params=params)

    def iterate(
        self,
        *,
        filters: DeviceFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_size: int = 500,
    ) -> IndexPaginator[DeviceBrief]:
        async def fetch(index: int, size: int) -> ListEnvelope[DeviceBrief]:
            return await self.list(index, size, filters=filters, sort=sort, descending=descending)

        return IndexPaginator(fetch, page_size)

    def iterate_by_cursor(
        self, *, filters: DeviceFilter | None = None, page_size: int = 500
    ) -> CursorPaginator[DeviceBrief]:
        """Every device exactly once, even while others are created (sorted by EUI)."""

        async def fetch(cursor: str | None, size: int) -> ListEnvelope[DeviceBrief]:
            params = [("pageSize", str(size)), ("sort", "EUI,asc")]
            params += (filters or DeviceFilter()).to_params()
            if cursor:
                params.append(("pageAfter", cursor))
            return await self._client.get(BASE, DevicePage, params=params)

        return CursorPaginator(fetch, page_size)

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
        params = [
            ("minLat", str(min_lat)),
            ("minLon", str(min_lon)),
            ("maxLat", str(max_lat)),
            ("maxLon", str(max_lon)),
        ]
        params += (
            (filters or DeviceFilter())
            .model_copy(update={"minLat": None, "minLon": None, "maxLat": None, "maxLon": None})
            .to_params()
        )
        return await self._client.get(f"{BASE}/clusters", DeviceClusters, params=params)

    async def tags_of(self, device: str) -> DeviceTags:
        """Deprecated endpoint: read the tags from `get(device).tags` instead."""
        warnings.warn(
            "GET /devices/{deviceUid}/tags is deprecated; use DevicesResource.get()",
            DeprecationWarning,
            stacklevel=2,
        )
        return await self._client.get(f"{BASE}/{path_segment(device)}/tags", DeviceTags)
