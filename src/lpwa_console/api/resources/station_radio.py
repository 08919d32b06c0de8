"""A base station's antennas (`/bss/{bsUid}/ants`) and RF probe (`/bss/{bsUid}/rfProbe`, with
the traffic it heard, `/rfProbe/frames`)."""

from __future__ import annotations

from typing import Unpack

from ...schema.station_radio import (
    Antenna,
    Antennas,
    AntennaUpdate,
    RfProbe,
    RfProbeUpdate,
    StationFrames,
)
from ._params import Window, station_window
from ._resource import APIResource
from ._stations_path import station_path


class StationRadioResource(APIResource):
    async def antennas(self, bs_uid: str | int, *, partner: str = "mine") -> Antennas:
        return await self._client.get(f"{station_path(bs_uid, partner)}/ants", Antennas)

    async def antenna(self, bs_uid: str | int, ant_uid: int, *, partner: str = "mine") -> Antenna:
        return await self._client.get(f"{station_path(bs_uid, partner)}/ants/{ant_uid}", Antenna)

    async def update_antenna(
        self, bs_uid: str | int, ant_uid: int, update: AntennaUpdate, *, partner: str = "mine"
    ) -> Antenna:
        path = f"{station_path(bs_uid, partner)}/ants/{ant_uid}"
        return await self._client.put(path, Antenna, json=update.to_wire())

    async def rf_probe(self, bs_uid: str | int, *, partner: str = "mine") -> RfProbe:
        return await self._client.get(f"{station_path(bs_uid, partner)}/rfProbe", RfProbe)

    async def update_rf_probe(
        self, bs_uid: str | int, update: RfProbeUpdate, *, partner: str = "mine"
    ) -> RfProbe:
        path = f"{station_path(bs_uid, partner)}/rfProbe"
        return await self._client.put(path, RfProbe, json=update.to_wire())

    async def rf_probe_frames(self, bs_uid: str | int, **window: Unpack[Window]) -> StationFrames:
        """Radio traffic the probe heard, one bucket per `step` (default an hour)."""
        path, params = station_window(bs_uid, "rfProbe/frames", window)
        return await self._client.get(path, StationFrames, params=params)
