"""Clusters of base stations on the map, as the devices' (store/devices.py `clusters`):
map tiles of the finest level at which the box spans at most 8 x 8 of them (so at most 64
clusters). Without filters, the tiles entirely inside the box come from `station_tiles`
(kept by triggers) and only the stations of the edge tiles are read; otherwise the stations
in the box are grouped in SQL. A cluster of one carries the station (with `rfProbe`)."""

from __future__ import annotations

import sqlite3
from typing import Any

from ...schema.domains import DomainRestrictions
from ..db import TILE_LEVEL
from .clusters import cluster_level, inner_tiles
from .sql import Where
from .stations import briefs, restriction_sql


def clusters(
    conn: sqlite3.Connection,
    partner_uid: int,
    where: Where,
    restrictions: DomainRestrictions | None,
    box: tuple[float, float, float, float],
    *,
    filtered: bool,
) -> tuple[int, list[dict[str, Any]]]:
    """(total, clusters) of the stations `where` selects inside `box`."""
    min_lat, min_lon, max_lat, max_lon = box
    level = cluster_level(box)
    in_box = "s.lat BETWEEN ? AND ? AND s.lon BETWEEN ? AND ?"
    box_params: list[object] = [min_lat, max_lat, min_lon, max_lon]
    y0, y1, a, b = inner_tiles(min_lat, max_lat, -90, 180)
    x0, x1, c, d = inner_tiles(min_lon, max_lon, -180, 360)
    if level > TILE_LEVEL or filtered or a > b or c > d:
        tiles = 1 << level
        gy = f"min(CAST((s.lat + 90.0) * {tiles} / 180 AS INTEGER), {tiles - 1})"
        gx = f"min(CAST((s.lon + 180.0) * {tiles} / 360 AS INTEGER), {tiles - 1})"
        sql = (
            f"SELECT {gy} AS gy, {gx} AS gx, count(*), avg(s.lat), avg(s.lon), max(s.lat),"
            " max(s.lon), min(s.lat), min(s.lon), min(s.uid) FROM stations s"
            f" WHERE {where.sql()} AND {in_box} GROUP BY gy, gx ORDER BY gy, gx"
        )
        rows = conn.execute(sql, [*where.params, *box_params]).fetchall()
    else:
        shift = TILE_LEVEL - level
        restriction, restriction_params = restriction_sql(restrictions, "t.domain_set")
        parts = [
            f"SELECT t.tile_y >> {shift} AS gy, t.tile_x >> {shift} AS gx, t.n, t.lat_sum,"
            " t.lon_sum, t.lat_max, t.lon_max, t.lat_min, t.lon_min, t.uid_min"
            " FROM station_tiles t WHERE t.partner_uid = ? AND t.tile_y BETWEEN ? AND ?"
            f" AND t.tile_x BETWEEN ? AND ? AND {restriction}"
        ]
        params: list[object] = [partner_uid, a, b, c, d, *restriction_params]
        edges: list[tuple[str, list[object]]] = []
        if y0 < a:
            edges.append(("s.tile_y = ? AND s.tile_x BETWEEN ? AND ?", [y0, x0, x1]))
        if y1 > b:
            edges.append(("s.tile_y = ? AND s.tile_x BETWEEN ? AND ?", [y1, x0, x1]))
        for x, inside in ((x0, x0 < c), (x1, x1 > d)):
            if inside:
                edges.append(("s.tile_y BETWEEN ? AND ? AND s.tile_x = ?", [a, b, x]))
        for test, edge_params in edges:
            parts.append(
                f"SELECT s.tile_y >> {shift}, s.tile_x >> {shift}, 1, s.lat, s.lon, s.lat,"
                " s.lon, s.lat, s.lon, s.uid FROM stations s INDEXED BY ix_stations_tile"
                f" WHERE {where.sql()} AND {test} AND {in_box}"
            )
            params += [*where.params, *edge_params, *box_params]
        sql = (
            "SELECT gy, gx, sum(n), sum(lat_sum) / sum(n), sum(lon_sum) / sum(n), max(lat_max),"
            " max(lon_max), min(lat_min), min(lon_min), min(uid_min)"
            f" FROM ({' UNION ALL '.join(parts)}) GROUP BY gy, gx ORDER BY gy, gx"
        )
        rows = conn.execute(sql, params).fetchall()
    singles = sorted({r[9] for r in rows if r[2] == 1})
    items = dict(zip(singles, briefs(conn, singles), strict=False))
    out: list[dict[str, Any]] = []
    total = 0
    for _gy, _gx, n, lat, lon, ne_lat, ne_lon, sw_lat, sw_lon, uid in rows:
        total += n
        cluster: dict[str, Any] = {
            "count": n,
            "location": {"lat": lat, "lng": lon},
            "bbox": {
                "northeast": {"lat": ne_lat, "lng": ne_lon},
                "southwest": {"lat": sw_lat, "lng": sw_lon},
            },
        }
        if n == 1 and uid in items:
            cluster["item"] = items[uid]
        out.append(cluster)
    return total, out
