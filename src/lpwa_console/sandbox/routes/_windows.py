"""Time windows of the traffic histories (devices' and multicast groups' `/frames` and
`/frames/aggregated`): `begin`, `duration` and `step` turned into milliseconds, with the
400s their mistakes get."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta

from ...schema.durations import parse_duration
from ...schema.frames import normalise_step
from ..errors import bad_request
from ..store.clock import network_now

MAX_BUCKETS = 10_000


def _ms(span: timedelta) -> int:
    return int(span.total_seconds() * 1000)


def span_ms(duration: str | None, default: int) -> int:
    """`duration` (ISO 8601) in ms, or `default` when not given; 400 when not positive."""
    try:
        span = _ms(parse_duration(duration)) if duration else default
    except ValueError:
        raise bad_request("duration: expected an ISO 8601 duration such as P1D") from None
    if span <= 0:
        raise bad_request("duration: must be positive")
    return span


def begin_ms(begin: datetime | None) -> int | None:
    return None if begin is None else int(begin.timestamp() * 1000)


@dataclass(frozen=True)
class Window:
    """Buckets of `step` ms from `start` (included) to `end` (excluded); `now` is the
    network's clock."""

    start: int
    end: int
    step: int
    now: int


def aggregation_window(
    conn: sqlite3.Connection,
    begin: datetime | None,
    duration: str | None,
    step: str,
    *,
    default_span_ms: int | None = None,
) -> Window:
    """The window of an aggregated history. Without `begin`: the `duration` up to now, on
    step boundaries (its last bucket holds now). Without `duration`: `default_span_ms`, or
    24 steps. 400 on a bad step or duration, or too many buckets."""
    try:
        step_ms = _ms(parse_duration(normalise_step(step)))
    except ValueError as exc:
        raise bad_request(f"step: {exc}") from None
    now = network_now(conn)
    span = span_ms(duration, default_span_ms if default_span_ms is not None else 24 * step_ms)
    start = begin_ms(begin)
    if start is None:
        end = now - now % step_ms + step_ms
        start = end - -(-span // step_ms) * step_ms
    else:
        end = start + span
    if (end - start) // step_ms > MAX_BUCKETS:
        raise bad_request(f"step: at most {MAX_BUCKETS} buckets per request")
    return Window(start, end, step_ms, now)


def raw_window(
    conn: sqlite3.Connection, begin: datetime | None, duration: str | None, default_span: int
) -> Window:
    """The window of a raw (deprecated) frame list: `duration` (else `default_span`) from
    `begin`, else up to now. `step` is the whole span."""
    now = network_now(conn)
    span = span_ms(duration, default_span)
    start = begin_ms(begin)
    start = now - span if start is None else start
    return Window(start, start + span, span, now)
