"""What the alarm routes of devices, multicast groups and stations share in parsing their
query parameters: timestamps as epoch milliseconds, and the one owner's alarm filters."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query

from ...schema.alarms import StateFiltering
from ..store.alarm_rows import AlarmRowQuery

Q = TypeVar("Q", bound=AlarmRowQuery)


def epoch_ms(value: datetime | None) -> int | None:
    return None if value is None else int(value.timestamp() * 1000)


def scoped_query_for(query: type[Q]) -> Callable[..., Awaitable[Q]]:
    """The dependency parsing the filters of one owner's alarms into `query`: `state=1` is
    the CLEARED ones only, 2..6 that severity or above. (`async`: pure parsing, on the event
    loop, where a plain `def` would cost each request a hop through the thread pool.)"""

    async def scoped_query(
        state: Annotated[int | None, Query(ge=1, le=6)] = None,
        acked: bool | None = None,
        ID: Annotated[int | None, Query(ge=0)] = None,
        from_: Annotated[datetime | None, Query(alias="from")] = None,
        to: datetime | None = None,
    ) -> Q:
        return query(
            state=state, equal=state == 1, acked=acked, alarm_id=ID, created_from=epoch_ms(from_),
            updated_to=epoch_ms(to),
        )  # fmt: skip

    return scoped_query


# The filters every alarm list shares, around its owners' (devEUI or lrrID, domain): three
# dependencies in the order of the parameters, so that the OpenAPI document lists them as
# the reference does (FastAPI lists a route's own parameters before its dependencies').
async def state_filters(
    state: Annotated[int | None, Query(ge=1, le=6)] = None,
    stateFiltering: StateFiltering | None = None,
    acked: bool | None = None,
    ID: Annotated[int | None, Query(ge=0)] = None,
    alarmUid: str | None = None,
) -> dict[str, Any]:
    """`AlarmRowQuery` keywords: that severity exactly (EQUAL) or that severity or above."""
    return {"state": state, "equal": stateFiltering == "EQUAL", "acked": acked,
            "alarm_id": ID, "alarm_uid": alarmUid}  # fmt: skip


async def time_span(
    from_: Annotated[datetime | None, Query(alias="from")] = None,
    to: datetime | None = None,
) -> dict[str, Any]:
    """`AlarmRowQuery` keywords: created from, updated up to (epoch milliseconds)."""
    return {"created_from": epoch_ms(from_), "updated_to": epoch_ms(to)}


StateFilters = Annotated[dict[str, Any], Depends(state_filters)]
TimeSpan = Annotated[dict[str, Any], Depends(time_span)]
