"""Clusters of base stations on the map, by the devices' query (store/clusters.py): map
tiles of the finest level at which the box spans at most 8 x 8 of them. Without filters, the
tiles entirely inside the box come from `station_tiles` and only the stations of the edge
tiles are read; otherwise the stations in the box are grouped in SQL. A cluster of one
carries the station (with `rfProbe`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema.domains import DomainRestrictions
from .clusters import STATION_SOURCE, cluster_answer, cluster_rows
from .sql import Where
from .stations import BASE_HREF, briefs, restriction_sql


def clusters(
    conn: sqlite3.Connection,
    partner_uid: int,
    where: Where,
    restrictions: DomainRestrictions | None,
    box: tuple[float, float, float, float],
    *,
    filtered: bool,
    base: str = BASE_HREF,
) -> tuple[int, list[dict[str, Any]]]:
    """(total, clusters) of the stations `where` selects inside `box`; `base`: the stations'
    path the reader follows (`stations.station_base`)."""
    rows = cluster_rows(
        conn,
        STATION_SOURCE,
        partner_uid,
        where,
        restriction_sql(restrictions, "t.domain_set"),
        box,
        filtered=filtered,
    )
    # Briefs come in the order of the uids asked for.
    return cluster_answer(
        rows, lambda uids: dict(zip(uids, briefs(conn, uids, base=base), strict=False))
    )
