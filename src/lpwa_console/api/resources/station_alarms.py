"""Alarms of base stations: `/partners/{partnerUid}/bss/alarms` (every station's) and
`/bss/{bsUid}/alarms` (one station's), with their histories and state distributions.

Sorts and cursors as the device alarms (alarms.py): `pageAfter` only with sort="alarmUid".
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ...schema.alarms import AlarmFilter
from ...schema.common import path_segment
from ...schema.station_alarms import (
    StationAlarmBrief,
    StationAlarmFilter,
    StationAlarmPage,
    StationAlarmStateDistributions,
)
from .alarms import AlarmsResource
from .partners import MINE, partner_path

if TYPE_CHECKING:
    from .._base import BaseClient

HISTORY_FILTERS = {"from", "to", "ID", "alarmUid", "state", "acked", "lrrID"}


class StationAlarmsResource(AlarmsResource[StationAlarmBrief, StationAlarmPage]):
    """`station` arguments are a UID, `i` + lrrID or `u` + lrrUUID."""

    def __init__(self, client: BaseClient, partner: str = MINE) -> None:
        super().__init__(client, f"{partner_path(partner)}/bss", StationAlarmPage)
        self.partner = partner

    def for_partner(self, partner: str) -> StationAlarmsResource:
        """The same for another partner (the operator: UID, `id:sub:...`, `id:sup:...`)."""
        return StationAlarmsResource(self._client, partner)

    of_station = AlarmsResource.of_owner  # GET /bss/{bsUid}/alarms
    acknowledge_station = AlarmsResource.acknowledge_owner  # POST /bss/{bsUid}/alarms/ack

    async def histories(
        self, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> StationAlarmPage:
        """Deprecated GET /bss/alarms/histories: the cleared alarms, latest first; `state`
        (3..6) on the highest severity they reached."""
        warnings.warn(
            "GET /bss/alarms/histories is deprecated; use StationAlarmsResource.list()",
            DeprecationWarning,
            stacklevel=2,
        )
        wanted = [
            (k, v) for k, v in (filters or StationAlarmFilter()).to_params() if k in HISTORY_FILTERS
        ]
        return await self._client.get(
            f"{self.path}/alarms/histories",
            StationAlarmPage,
            params=[("pageIndex", str(page_index)), *wanted],
        )

    async def station_histories(
        self, station: str, page_index: int = 1, *, filters: AlarmFilter | None = None
    ) -> StationAlarmPage:
        """GET /bss/{bsUid}/alarms/histories: the station's cleared alarms, latest first."""
        keep = HISTORY_FILTERS - {"alarmUid", "lrrID"}
        wanted = [(k, v) for k, v in (filters or AlarmFilter()).to_params() if k in keep]
        return await self._client.get(
            f"{self.path}/{path_segment(station)}/alarms/histories",
            StationAlarmPage,
            params=[("pageIndex", str(page_index)), *wanted],
        )

    async def state_distributions(
        self, *, filters: AlarmFilter | None = None
    ) -> StationAlarmStateDistributions:
        """GET /bss/alarms/stateDistributions (filters from, to, state, acked)."""
        keep = {"from", "to", "state", "acked"}
        params = [(k, v) for k, v in (filters or AlarmFilter()).to_params() if k in keep]
        return await self._client.get(
            f"{self.path}/alarms/stateDistributions",
            StationAlarmStateDistributions,
            params=params,
        )
