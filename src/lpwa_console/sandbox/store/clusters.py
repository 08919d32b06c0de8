"""Clusters on the map, for devices and stations alike: map tiles of the finest level at which
the box spans at most GRID x GRID of them, and which level-14 tiles (db.TILE_LEVEL, the
summaries' tiles) the box touches and covers whole; one query and one answer for both
(`cluster_rows`, `cluster_answer`), each entity a `ClusterSource`."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..db import TILE_LEVEL, TILES
from .sql import Where

GRID = 8  # at most 8 x 8 tiles: at most 64 clusters (schema.devices.MAX_CLUSTERS)
MAX_LEVEL = 40  # a box narrower than a level-40 tile (~1e-10 degree) stays one cluster


def tile_index(value: float, low: float, span: float, level: int) -> int:
    """The tile of `value` on its axis at `level`, as TILE_Y_SQL/TILE_X_SQL compute it."""
    tiles = 1 << level
    return min(tiles - 1, max(0, int((value - low) * tiles / span)))


def cluster_level(box: tuple[float, float, float, float]) -> int:
    """The finest tile level at which the box spans at most GRID tiles on each axis."""
    min_lat, min_lon, max_lat, max_lon = box
    level = 0
    while level < MAX_LEVEL:
        finer = level + 1
        rows = tile_index(max_lat, -90, 180, finer) - tile_index(min_lat, -90, 180, finer) + 1
        columns = tile_index(max_lon, -180, 360, finer) - tile_index(min_lon, -180, 360, finer) + 1
        if rows > GRID or columns > GRID:
            break
        level = finer
    return level


def inner_tiles(low: float, high: float, origin: float, span: float) -> tuple[int, int, int, int]:
    """(first, last) tiles at TILE_LEVEL the range [low, high] touches, and (first, last) of
    those entirely inside it (first > last: none). A margin keeps a device whose coordinate
    rounds onto a tile edge out of the tiles taken whole."""
    size = span / TILES
    first, last = (
        tile_index(low, origin, span, TILE_LEVEL),
        tile_index(high, origin, span, TILE_LEVEL),
    )
    margin = 1e-9
    inner_first = first if origin + first * size > low + margin or low <= origin else first + 1
    top = origin + (last + 1) * size
    inner_last = last if top < high - margin or high >= origin + span else last - 1
    return first, last, inner_first, inner_last


@dataclass(frozen=True)
class ClusterSource:
    """Where one fleet entity's rows and map summary live."""

    table: str  # devices
    alias: str  # its alias in the queries, d
    owner: str  # the column of the owning subscription or partner
    tiles: str  # the summary per owner, level-14 tile and domain set (db/fleet_triggers.py)
    tile_index: str  # the index of (owner, tile_y, tile_x, ...) on the table


DEVICE_SOURCE = ClusterSource("devices", "d", "subscription_id", "device_tiles", "ix_devices_tile")
STATION_SOURCE = ClusterSource("stations", "s", "partner_uid", "station_tiles", "ix_stations_tile")


