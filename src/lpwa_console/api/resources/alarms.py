"""Alarms of devices (`/subscriptions/mine/devices/.../alarms`) and multicast groups
(`/subscriptions/mine/multicastGroups/.../alarms`).

Collections are sorted with `sort=<criterion>,<asc|desc>` (by update time, newest first, when
no sort is given); only `alarmUid` allows the cursor `pageAfter` (its trailing `=` goes out as
%3D). `count` comes with the first page only.
"""

from __future__ import annotations

import builtins
import warnings
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ...schema.alarms import (
    CURSOR_SORT,
    AlarmBrief,
    AlarmFilter,
    AlarmPage,
    AlarmsAck,
    AlarmSortCriterion,
    DeviceAlarmBrief,
    DeviceAlarmPage,
    MulticastAlarmBrief,
    MulticastAlarmPage,
    alarm_sort_param,
)
from ...schema.common import ListEnvelope, path_segment
from ..pagination import Paginator, Params, page_params
from ._resource import APIResource

if TYPE_CHECKING:
    from .._base import BaseClient

DEVICES = "/subscriptions/mine/devices"
GROUPS = "/subscriptions/mine/multicastGroups"

BriefT = TypeVar("BriefT", bound=AlarmBrief)
PageT = TypeVar("PageT", bound=ListEnvelope[Any])


def _query(
    filters: AlarmFilter | None, sort: AlarmSortCriterion | None, descending: bool
) -> Params:
    sort_param = [("sort", alarm_sort_param(sort, descending))] if sort else []
    return sort_param + (filters or AlarmFilter()).to_params()


def _list_params(
    page_size: int,
    filters: AlarmFilter | None,
    sort: AlarmSortCriterion | None,
    descending: bool,
    page_index: int | None,
    page_after: str | None,
) -> Params:
    if page_after is not None and sort != CURSOR_SORT:
        raise ValueError("pageAfter works only when sorting by alarmUid")
    if page_after is not None and page_index is not None:
        raise ValueError("give a page index or a cursor, not both")
    paging = [("pageSize", str(page_size))]
    if page_index is not None:
        paging = page_params(page_index, page_size)
    if page_after:
        paging.append(("pageAfter", page_after))
    return paging + _query(filters, sort, descending)


