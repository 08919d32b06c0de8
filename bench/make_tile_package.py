"""Write an MBTiles tile package of a region, as a test pattern (tile grid, z/x/y labels).

No map data can be fetched on these machines, so this makes a package in the real format to
try the map's street-level layer with: `./dev bench make_tile_package OUT.mbtiles --bbox
45.70,4.75,45.82,4.95 --zooms 10-16` (Lyon), then Map > Basemap > Tile package.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRect, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QImage, QPainter, QPen

TILE = 256


def tile_xy(lat: float, lon: float, z: int) -> tuple[int, int]:
    n = 1 << z
    x = int((lon + 180.0) / 360.0 * n)
    rad = math.radians(lat)
    y = int((1.0 - math.asinh(math.tan(rad)) / math.pi) / 2.0 * n)
    return min(max(x, 0), n - 1), min(max(y, 0), n - 1)


def render(z: int, x: int, y: int) -> bytes:
    image = QImage(TILE, TILE, QImage.Format.Format_RGB32)
    shade = 236 - (x + y) % 2 * 8
    image.fill(QColor(shade, shade - 2, shade - 10))
    painter = QPainter(image)
    painter.setPen(QPen(QColor(200, 196, 186), 1))
    for i in range(0, TILE, 32):  # a street-like grid
        painter.drawLine(i, 0, i, TILE)
        painter.drawLine(0, i, TILE, i)
    painter.setPen(QPen(QColor(150, 140, 120), 2))
    painter.drawRect(QRect(0, 0, TILE - 1, TILE - 1))
    painter.setPen(QColor(90, 90, 90))
    font = QFont()
    font.setPixelSize(14)
    painter.setFont(font)
    painter.drawText(QRect(0, 0, TILE, TILE), Qt.AlignmentFlag.AlignCenter, f"{z}/{x}/{y}")
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--bbox", default="45.70,4.75,45.82,4.95", help="minLat,minLon,maxLat,maxLon"
    )
    parser.add_argument("--zooms", default="10-16", help="first-last zoom level")
    args = parser.parse_args(argv)
    min_lat, min_lon, max_lat, max_lon = (float(v) for v in args.bbox.split(","))
    first, last = (int(v) for v in args.zooms.split("-"))
    QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    args.out.unlink(missing_ok=True)
    conn = sqlite3.connect(args.out)
    conn.executescript(
        "CREATE TABLE metadata (name TEXT, value TEXT);"
        "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,"
        " tile_data BLOB, PRIMARY KEY (zoom_level, tile_column, tile_row));"
    )
    conn.executemany(
        "INSERT INTO metadata VALUES (?, ?)",
        [("name", "Test pattern"), ("format", "png"), ("bounds", args.bbox),
         ("minzoom", str(first)), ("maxzoom", str(last)), ("type", "baselayer")],
    )  # fmt: skip
    count = 0
    for z in range(first, last + 1):
        x0, y0 = tile_xy(max_lat, min_lon, z)
        x1, y1 = tile_xy(min_lat, max_lon, z)
        rows = [
            (z, x, (1 << z) - 1 - y, render(z, x, y))
            for x in range(x0, x1 + 1)
            for y in range(y0, y1 + 1)
        ]
        conn.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)", rows)
        count += len(rows)
    conn.commit()
    conn.close()
    print(f"{args.out}: {count} tiles, zoom {first}-{last}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
