"""Query parameters several resources take alike: a time window (`begin`, `duration`,
`step`) of the history endpoints, and the box of the cluster endpoints."""

from __future__ import annotations

from datetime import datetime, timedelta

from ...schema.alarms import wire_time
from ...schema.frames import normalise_duration, normalise_step


def window_params(
    begin: datetime | None,
    duration: str | timedelta | None,
    step: str | timedelta | None = None,
) -> list[tuple[str, str]]:
    """`begin` (on the wire's time format), `duration` and `step` (ISO 8601), those given."""
    params: list[tuple[str, str]] = []
    if begin is not None:
        params.append(("begin", wire_time(begin)))
    if duration is not None:
        params.append(("duration", normalise_duration(duration)))
    if step is not None:
        params.append(("step", normalise_step(step)))
    return params


def box_params(
    min_lat: float, min_lon: float, max_lat: float, max_lon: float
) -> list[tuple[str, str]]:
    """The box of a cluster request (`minLat`, `minLon`, `maxLat`, `maxLon`)."""
    return [
        ("minLat", str(min_lat)),
        ("minLon", str(min_lon)),
        ("maxLat", str(max_lat)),
        ("maxLon", str(max_lon)),
    ]
