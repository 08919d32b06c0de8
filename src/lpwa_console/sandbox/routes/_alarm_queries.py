"""What the alarm routes of devices, multicast groups and stations share in parsing their
query parameters: timestamps as epoch milliseconds, and the one owner's alarm filters."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, TypeVar

from fastapi import Query

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
