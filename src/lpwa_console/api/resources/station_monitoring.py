"""What a base station reports about itself: `/partners/{partner}/bss/{bsUid}/sys/...`,
`rfcell/...` and `wans/...`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Literal, TypeVar, Unpack

from pydantic import BaseModel

from ...schema.station_monitoring import (
    BackhaulInterface,
    CpuHistory,
    CpuRecord,
    DiskHistory,
    DiskRecord,
    Indicators,
    RamHistory,
    RamRecord,
    RoundTrips,
    ServedDevices,
)
from ..pagination import page_params
from ._params import Window, station_window, window_params
from ._resource import APIResource
from ._stations_path import station_path

M = TypeVar("M", bound=BaseModel)


class StationMonitoringResource(APIResource):
    async def cpu(self, bs_uid: str | int, *, partner: str = "mine") -> CpuRecord:
        return await self._client.get(f"{station_path(bs_uid, partner)}/sys/cpu", CpuRecord)

    async def ram(self, bs_uid: str | int, *, partner: str = "mine") -> RamRecord:
        return await self._client.get(f"{station_path(bs_uid, partner)}/sys/ram", RamRecord)

    async def disk(
        self, bs_uid: str | int, disk_index: int = 0, *, partner: str = "mine"
    ) -> DiskRecord:
        path = f"{station_path(bs_uid, partner)}/sys/disks/{disk_index}"
        return await self._client.get(path, DiskRecord)

    async def _history(self, bs_uid: str | int, tail: str, model: type[M], window: Window) -> M:
        """GET `<station>/<tail>` over a window (`Window`'s keywords)."""
        path, params = station_window(bs_uid, tail, window)
        return await self._client.get(path, model, params=params)

    async def cpu_history(self, bs_uid: str | int, **window: Unpack[Window]) -> CpuHistory:
        return await self._history(bs_uid, "sys/cpu/histories", CpuHistory, window)

    async def ram_history(self, bs_uid: str | int, **window: Unpack[Window]) -> RamHistory:
        return await self._history(bs_uid, "sys/ram/histories", RamHistory, window)

    async def disk_history(
        self, bs_uid: str | int, disk_index: int = 0, **window: Unpack[Window]
    ) -> DiskHistory:
        tail = f"sys/disks/{disk_index}/histories"
        return await self._history(bs_uid, tail, DiskHistory, window)

    async def rfcell_indicators(self, bs_uid: str | int, *, partner: str = "mine") -> Indicators:
        path = f"{station_path(bs_uid, partner)}/rfcell/indicators"
        return await self._client.get(path, Indicators)

    async def wan_indicators(self, bs_uid: str | int, *, partner: str = "mine") -> Indicators:
        path = f"{station_path(bs_uid, partner)}/wans/indicators"
        return await self._client.get(path, Indicators)

    async def interface(
        self, bs_uid: str | int, int_uid: int = 0, *, partner: str = "mine"
    ) -> BackhaulInterface:
        path = f"{station_path(bs_uid, partner)}/wans/ints/{int_uid}"
        return await self._client.get(path, BackhaulInterface)

    async def round_trips(
        self, bs_uid: str | int, int_uid: int = 0, **window: Unpack[Window]
    ) -> RoundTrips:
        tail = f"wans/ints/{int_uid}/roundTrips"
        return await self._history(bs_uid, tail, RoundTrips, window)

    async def served_devices(
        self,
        bs_uid: str | int,
        page_index: int = 1,
        page_size: int = 100,
        *,
        duration: str | timedelta | None = None,
        bs_rank: Sequence[int] = (),
        with_location_only: bool = False,
        order: Literal["asc", "desc"] = "desc",
        partner: str = "mine",
    ) -> ServedDevices:
        """Devices whose last uplink this station heard (in the last `duration`, P1D by
        default), newest first unless `order` is asc."""
        params = page_params(page_index, page_size)
        params += window_params(None, duration, None)
        params += [("bsRank", str(rank)) for rank in bs_rank]
        if with_location_only:
            params.append(("devicesWithLocationOnly", "true"))
        params.append(("sort", f"lastUpTimestamp,{order}"))
        path = f"{station_path(bs_uid, partner)}/rfcell/servedDevices"
        return await self._client.get(path, ServedDevices, params=params)
