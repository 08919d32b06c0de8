"""Tile test material made on the spot: PNG tiles, an MBTiles file, a local XYZ tile server."""

from __future__ import annotations

import sqlite3
import struct
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from lpwa_console.models.tiles import TileKey


def png(rgb: tuple[int, int, int], size: int = 256) -> bytes:
    """A solid-colour PNG (encoded by hand: no Qt needed)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * size))
        + chunk(b"IEND", b"")
    )


def make_mbtiles(path: Path, tiles: dict[TileKey, bytes], name: str = "Test region") -> Path:
    """An MBTiles file (rows stored bottom-up, as the format says) holding `tiles`."""
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE metadata (name TEXT, value TEXT);"
        "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,"
        " tile_data BLOB);"
    )
    conn.executemany(
        "INSERT INTO metadata VALUES (?, ?)",
        [("name", name), ("format", "png"), ("type", "baselayer")],
    )
    conn.executemany(
        "INSERT INTO tiles VALUES (?, ?, ?, ?)",
        [(k.z, k.x, (1 << k.z) - 1 - k.y, data) for k, data in tiles.items()],
    )
    conn.commit()
    conn.close()
    return path


class TileServer:
    """An XYZ tile server on a free loopback port: /{z}/{x}/{y}.png from a dict. It keeps
    each request's headers, the most requests it served at once (`delay` holds each one),
    sends `cache_headers` with every tile and answers a matching If-None-Match with 304."""

    def __init__(
        self,
        tiles: dict[TileKey, bytes],
        *,
        delay: float = 0.0,
        cache_headers: dict[str, str] | None = None,
    ) -> None:
        self.tiles = tiles
        self.requests: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.delay = delay
        self.cache_headers = dict(cache_headers or {})
        self.active = self.most_at_once = 0
        self.not_modified = 0
        lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                with lock:
                    server.requests.append(self.path)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    server.active += 1
                    server.most_at_once = max(server.most_at_once, server.active)
                try:
                    time.sleep(server.delay)
                    self._answer()
                finally:
                    with lock:
                        server.active -= 1

            def _answer(self) -> None:
                try:
                    z, x, y = (int(p) for p in self.path.strip("/").removesuffix(".png").split("/"))
                    data = server.tiles[TileKey(z, x, y)]
                except (ValueError, KeyError):
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                etag = f'"{zlib.crc32(data):08x}"'
                if self.headers.get("If-None-Match") == etag:
                    server.not_modified += 1
                    self.send_response(304)
                    self.send_header("ETag", etag)
                    for name, value in server.cache_headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("ETag", etag)
                for name, value in server.cache_headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *_args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.template = f"http://127.0.0.1:{self.httpd.server_address[1]}/{{z}}/{{x}}/{{y}}.png"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def tile_server(tiles: dict[TileKey, bytes], **options: Any) -> Iterator[TileServer]:
    server = TileServer(tiles, **options)
    server.thread.start()
    try:
        yield server
    finally:
        server.stop()
