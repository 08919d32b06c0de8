"""Map tiles: the world cut in 2^14 x 2^14 tiles of equal latitude and longitude steps."""

from __future__ import annotations

TILE_LEVEL = 14
TILES = 1 << TILE_LEVEL


def _tile_sql(column: str, low: int, span: int) -> str:
    return (
        f"CASE WHEN {column} BETWEEN {low} AND {low + span} THEN"
        f" min({TILES - 1}, CAST(({column} + {float(-low)}) * {TILES} / {span} AS INTEGER))"
        " END"
    )


TILE_Y_SQL = _tile_sql("lat", -90, 180)
TILE_X_SQL = _tile_sql("lon", -180, 360)
