"""The operator's dashboard: `/operators/{operatorUid}` KPIs, their last values and the
elements of a dimension (`operator` is `mine` by default: the caller's operator)."""

from __future__ import annotations

from datetime import timedelta

from ...schema.common import path_segment
from ...schema.dashboard import DimensionElements, Kpi, KpiLastValues
from ...schema.durations import format_duration
from ._resource import APIResource

MINE = "mine"


class DashboardResource(APIResource):
    def _base(self, operator: str) -> str:
        return f"/operators/{path_segment(operator)}"

    async def kpi(self, kpi_uid: str, *, operator: str = MINE) -> Kpi:
        """A KPI's metadata: its metrics and the durations its last values accept."""
        return await self._client.get(f"{self._base(operator)}/kpis/{path_segment(kpi_uid)}", Kpi)

    async def last_values(
        self, kpi_uid: str, duration: str | timedelta, *, operator: str = MINE
    ) -> KpiLastValues:
        """The KPI's series over the last `duration`, one of the KPI's `lastValues.durations`
        (the server refuses any other with 400)."""
        text = duration if isinstance(duration, str) else format_duration(duration)
        path = f"{self._base(operator)}/kpis/{path_segment(kpi_uid)}/lastValues"
        return await self._client.get(path, KpiLastValues, params=[("duration", text)])

    async def dimension_elements(
        self, key_dimension: str, *, operator: str = MINE
    ) -> DimensionElements:
        path = f"{self._base(operator)}/dimensions/{path_segment(key_dimension)}/elements"
        return await self._client.get(path, DimensionElements)
