"""Alarms of devices (`/subscriptions/mine/devices/.../alarms`) and multicast groups
(`/subscriptions/mine/multicastGroups/.../alarms`).

Collections are sorted with `sort=<criterion>,<asc|desc>`; only `alarmUid` allows the cursor
`pageAfter` (its trailing `=` goes out as %3D). `count` comes with the first page only.
"""

from __future__ import annotations

import builtins
import warnings

from ...schema.alarms import (
    CURSOR_SORT,
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
from ..pagination import CursorPaginator, IndexPaginator
from ._resource import APIResource

DEVICES = "/subscriptions/mine/devices"
GROUPS = "/subscriptions/mine/multicastGroups"


def _list_params(
    page_size: int,
    filters: AlarmFilter | None,
    sort: AlarmSortCriterion | None,
    descending: bool,
    page_index: int | None,
    page_after: str | None,
) -> list[tuple[str, str]]:
    if page_after is not None and sort != CURSOR_SORT:
        raise ValueError("pageAfter works only when sorting by alarmUid")
    if page_after is not None and page_index is not None:
        raise ValueError("give a page index or a cursor, not both")
    params = [("pageSize", str(page_size))]
    if page_index is not None:
        params.insert(0, ("pageIndex", str(page_index)))
    if sort:
        params.append(("sort", alarm_sort_param(sort, descending)))
    if page_after:
        params.append(("pageAfter", page_after))
    return params + (filters or AlarmFilter()).to_params()


class DeviceAlarmsResource(APIResource):
    """Alarms of devices: the whole subscription's, or one device's."""

    async def list(
        self,
        page_index: int | None = 1,
        page_size: int = 100,
        *,
        filters: AlarmFilter | None = None,
        sort: AlarmSortCriterion | None = None,
        descending: bool = False,
        page_after: str | None = None,
    ) -> DeviceAlarmPage:
        """GET /devices/alarms. With `page_after`, give sort="alarmUid" and page_index=None."""
        params = _list_params(page_size, filters, sort, descending, page_index, page_after)
        return await self._client.get(f"{DEVICES}/alarms", DeviceAlarmPage, params=params)

    def iterate(
        self, *, filters: AlarmFilter | None = None, descending: bool = False, page_size: int = 500
    ) -> CursorPaginator[DeviceAlarmBrief]:
        """Every alarm once, sorted by alarmUid, page after page by cursor."""

        async def fetch(cursor: str | None, size: int) -> ListEnvelope[DeviceAlarmBrief]:
            return await self.list(
                None, size, filters=filters, sort=CURSOR_SORT,
                descending=descending, page_after=cursor,
            )  # fmt: skip

        return CursorPaginator(fetch, page_size)

    def iterate_sorted(
        self,
        *,
        sort: AlarmSortCriterion,
        descending: bool = False,
        filters: AlarmFilter | None = None,
        page_size: int = 500,
    ) -> IndexPaginator[DeviceAlarmBrief]:
        """Pages by index, for the sort criteria other than alarmUid."""

        async def fetch(index: int, size: int) -> ListEnvelope[DeviceAlarmBrief]:
            return await self.list(index, size, filters=filters, sort=sort, descending=descending)

        return IndexPaginator(fetch, page_size)

    async def acknowledge(self, alarm_uids: builtins.list[str]) -> None:
        """POST /devices/alarms/ack with `{"alarmUids": [...]}`."""
        body = AlarmsAck(alarmUids=alarm_uids)
        await self._client.request("POST", f"{DEVICES}/alarms/ack", json=body.to_wire())

    async def of_device(
        self, device: str, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> AlarmPage:
        """GET /devices/{deviceUid}/alarms (filters from, to, ID, state, acked)."""
        params = [("pageIndex", str(page_index)), *(filters or AlarmFilter()).scoped_params()]
        path = f"{DEVICES}/{path_segment(device)}/alarms"
        return await self._client.get(path, AlarmPage, params=params)

    async def acknowledge_device(self, device: str, *, filters: AlarmFilter | None = None) -> None:
        """POST /devices/{deviceUid}/alarms/ack: every alarm of the device matching the
        filters (from, to, ID, state)."""
        params = [(k, v) for k, v in (filters or AlarmFilter()).scoped_params() if k != "acked"]
        path = f"{DEVICES}/{path_segment(device)}/alarms/ack"
        await self._client.request("POST", path, params=params)

    async def acknowledge_one(self, device: str, alarm_uid: str) -> None:
        """POST /devices/{deviceUid}/alarms/{alarmUid}/ack."""
        path = f"{DEVICES}/{path_segment(device)}/alarms/{path_segment(alarm_uid)}/ack"
        await self._client.request("POST", path)

    async def histories(
        self, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> DeviceAlarmPage:
        """Deprecated GET /devices/alarms/histories: use list()."""
        warnings.warn(
            "GET /devices/alarms/histories is deprecated; use DeviceAlarmsResource.list()",
            DeprecationWarning,
            stacklevel=2,
        )
        params = [("pageIndex", str(page_index)), *(filters or AlarmFilter()).to_params()]
        return await self._client.get(f"{DEVICES}/alarms/histories", DeviceAlarmPage, params=params)


class MulticastAlarmsResource(APIResource):
    """Alarms of multicast groups: all groups', or one group's."""

    async def list(
        self,
        page_index: int | None = 1,
        page_size: int = 100,
        *,
        filters: AlarmFilter | None = None,
        sort: AlarmSortCriterion | None = None,
        descending: bool = False,
        page_after: str | None = None,
    ) -> MulticastAlarmPage:
        """GET /multicastGroups/alarms (devEUI filters on the groups' EUIs)."""
        params = _list_params(page_size, filters, sort, descending, page_index, page_after)
        return await self._client.get(f"{GROUPS}/alarms", MulticastAlarmPage, params=params)

    def iterate(
        self, *, filters: AlarmFilter | None = None, descending: bool = False, page_size: int = 500
    ) -> CursorPaginator[MulticastAlarmBrief]:
        async def fetch(cursor: str | None, size: int) -> ListEnvelope[MulticastAlarmBrief]:
            return await self.list(
                None, size, filters=filters, sort=CURSOR_SORT,
                descending=descending, page_after=cursor,
            )  # fmt: skip

        return CursorPaginator(fetch, page_size)

    def iterate_sorted(
        self,
        *,
        sort: AlarmSortCriterion,
        descending: bool = False,
        filters: AlarmFilter | None = None,
        page_size: int = 500,
    ) -> IndexPaginator[MulticastAlarmBrief]:
        async def fetch(index: int, size: int) -> ListEnvelope[MulticastAlarmBrief]:
            return await self.list(index, size, filters=filters, sort=sort, descending=descending)

        return IndexPaginator(fetch, page_size)

    async def acknowledge(self, alarm_uids: builtins.list[str]) -> None:
        """POST /multicastGroups/alarms/ack with `{"alarmUids": [...]}`."""
        body = AlarmsAck(alarmUids=alarm_uids)
        await self._client.request("POST", f"{GROUPS}/alarms/ack", json=body.to_wire())

    async def of_group(
        self, group: str, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> AlarmPage:
        """GET /multicastGroups/{multicastGroupUid}/alarms."""
        params = [("pageIndex", str(page_index)), *(filters or AlarmFilter()).scoped_params()]
        path = f"{GROUPS}/{path_segment(group)}/alarms"
        return await self._client.get(path, AlarmPage, params=params)

    async def acknowledge_group(self, group: str, *, filters: AlarmFilter | None = None) -> None:
        """POST /multicastGroups/{multicastGroupUid}/alarms/ack (filters from, to, ID, state)."""
        params = [(k, v) for k, v in (filters or AlarmFilter()).scoped_params() if k != "acked"]
        path = f"{GROUPS}/{path_segment(group)}/alarms/ack"
        await self._client.request("POST", path, params=params)

    async def acknowledge_one(self, group: str, alarm_uid: str) -> None:
        """POST /multicastGroups/{multicastGroupUid}/alarms/{alarmUid}/ack."""
        path = f"{GROUPS}/{path_segment(group)}/alarms/{path_segment(alarm_uid)}/ack"
        await self._client.request("POST", path)
