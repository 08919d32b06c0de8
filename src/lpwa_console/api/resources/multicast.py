"""Multicast groups: `/subscriptions/mine/multicastGroups` (alarms: see alarms.py), with their
downlink history (`frames_aggregated`; the raw `frames` lists are deprecated)."""

from __future__ import annotations

import warnings
from datetime import datetime, timedelta

from ...schema.common import path_segment
from ...schema.frames import (
    DEFAULT_STEP,
    MulticastFrames,
    MulticastFramesAggregation,
    normalise_step,
)
from ...schema.multicast import (
    BsTagSuggestions,
    MulticastGroup,
    MulticastGroupBrief,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupPage,
    MulticastGroupUpdate,
)
from ..pagination import Paginator, Params, page_params, sort_params
from ._params import window_params
from ._resource import APIResource

BASE = "/subscriptions/mine/multicastGroups"


class MulticastGroupsResource(APIResource):
    """`group` arguments are a UID or `e` + EUI (MulticastGroupBrief.path_ref)."""

    async def _page(self, params: Params) -> MulticastGroupPage:
        return await self._client.get(BASE, MulticastGroupPage, params=params)

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: MulticastGroupFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
    ) -> MulticastGroupPage:
        query = (filters or MulticastGroupFilter()).to_params() + sort_params(sort, descending)
        return await self._page(page_params(page_index, page_size) + query)

    def iterate(
        self,
        *,
        filters: MulticastGroupFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_size: int = 500,
    ) -> Paginator[MulticastGroupBrief]:
        query = (filters or MulticastGroupFilter()).to_params() + sort_params(sort, descending)
        return Paginator(self._page, query, page_size=page_size)

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

    async def bs_tag_suggestions(self, query: str) -> BsTagSuggestions:
        """GET /multicastGroups/bss/tags/suggestions (empty for restricted users when the
        subscription withholds suggestions)."""
        return await self._client.get(
            f"{BASE}/bss/tags/suggestions", BsTagSuggestions, params={"query": query}
        )

    async def frames_aggregated(
        self,
        group: str | None = None,
        *,
        begin: datetime | None = None,
        duration: str | timedelta | None = None,
        step: str | timedelta = DEFAULT_STEP,
        timezone: str | None = None,
        app_server_id: str | None = None,
    ) -> MulticastFramesAggregation:
        """GET /multicastGroups/frames/aggregated (all groups, optionally those directly
        associated with `app_server_id`) or /{multicastGroupUid}/frames/aggregated: one
        bucket per `step` (`PT1H` by default) from `begin` over `duration` (the platform's
        default: P7D up to now), counting downlinks by success ratio."""
        if group is not None and app_server_id is not None:
            raise ValueError("appServerID filters the history of all groups, not of one")
        params = [*window_params(begin, duration), ("step", normalise_step(step))]
        if timezone:
            params.append(("timezone", timezone))
        if app_server_id:
            params.append(("appServerID", app_server_id))
        path = f"{BASE}/{path_segment(group)}" if group is not None else BASE
        return await self._client.get(
            f"{path}/frames/aggregated", MulticastFramesAggregation, params=params
        )

    async def frames(
        self,
        group: str | None = None,
        *,
        begin: datetime | None = None,
        duration: str | timedelta | None = None,
    ) -> MulticastFrames:
        """Deprecated GET /multicastGroups/frames (all groups) or /{multicastGroupUid}/frames:
        use frames_aggregated()."""
        warnings.warn(
            "GET /multicastGroups/frames is deprecated; use "
            "MulticastGroupsResource.frames_aggregated()",
            DeprecationWarning,
            stacklevel=2,
        )
        path = f"{BASE}/{path_segment(group)}/frames" if group else f"{BASE}/frames"
        return await self._client.get(path, MulticastFrames, params=window_params(begin, duration))
