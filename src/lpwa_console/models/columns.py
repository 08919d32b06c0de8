"""The columns many lists share, built one way: a point in time, an item's name beside its
ID. A list declares its other columns with `Column` (paged_table.py)."""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any

from .formatting import format_time
from .paged_table import Column


def time_column(
    header: str,
    field: str,
    *,
    width: int | None = None,
    sortable: bool = False,
    hidden: bool = False,
    sample: str = "",
) -> Column[Any]:
    """A point in time (the item's `field`, epoch milliseconds) as the user reads it;
    `sortable`: the server sorts the list by that same field."""
    read = attrgetter(field)
    return Column(
        header,
        lambda item: format_time(read(item)),
        sort_key=field if sortable else None,
        width=width,
        hidden=hidden,
        sample=sample,
    )


def _name(item: Any) -> object:
    return item.name or ""


def _id(item: Any) -> object:
    return item.ID


def name_and_id(
    name_width: int,
    id_width: int | None = None,
    *,
    name: Callable[[Any], object] = _name,
    sortable: bool = False,
    id_header: str = "ID",
) -> list[Column[Any]]:
    """The "Name" column, then the item's ID: how a list names a resource that is picked
    by its ID elsewhere. `name` when the item's name is another field (a commercial name);
    `sortable`: the server sorts by name."""
    return [
        Column("Name", name, sort_key="name" if sortable else None, width=name_width),
        Column(id_header, _id, width=id_width),
    ]
