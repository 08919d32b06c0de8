"""Clusters on the map, for devices and stations alike: map tiles of the finest level at which
the box spans at most GRID x GRID of them, and which level-14 tiles (db.TILE_LEVEL, the
summaries' tiles) the box touches and covers whole."""

from __future__ import annotations

from ..db import TILE_LEVEL, TILES

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