class AlarmsResource(APIResource, Generic[BriefT, PageT]):
    """Alarms of the owners (devices or multicast groups) below `path`: the whole collection's
    (`{path}/alarms`, items `BriefT` in pages `PageT`), or one owner's
    (`{path}/{owner}/alarms`, where `owner` is a UID or `e` + EUI)."""

    def __init__(self, client: BaseClient, path: str, page_model: type[PageT]) -> None:
        super().__init__(client)
        self.path = path
        self._page_model = page_model
        # How a platform without the whole collection's list says so (FeatureNotOffered).
        self._feature: dict[str, Any] = {}

    async def _page(self, params: Params) -> PageT:
        return await self._client.get(
            f"{self.path}/alarms", self._page_model, params=params, **self._feature
        )

    async def list(
        self,
        page_index: int | None = 1,
        page_size: int = 100,
        *,
        filters: AlarmFilter | None = None,
        sort: AlarmSortCriterion | None = None,
        descending: bool = False,
        page_after: str | None = None,
    ) -> PageT:
        """GET {path}/alarms. With `page_after`, give sort="alarmUid" and page_index=None.
        (On multicast groups, devEUI filters on the groups' EUIs.)"""
        return await self._page(
            _list_params(page_size, filters, sort, descending, page_index, page_after)
        )

    def iterate(
        self, *, filters: AlarmFilter | None = None, descending: bool = False, page_size: int = 500
    ) -> Paginator[BriefT]:
        """Every alarm once, sorted by alarmUid, page after page by cursor."""
        query = _query(filters, CURSOR_SORT, descending)
        return Paginator(self._page, query, page_size=page_size, by_cursor=True)

    def iterate_sorted(
        self,
        *,
        sort: AlarmSortCriterion,
        descending: bool = False,
        filters: AlarmFilter | None = None,
        page_size: int = 500,
    ) -> Paginator[BriefT]:
        """Pages by index, for the sort criteria other than alarmUid."""
        return Paginator(self._page, _query(filters, sort, descending), page_size=page_size)

    async def acknowledge(self, alarm_uids: builtins.list[str]) -> None:
        """POST {path}/alarms/ack with `{"alarmUids": [...]}`."""
        body = AlarmsAck(alarmUids=alarm_uids)
        await self._client.request("POST", f"{self.path}/alarms/ack", json=body.to_wire())

    async def of_owner(
        self, owner: str, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> AlarmPage:
        """GET {path}/{owner}/alarms (filters from, to, ID, state, acked; see
        AlarmFilter.scoped_params), newest update first."""
        params = [("pageIndex", str(page_index)), *(filters or AlarmFilter()).scoped_params()]
        path = f"{self.path}/{path_segment(owner)}/alarms"
        return await self._client.get(path, AlarmPage, params=params)

    async def acknowledge_owner(self, owner: str, *, filters: AlarmFilter | None = None) -> None:
        """POST {path}/{owner}/alarms/ack: every alarm of the owner matching the filters
        (from, to, ID, state)."""
        params = [(k, v) for k, v in (filters or AlarmFilter()).scoped_params() if k != "acked"]
        path = f"{self.path}/{path_segment(owner)}/alarms/ack"
        await self._client.request("POST", path, params=params)

    async def acknowledge_one(self, owner: str, alarm_uid: str) -> None:
        """POST {path}/{owner}/alarms/{alarmUid}/ack."""
        path = f"{self.path}/{path_segment(owner)}/alarms/{path_segment(alarm_uid)}/ack"
        await self._client.request("POST", path)


class DeviceAlarmsResource(AlarmsResource[DeviceAlarmBrief, DeviceAlarmPage]):
    """Alarms of devices: the whole subscription's, or one device's."""

    def __init__(self, client: BaseClient) -> None:
        super().__init__(client, DEVICES, DeviceAlarmPage)

    of_device = AlarmsResource.of_owner  # GET /devices/{deviceUid}/alarms
    acknowledge_device = AlarmsResource.acknowledge_owner  # POST /devices/{deviceUid}/alarms/ack

    async def histories(
        self, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> DeviceAlarmPage:
        """Deprecated GET /devices/alarms/histories (the cleared alarms, newest first): use
        list(). Filters from, to, ID, alarmUid, acked, devEUI, and `state` (3..6) on the
        highest severity the alarms reached."""
        warnings.warn(
            "GET /devices/alarms/histories is deprecated; use DeviceAlarmsResource.list()",
            DeprecationWarning,
            stacklevel=2,
        )
        keep = {"from", "to", "ID", "alarmUid", "state", "acked", "devEUI"}
        wanted = [(k, v) for k, v in (filters or AlarmFilter()).to_params() if k in keep]
        params = [("pageIndex", str(page_index)), *wanted]
        return await self._client.get(f"{DEVICES}/alarms/histories", DeviceAlarmPage, params=params)


class MulticastAlarmsResource(AlarmsResource[MulticastAlarmBrief, MulticastAlarmPage]):
    """Alarms of multicast groups: all groups', or one group's."""

    def __init__(self, client: BaseClient) -> None:
        super().__init__(client, GROUPS, MulticastAlarmPage)
        # Not in the 7.3 reference: there `multicastGroups/alarms` reads as a group's UID,
        # which such a platform refuses (400 or 422) or does not find (404).
        self._feature = {
            "feature": "the multicast groups' alarms as one list",
            "not_offered_on": (400, 404, 405, 422),
        }

    of_group = AlarmsResource.of_owner  # GET /multicastGroups/{multicastGroupUid}/alarms
    acknowledge_group = AlarmsResource.acknowledge_owner  # POST .../{multicastGroupUid}/alarms/ack
