"""What every store module shares: WHERE clauses built piece by piece, literal prefix tests
that use the indexes, and one page of rows read in SQL (never a list cut in Python).

A list is `SELECT ... WHERE <where> ORDER BY <order> LIMIT size + 1 OFFSET offset`: the
extra row says whether a next page exists, so `count` (a second query) is needed only on a
first page that is full (the routes' `list_answer` decides).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

TOP = "\U0010ffff"  # sorts after every character: p <= x < p + TOP  <=>  x starts with p


@dataclass
class Where:
    clauses: list[str] = field(default_factory=list)
    params: list[object] = field(default_factory=list)

    def add(self, clause: str, *params: object) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def add_test(self, test: tuple[str, list[object]]) -> None:
        """Add a (clause, params) pair such as `prefix` returns."""
        self.add(test[0], *test[1])

    def restrict(self, test: tuple[str, list[object]]) -> None:
        """Add a domain restriction's (clause, params); none when it has no params (the
        unrestricted "1" every restriction function gives for a user without domains)."""
        if test[1]:
            self.add(test[0], *test[1])

    def sql(self) -> str:
        return " AND ".join(self.clauses) if self.clauses else "1"


def add_box(
    w: Where,
    alias: str,
    min_lat: float | None,
    max_lat: float | None,
    min_lon: float | None,
    max_lon: float | None,
) -> None:
    """`w` narrowed to the rows of `alias` inside the bounds given (a list's box filter)."""
    for test, value in (("lat >=", min_lat), ("lat <=", max_lat), ("lon >=", min_lon),
                        ("lon <=", max_lon)):  # fmt: skip
        if value is not None:
            w.add(f"{alias}.{test} ?", value)


def prefix(column: str, value: str) -> tuple[str, list[object]]:
    """`column` starts with `value`, literally (`%` and `_` are plain characters), as an
    index range. It follows the column's collation: a COLLATE NOCASE column (or a `column`
    given as `x COLLATE NOCASE`) compares ASCII letters case-insensitively, as LIKE does."""
    return f"({column} >= ? AND {column} < ?)", [value, value + TOP]


def any_prefix(column: str, values: Sequence[str]) -> tuple[str, list[object]]:
    """`column` starts with one of `values` (each literal)."""
    parts = [prefix(column, v) for v in values]
    return "(" + " OR ".join(p[0] for p in parts) + ")", [x for p in parts for x in p[1]]


@dataclass(frozen=True)
class Page:
    """One page of rows, and whether rows follow it."""

    rows: list[sqlite3.Row]
    more: bool


def select_page(
    conn: sqlite3.Connection,
    select: str,
    where: Where,
    order_by: str,
    *,
    offset: int,
    limit: int,
    params: Sequence[Any] = (),
    order_params: Sequence[Any] = (),
) -> Page:
    """`select` (e.g. `SELECT g.uid FROM multicast_groups g`; `params` are its own `?`s)
    filtered by `where`, sorted by `order_by` (whose `?`s are `order_params`), from
    `offset`, at most `limit` rows."""
    rows = conn.execute(
        f"{select} WHERE {where.sql()} ORDER BY {order_by} LIMIT ? OFFSET ?",
        [*params, *where.params, *order_params, limit + 1, offset],
    ).fetchall()
    return Page(rows[:limit], len(rows) > limit)


def count(conn: sqlite3.Connection, source: str, where: Where) -> int:
    """How many rows of `source` (a table and its alias, e.g. `multicast_groups g`) match."""
    return int(
        conn.execute(f"SELECT count(*) FROM {source} WHERE {where.sql()}", where.params).fetchone()[
            0
        ]
    )


def update_versioned(
    conn: sqlite3.Connection, table: str, key: str, value: object, values: dict[str, Any],
    *, now: int, who: str,
) -> None:  # fmt: skip
    """Changes `values` of the row of `table` whose `key` is `value` and moves its occContext
    on (version, last update, who): the settings rows (subscriptions, partners) share it."""
    values = values | {"last_update": now, "who": who}
    sets = ", ".join(f"{column} = ?" for column in values)
    conn.execute(
        f"UPDATE {table} SET {sets}, version = version + 1 WHERE {key} = ?",
        [*values.values(), value],
    )


def marks(values: Sequence[Any]) -> str:
    """`?, ?, ?` for `values` (`NULL` when empty, so `x IN (NULL)` matches nothing)."""
    return ", ".join("?" * len(values)) or "NULL"
