"""Traffic history of a device: `/subscriptions/mine/devices/{deviceUid}/frames/aggregated`
(and the deprecated raw `/frames`)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from datetime import datetime, timedelta

from ...schema.common import path_segment
from ...schema.frames import (
    DEFAULT_STEP,
    DeviceFrames,
    FramesAggregation,
    FrameType,
    normalise_step,
)
from ._params import window_params
from ._resource import APIResource

DEVICES = "/subscriptions/mine/devices"


def _window(
    begin: datetime | None, duration: str | timedelta | None, types: Sequence[FrameType]
) -> list[tuple[str, str]]:
    return window_params(begin, duration) + [("type", str(t)) for t in types]


class FramesResource(APIResource):
    """Uplink/downlink history of one device (`device`: a UID or `e` + EUI)."""

    async def aggregated(
        self,
        device: str,
        *,
        begin: datetime | None = None,
        duration: str | timedelta | None = None,
        step: str | timedelta = DEFAULT_STEP,
        types: Sequence[FrameType] = (),
        timezone: str | None = None,
        lrr_id: str | None = None,
    ) -> FramesAggregation:
        """GET /devices/{deviceUid}/frames/aggregated: one bucket per `step` (`PT1H`,
        `P1D`, or "HOUR"/"DAY"/"WEEK") from `begin` over `duration`."""
        params = [*_window(begin, duration, types), ("step", normalise_step(step))]
        if timezone:
            params.append(("timezone", timezone))
        if lrr_id:
            params.append(("lrrID", lrr_id))
        path = f"{DEVICES}/{path_segment(device)}/frames/aggregated"
        return await self._client.get(path, FramesAggregation, params=params)

    async def frames(
        self,
        device: str,
        *,
        begin: datetime | None = None,
        duration: str | timedelta | None = None,
        types: Sequence[FrameType] = (),
        lrr_id: str | None = None,
    ) -> DeviceFrames:
        """Deprecated GET /devices/{deviceUid}/frames: use aggregated()."""
        warnings.warn(
            "GET /devices/{deviceUid}/frames is deprecated; use FramesResource.aggregated()",
            DeprecationWarning,
            stacklevel=2,
        )
        params = _window(begin, duration, types)
        if lrr_id:
            params.append(("lrrID", lrr_id))
        path = f"{DEVICES}/{path_segment(device)}/frames"
        return await self._client.get(path, DeviceFrames, params=params)
