"""The time window (`begin`, `duration`, `step`) the history endpoints of devices,
multicast groups and base stations take alike. Imported with those resources only: the
schema modules it needs are not a start's (issue 8)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TypedDict

from ...schema.alarms import wire_time
from ...schema.frames import DEFAULT_STEP, normalise_duration, normalise_step
from ._stations_path import station_path

Params = list[tuple[str, str]]


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


class Window(TypedDict, total=False):
    """The keyword arguments of a station's history request: the window (`begin`,
    `duration`, `step`: the schema's default step when not given) and the `partner`."""

    begin: datetime | None
    duration: str | timedelta | None
    step: str | timedelta
    partner: str


def station_window(bs_uid: str | int, tail: str, window: Window) -> tuple[str, Params]:
    """The path `<station>/<tail>` of the window's partner, and the window's parameters
    (the default step when none is given)."""
    path = f"{station_path(bs_uid, window.get('partner', 'mine'))}/{tail}"
    step = window.get("step", DEFAULT_STEP)
    return path, window_params(window.get("begin"), window.get("duration"), step)
