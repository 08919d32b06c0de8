"""Base stations of a network partner: `/partners/{partnerUid}/bss` (Document 2 §4.3).

`station` arguments are a UID, `i` + lrrID (BaseStationBrief.path_ref) or `u` + lrrUUID;
`partner` is `mine` by default (the operator names one: UID, `id:sub:...`, `id:sup:...`).
"""

from __future__ import annotations

import builtins
from collections.abc import Awaitable

from ...schema.common import path_segment
from ...schema.stations import (
    BaseStation,
    BaseStationBrief,
    BaseStationClusters,
    BaseStationCounters,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationPage,
    BaseStationUpdate,
    StationModelPage,
    StationsDomainsRequest,
    StationsTagRequest,
    StationTag,
    StationTagCreate,
    StationTagResult,
    StationTags,
    StationTagSuggestions,
    TagAction,
)
from ..pagination import Paginator, Params, page_params, sort_params
from ._resource import APIResource, box_params
from .partners import MINE, partner_path


class StationsResource(APIResource):
    def _base(self, partner: str) -> str:
        return f"{partner_path(partner)}/bss"

    def _one(self, station: str, partner: str) -> str:
        return f"{self._base(partner)}/{path_segment(station)}"

    async def _page(self, partner: str, params: Params) -> BaseStationPage:
        return await self._client.get(self._base(partner), BaseStationPage, params=params)

    def _pages(
        self, partner: str, query: Params, page_size: int, *, by_cursor: bool = False
    ) -> Paginator[BaseStationBrief]:
        def fetch(params: Params) -> Awaitable[BaseStationPage]:
            return self._page(partner, params)

        return Paginator(fetch, query, page_size=page_size, by_cursor=by_cursor)

    async def list(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: BaseStationFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_after: str | None = None,
        partner: str = MINE,
    ) -> BaseStationPage:
        """One page; `page_after` (a `cursors.last`) works only with sort="lrrID"."""
        params = page_params(page_index, page_size)
        params += (filters or BaseStationFilter()).to_params() + sort_params(sort, descending)
        if page_after is not None:
            params.append(("pageAfter", page_after))
        return await self._page(partner, params)

    def iterate(
        self,
        *,
        filters: BaseStationFilter | None = None,
        sort: str | None = None,
        descending: bool = False,
        page_size: int = 500,
        partner: str = MINE,
    ) -> Paginator[BaseStationBrief]:
        query = (filters or BaseStationFilter()).to_params() + sort_params(sort, descending)
        return self._pages(partner, query, page_size)

    def iterate_by_cursor(
        self,
        *,
        filters: BaseStationFilter | None = None,
        page_size: int = 500,
        partner: str = MINE,
    ) -> Paginator[BaseStationBrief]:
        """Every station exactly once, by lrrID, even while others are created."""
        query = (filters or BaseStationFilter()).to_params() + sort_params("lrrID", False)
        return self._pages(partner, query, page_size, by_cursor=True)

    async def models(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        vendor_id: str | None = None,
        partner: str = MINE,
    ) -> StationModelPage:
        """The base station models the partner may create stations of (`bsProfiles`)."""
        params = page_params(page_index, page_size)
        if vendor_id:
            params.append(("vendorID", vendor_id))
        return await self._client.get(
            f"{partner_path(partner)}/bsProfiles", StationModelPage, params=params
        )

    async def get(self, station: str, *, partner: str = MINE) -> BaseStation:
        return await self._client.get(self._one(station, partner), BaseStation)

    async def create(self, station: BaseStationCreate, *, partner: str = MINE) -> BaseStation:
        """POST (201); the lrrID is allocated when not given. `host` is always sent (the
        reference requires it): `{}` when not given, the owner by default."""
        body = station.to_wire()
        body.setdefault("host", {})
        return await self._client.post(self._base(partner), BaseStation, json=body)

    async def update(
        self, station: str, update: BaseStationUpdate, *, partner: str = MINE
    ) -> BaseStation:
        return await self._client.put(
            self._one(station, partner), BaseStation, json=update.to_wire()
        )

    async def clusters(
        self,
        min_lat: float,
        min_lon: float,
        max_lat: float,
        max_lon: float,
        *,
        filters: BaseStationFilter | None = None,
        partner: str = MINE,
    ) -> BaseStationClusters:
        params = box_params(min_lat, min_lon, max_lat, max_lon)
        params += (filters or BaseStationFilter()).without_box().to_params()
        return await self._client.get(
            f"{self._base(partner)}/clusters", BaseStationClusters, params=params
        )

    async def counters(self, *, partner: str = MINE) -> BaseStationCounters:
        return await self._client.get(f"{self._base(partner)}/counters", BaseStationCounters)

    async def tag(
        self,
        name: str,
        lrr_ids: builtins.list[str],
        action: TagAction = "TAG",
        *,
        multicast_visibility: bool | None = None,
        partner: str = MINE,
    ) -> StationTagResult:
        """TAG or UNTAG these stations (UNTAG of a missing tag is no error)."""
        body = StationsTagRequest(name=name, action=action, LRRIDs=lrr_ids)
        if multicast_visibility is not None:
            body.multicastVisibility = multicast_visibility
        return await self._client.post(
            f"{self._base(partner)}/tags",
            StationTagResult,
            json=body.to_wire(),
            params={"action": action},
        )

    async def untag(
        self, name: str, lrr_ids: builtins.list[str], *, partner: str = MINE
    ) -> StationTagResult:
        return await self.tag(name, lrr_ids, "UNTAG", partner=partner)

    async def tag_suggestions(
        self, query: str, *, exclude: builtins.list[str] | None = None, partner: str = MINE
    ) -> StationTagSuggestions:
        params = [("query", query)] + [("exclude", e) for e in exclude or []]
        return await self._client.get(
            f"{self._base(partner)}/tags/suggestions", StationTagSuggestions, params=params
        )

    async def tags_of(self, station: str, *, partner: str = MINE) -> StationTags:
        return await self._client.get(f"{self._one(station, partner)}/tags", StationTags)

    async def add_tag(
        self, station: str, tag: StationTagCreate, *, partner: str = MINE
    ) -> StationTag:
        return await self._client.post(
            f"{self._one(station, partner)}/tags", StationTag, json=tag.to_wire()
        )

    async def update_tag(
        self, station: str, tag_uid: str, tag: StationTagCreate, *, partner: str = MINE
    ) -> StationTag:
        return await self._client.put(
            f"{self._one(station, partner)}/tags/{path_segment(tag_uid)}",
            StationTag,
            json=tag.to_wire(),
        )

    async def remove_tag(self, station: str, tag_uid: str, *, partner: str = MINE) -> None:
        await self._client.delete(f"{self._one(station, partner)}/tags/{path_segment(tag_uid)}")

    async def set_domains(self, request: StationsDomainsRequest, *, partner: str = MINE) -> None:
        """POST /bss/domains (204): add (replacing the same group's) and remove domains."""
        await self._client.request("POST", f"{self._base(partner)}/domains", json=request.to_wire())
