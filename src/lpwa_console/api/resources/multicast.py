"""Multicast groups: `/subscriptions/mine/multicastGroups` (alarms: see alarms.py)."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta

from ...schema.alarms import wire_time
from ...schema.common import path_segment
from ...schema.frames import MulticastFrames, normalise_duration
from ...schema.multicast import (
    BsTagSuggestions,
    MulticastGroup,
    MulticastGroupBrief,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupPage,
    MulticastGroupUpdate,
)
from ..pagination import IndexPaginator
from ._resource import APIResource

BASE = "/subscriptions/mine/multicastGroups"


def _frames_params(
    begin: datetime | None, duration: str | timedelta | None
) -> list[tuple[str, str]]:
    params: list[tuple[str, str]] = []
    if begin is not None:
        params.append(("begin", wire_time(begin)))
    if duration is not None:
        params.append(("duration", normalise_duration(duration)))
    return params


class MulticastGroupsResource(APIResource):
    """`group` arguments are a UID or `e` + EUI (MulticastGroupBrief.path_ref)."""

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: MulticastGroupFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
    ) -> MulticastGroupPage:
        params = [("pageIndex", str(page_index)), ("pageSize", str(page_size))]
        params += (filters or MulticastGroupFilter()).to_params()
        if sort:
            params.append(("sort", f"{sort},{'desc' if descending else 'asc'}"))
        return await self._client.get(BASE, MulticastGroupPage, params=params)

    def iterate(
        self,
        *,
        filters: MulticastGroupFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_size: int = 500,
    ) -> IndexPaginator[MulticastGroupBrief]:
        async def fetch(index: int, size: int) -> MulticastGroupPage:
            return await self.list(index, size, filters=filters, sort=sort, descending=descending)

        return IndexPaginator(fetch, page_size)

    async def get(self, group: str) -> MulticastGroup:
        return await self._client.get(f"{BASE}/{path_segment(group)}", MulticastGroup)

    async def create(self, group: MulticastGroupCreate) -> MulticastGroup:
        """POST (201)."""
        return await self._client.post(BASE, MulticastGroup, json=group.to_wire())

    async def update(self, group: str, update: MulticastGroupUpdate) -> MulticastGroup:
        return await self._client.put(
            f"{BASE}/{path_segment(group)}", MulticastGroup, json=update.to_wire()
        )

    async def delete(self, group: str) -> None:
        await self._client.delete(f"{BASE}/{path_segment(group)}")

    async def bs_tag_suggestions(self, query: str = "") -> BsTagSuggestions:
        """GET /multicastGroups/bss/tags/suggestions (empty for restricted users when the
        subscription withholds suggestions)."""
        return await self._client.get(
            f"{BASE}/bss/tags/suggestions", BsTagSuggestions, params={"query": query}
        )

    async def frames(
        self,
        group: str | None = None,
        *,
        begin: datetime | None = None,
        duration: str | timedelta | None = None,
    ) -> MulticastFrames:
        """Deprecated GET /multicastGroups/frames (all groups) or /{multicastGroupUid}/frames."""
        warnings.warn(
            "GET /multicastGroups/frames is deprecated; use the frames/aggregated path",
            DeprecationWarning,
            stacklevel=2,
        )
        path = f"{BASE}/{path_segment(group)}/frames" if group else f"{BASE}/frames"
        return await self._client.get(path, MulticastFrames, params=_frames_params(begin, duration))