def cluster_rows(
    conn: sqlite3.Connection,
    source: ClusterSource,
    owner: int,
    where: Where,
    restriction: tuple[str, list[Any]],
    box: tuple[float, float, float, float],
    *,
    filtered: bool,
) -> list[sqlite3.Row]:
    """The entities `where` selects in `box` grouped by map tile, at the finest level where
    the box spans at most GRID x GRID tiles: (gy, gx, n, lat, lon, north, east, south, west,
    lowest uid) per tile. `restriction`: the domain restrictions as a test of `t.domain_set`.

    Unfiltered (`filtered` false: the restrictions aside) and at levels up to TILE_LEVEL, the
    tiles entirely inside the box come from the summary and only the entities of the box's
    edge tiles are read; otherwise the entities in the box are grouped in SQL."""
    e = source.alias
    min_lat, min_lon, max_lat, max_lon = box
    level = cluster_level(box)
    in_box = f"{e}.lat BETWEEN ? AND ? AND {e}.lon BETWEEN ? AND ?"
    box_params: list[object] = [min_lat, max_lat, min_lon, max_lon]
    y0, y1, a, b = inner_tiles(min_lat, max_lat, -90, 180)
    x0, x1, c, d = inner_tiles(min_lon, max_lon, -180, 360)
    if level > TILE_LEVEL or filtered or a > b or c > d:
        tiles = 1 << level
        gy = f"min(CAST(({e}.lat + 90.0) * {tiles} / 180 AS INTEGER), {tiles - 1})"
        gx = f"min(CAST(({e}.lon + 180.0) * {tiles} / 360 AS INTEGER), {tiles - 1})"
        sql = (
            f"SELECT {gy} AS gy, {gx} AS gx, count(*), avg({e}.lat), avg({e}.lon), max({e}.lat),"
            f" max({e}.lon), min({e}.lat), min({e}.lon), min({e}.uid) FROM {source.table} {e}"
            f" WHERE {where.sql()} AND {in_box} GROUP BY gy, gx ORDER BY gy, gx"
        )
        return conn.execute(sql, [*where.params, *box_params]).fetchall()
    shift = TILE_LEVEL - level
    restriction_sql, restriction_params = restriction
    parts = [
        f"SELECT t.tile_y >> {shift} AS gy, t.tile_x >> {shift} AS gx, t.n, t.lat_sum,"
        " t.lon_sum, t.lat_max, t.lon_max, t.lat_min, t.lon_min, t.uid_min"
        f" FROM {source.tiles} t WHERE t.{source.owner} = ? AND t.tile_y BETWEEN ? AND ?"
        f" AND t.tile_x BETWEEN ? AND ? AND {restriction_sql}"
    ]
    params: list[object] = [owner, a, b, c, d, *restriction_params]
    # The edge tiles: a row below and above the inner ones, a column left and right (of
    # the column, only the tiles the summary says are occupied).
    edges: list[tuple[str, list[object]]] = []
    if y0 < a:
        edges.append((f"{e}.tile_y = ? AND {e}.tile_x BETWEEN ? AND ?", [y0, x0, x1]))
    if y1 > b:
        edges.append((f"{e}.tile_y = ? AND {e}.tile_x BETWEEN ? AND ?", [y1, x0, x1]))
    for x, inside in ((x0, x0 < c), (x1, x1 > d)):
        if inside:
            occupied = (
                f"SELECT DISTINCT tile_y FROM {source.tiles} WHERE {source.owner} = ?"
                " AND tile_y BETWEEN ? AND ? AND tile_x = ?"
            )
            edges.append((f"{e}.tile_y IN ({occupied}) AND {e}.tile_x = ?", [owner, a, b, x, x]))
    for test, edge_params in edges:
        parts.append(
            f"SELECT {e}.tile_y >> {shift}, {e}.tile_x >> {shift}, 1, {e}.lat, {e}.lon, {e}.lat,"
            f" {e}.lon, {e}.lat, {e}.lon, {e}.uid FROM {source.table} {e}"
            f" INDEXED BY {source.tile_index} WHERE {where.sql()} AND {test} AND {in_box}"
        )
        params += [*where.params, *edge_params, *box_params]
    sql = (
        "SELECT gy, gx, sum(n), sum(lat_sum) / sum(n), sum(lon_sum) / sum(n), max(lat_max),"
        " max(lon_max), min(lat_min), min(lon_min), min(uid_min)"
        f" FROM ({' UNION ALL '.join(parts)}) GROUP BY gy, gx ORDER BY gy, gx"
    )
    return conn.execute(sql, params).fetchall()


def cluster_answer(
    rows: Sequence[sqlite3.Row],
    items_of: Callable[[list[int]], dict[int, dict[str, Any]]],
) -> tuple[int, list[dict[str, Any]]]:
    """(total, clusters) of `cluster_rows`; a cluster of one carries its entity, from
    `items_of` (the wire briefs of those uids, by uid)."""
    items = items_of(sorted({r[9] for r in rows if r[2] == 1}))
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
