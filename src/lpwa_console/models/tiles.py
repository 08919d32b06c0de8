"""Street-level basemap tiles for the map: an offline tile package or an online tile server.

Field laptops are often offline, so the first source is a file: an MBTiles package (a SQLite
database of raster tiles, the format every tile tool writes) for the user's region. The
default, when the machine is online, is OpenStreetMap's street map; the user may give another
online XYZ tile server instead. Every tile a server sends is kept in an on-disk cache (as long as
its Cache-Control/Expires allow, then asked again conditionally), so the places already seen
keep working offline. The bundled world outline of the map pane stays underneath as the
fallback. OpenStreetMap's tile usage policy is kept for every server: a User-Agent naming the
application, its version and a contact URL, at most two connections, the server's cache headers
honoured, no cache-busting headers, and only the tiles of the view asked for (no prefetch).

Tiles use the XYZ scheme of Web Mercator (z, x, y with y = 0 at the north edge), the
projection of the map pane. MBTiles stores rows bottom-up (TMS): row = 2^z - 1 - y.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
import re
import sqlite3
import threading
import time
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import NamedTuple, Protocol
from urllib.parse import urlsplit

import httpx
from PySide6.QtCore import QObject, QSettings, Signal

from .. import __version__
from .latest import Latest
from .tasks import in_thread

log = logging.getLogger(__name__)

TILE_PX = 256
MAX_INFLIGHT = 6
MAX_WANTED = 400  # tiles of one view: more means the zoom level is wrong, ask for none
ONLINE_MAX_ZOOM = 19
ONLINE_TIMEOUT_S = 10.0
# The application and its version, as the tile usage policy asks; a contact address joins it
# once the project has a public page (none is invented here).
USER_AGENT = f"LPWA-Console/{__version__} (desktop console for IoT networks)"
MAX_CONNECTIONS = 2  # OpenStreetMap's tile usage policy: at most two
DEFAULT_MAX_AGE_S = 7 * 24 * 3600  # a tile sent without cache headers: the policy's 7 days
STREET_TEMPLATE = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
STREET_LABEL = "OpenStreetMap"
STREET_ATTRIBUTION = "© OpenStreetMap contributors"
OFFLINE_NOTICE = (
    "The street map needs an internet connection, or a tile package for offline work"
    " (Basemap ▸ Tile package)"
)


class TileKey(NamedTuple):
    z: int
    x: int
    y: int


class TileSourceError(Exception):
    """A tile source that cannot be used, with the reason in words."""


class TileSource(Protocol):
    label: str
    min_zoom: int
    max_zoom: int
    attribution: str

    async def fetch(self, key: TileKey) -> bytes | None: ...

    def close(self) -> None: ...


# --- geometry -----------------------------------------------------------------------------


def zoom_for_scale(scale: float, min_zoom: int, max_zoom: int) -> int:
    """The tile zoom whose pixels best match `scale` (screen pixels per degree of longitude
    in the map's scene), within the source's levels. Past its deepest level the deepest
    tiles are stretched."""
    if scale <= 0:
        return min_zoom
    z = round(math.log2(scale * 360.0 / TILE_PX))
    return max(min_zoom, min(max_zoom, z))


def tile_span(z: int) -> float:
    """The width (and height) of one tile of zoom `z` in scene units (the world is 360)."""
    return 360.0 / (1 << z)


def tiles_for_rect(left: float, top: float, right: float, bottom: float, z: int) -> list[TileKey]:
    """The tiles of zoom `z` that cover this scene rectangle (-180..180 both ways, north at
    -180), nearest the centre first so the middle of the screen fills first."""
    n = 1 << z
    span = tile_span(z)

    def index(v: float) -> int:
        return max(0, min(n - 1, math.floor((v + 180.0) / span)))

    x0, x1, y0, y1 = index(left), index(right), index(top), index(bottom)
    if (x1 - x0 + 1) * (y1 - y0 + 1) > MAX_WANTED:
        return []
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    keys = [TileKey(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    keys.sort(key=lambda k: (k.x - cx) ** 2 + (k.y - cy) ** 2)
    return keys


# --- sources ------------------------------------------------------------------------------


class MBTilesSource:
    """Raster tiles from an MBTiles file, read-only, off the UI thread."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise TileSourceError(f"{self.path.name}: no such file")
        try:
            conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
            )
            meta = dict(conn.execute("SELECT name, value FROM metadata").fetchall())
            levels = conn.execute("SELECT min(zoom_level), max(zoom_level) FROM tiles").fetchone()
        except sqlite3.DatabaseError as exc:
            raise TileSourceError(
                f"{self.path.name} is not an MBTiles tile package ({exc})"
            ) from None
        if levels is None or levels[0] is None:
            conn.close()
            raise TileSourceError(f"{self.path.name} holds no tiles")
        fmt = str(meta.get("format", "png")).lower()
        if fmt not in ("png", "jpg", "jpeg", "webp"):
            conn.close()
            raise TileSourceError(
                f"{self.path.name} holds '{fmt}' tiles; the map shows raster tiles (PNG, JPEG)"
            )
        self._conn = conn
        self._lock = threading.Lock()
        self.label = str(meta.get("name") or self.path.stem)
        self.min_zoom, self.max_zoom = int(levels[0]), int(levels[1])
        # Packages often hold an HTML link: the map draws plain text.
        self.attribution = re.sub(r"<[^>]*>", "", str(meta.get("attribution", ""))).strip()

    def read(self, key: TileKey) -> bytes | None:
        row_tms = (1 << key.z) - 1 - key.y
        with self._lock:
            row = self._conn.execute(
                "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ?"
                " AND tile_row = ?",
                (key.z, key.x, row_tms),
            ).fetchone()
        return bytes(row[0]) if row else None

    async def fetch(self, key: TileKey) -> bytes | None:
        return await in_thread(self.read, key)

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def check_template(template: str) -> str:
    """The URL template as given, or TileSourceError saying what is wrong with it."""
    template = template.strip()
    parts = urlsplit(template)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise TileSourceError("The tile address must start with https:// (or http://)")
    missing = [p for p in ("{z}", "{x}", "{y}") if p not in template]
    if missing:
        raise TileSourceError(
            "The tile address needs the placeholders {z}, {x} and {y}; missing: "
            + ", ".join(missing)
        )
    return template


def expiry(headers: httpx.Headers, now: float) -> float | None:
    """When a response stops being fresh (epoch seconds) by its Cache-Control or Expires;
    None when it must not be stored (no-store)."""
    control = headers.get("cache-control", "").lower()
    if "no-store" in control:
        return None
    if "no-cache" in control:
        return now  # stored, but asked again (conditionally) before each use
    age = 0.0
    with contextlib.suppress(ValueError):
        age = float(headers.get("age", "0"))
    found = re.search(r"(?:^|,)\s*max-age\s*=\s*(\d+)", control)
    if found:
        return now + int(found.group(1)) - age
    expires = headers.get("expires")
    if expires:
        try:
            return parsedate_to_datetime(expires).timestamp()
        except (TypeError, ValueError):
            return now  # an invalid date means already expired (RFC 9111)
    return now + DEFAULT_MAX_AGE_S


class CachedTile(NamedTuple):
    data: bytes
    expires: float
    etag: str
    last_modified: str


class OnlineTileSource:
    """XYZ tiles from a tile server, each kept on disk: what was seen once works offline."""

    def __init__(
        self,
        template: str,
        cache_root: Path,
        *,
        http: httpx.AsyncClient | None = None,
        max_zoom: int = ONLINE_MAX_ZOOM,
        label: str = "",
        attribution: str = "",
    ) -> None:
        self.template = check_template(template)
        self.label = label or urlsplit(self.template).netloc
        self.min_zoom, self.max_zoom = 0, max_zoom
        digest = hashlib.sha256(self.template.encode()).hexdigest()[:16]
        self.cache_dir = Path(cache_root) / digest
        self._own_http = http is None
        self._http = http or httpx.AsyncClient(
            timeout=ONLINE_TIMEOUT_S,
            headers={"User-Agent": USER_AGENT},
            follow_redirects=True,
            limits=httpx.Limits(
                max_connections=MAX_CONNECTIONS, max_keepalive_connections=MAX_CONNECTIONS
            ),
        )
        # The pool's limit binds only our own client; this one binds an injected one too.
        self._connections = asyncio.Semaphore(MAX_CONNECTIONS)
        self.offline = False  # the last request could not reach the server
        self.missing_offline = False  # a tile was not shown because the server is unreachable
        self.attribution = attribution

    def cache_path(self, key: TileKey) -> Path:
        return self.cache_dir / str(key.z) / str(key.x) / f"{key.y}.tile"

    def _read_cached(self, key: TileKey) -> CachedTile | None:
        path = self.cache_path(key)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            meta = json.loads(path.with_suffix(".meta").read_text("utf-8"))
        except (OSError, ValueError):
            meta = {}  # a tile cached before the headers were kept: asked again when online
        return CachedTile(
            data,
            float(meta.get("expires", 0.0)),
            str(meta.get("etag", "")),
            str(meta.get("last_modified", "")),
        )

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.{threading.get_ident()}.part")
        partial.write_bytes(data)
        try:
            partial.replace(path)  # atomic: a reader never sees half a tile
        except PermissionError:
            # Windows refuses to replace a file another handle has open (a reader of the
            # same tile, which another fetch just wrote): that tile is there; drop ours.
            partial.unlink(missing_ok=True)

    def _write_cached(self, key: TileKey, tile: CachedTile) -> None:
        path = self.cache_path(key)
        meta = {"expires": tile.expires, "etag": tile.etag, "last_modified": tile.last_modified}
        self._write(path.with_suffix(".meta"), json.dumps(meta).encode())
        self._write(path, tile.data)

    async def fetch(self, key: TileKey) -> bytes | None:
        cached = await in_thread(self._read_cached, key)
        if cached is not None and cached.expires > time.time():
            return cached.data  # fresh: the server is not asked
        url = self.template.format(z=key.z, x=key.x, y=key.y, s="a")
        headers = {}  # only validators: never no-cache or Pragma
        if cached is not None and cached.etag:
            headers["If-None-Match"] = cached.etag
        if cached is not None and cached.last_modified:
            headers["If-Modified-Since"] = cached.last_modified
        try:
            async with self._connections:
                response = await self._http.get(url, headers=headers)
        except httpx.HTTPError as exc:
            if not self.offline:
                log.info("tile server unreachable: %s", type(exc).__name__)
            self.offline = True
            if cached is None:
                self.missing_offline = True
            return cached.data if cached is not None else None  # stale beats nothing
        self.offline = self.missing_offline = False
        expires = expiry(response.headers, time.time())
        if response.status_code == 304 and cached is not None:
            if expires is not None:
                kept = cached._replace(expires=expires)
                await in_thread(self._write_cached, key, kept)
            return cached.data
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not kind.startswith("image/"):
            return cached.data if cached is not None else None
        data = response.content
        if expires is not None:
            tile = CachedTile(
                data,
                expires,
                response.headers.get("etag", ""),
                response.headers.get("last-modified", ""),
            )
            await in_thread(self._write_cached, key, tile)
        return data

    def close(self) -> None:
        if self._own_http:
            # No loop any more means the process is ending: nothing to close politely.
            with contextlib.suppress(RuntimeError):
                self._closing = asyncio.get_running_loop().create_task(self._http.aclose())


# --- the view-model -----------------------------------------------------------------------

WORLD, PACKAGE, ONLINE, STREET = "world", "mbtiles", "online", "street"


class TileLayerViewModel(QObject):
    """Which basemap the map shows, and the tiles of the current view, fetched a few at a
    time, newest view first; tiles of a view the user has left are not fetched."""

    tile_ready = Signal(object, bytes)  # TileKey, encoded image
    source_changed = Signal()
    status_changed = Signal(str)

    def __init__(
        self,
        settings: QSettings,
        cache_root: Path,
        *,
        http: httpx.AsyncClient | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.cache_root = Path(cache_root)
        self._http = http
        self.source: TileSource | None = None
        self.kind = WORLD
        self.status = ""
        self.notice = ""  # said on the map: why the street map is not drawn
        self._said_notice = ""
        self._latest = Latest()
        self._wanted: list[TileKey] = []
        self._inflight: set[TileKey] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    # --- choosing a basemap ----------------------------------------------------------

    @property
    def attribution(self) -> str:
        """The credit the source asks to be shown on the map ('' for the world outline)."""
        return self.source.attribution if self.source is not None else ""

    def restore(self) -> None:
        """The basemap of the last session (the street map for a new user); one that no
        longer opens falls back to the world outline and says why."""
        kind = str(self.settings.value("map/basemap", STREET))
        error = None
        if kind == STREET:
            error = self.use_street()
        elif kind == PACKAGE:
            error = self.use_package(Path(str(self.settings.value("map/package", ""))))
        elif kind == ONLINE:
            error = self.use_online(str(self.settings.value("map/tile_url", "")))
        if error:
            self._set_source(None, WORLD, f"Showing the world outline: {error}", save=False)

    def use_world(self) -> None:
        self._set_source(None, WORLD, "")

    def follow_offline(self, package: Path | None) -> None:
        """Field mode: offline, the tile package of the snapshot (not saved as the user's
        basemap); back online (None), the user's basemap again."""
        if package is None:
            self.restore()
            return
        try:
            source = MBTilesSource(package)
        except TileSourceError as exc:
            self._set_source(None, WORLD, f"Showing the world outline: {exc}", save=False)
            return
        self._set_source(source, PACKAGE, "Tiles: the offline snapshot's street map", save=False)

    def use_package(self, path: Path) -> str | None:
        """Open an MBTiles file; returns the reason in words when it cannot be used."""
        try:
            source = MBTilesSource(path)
        except TileSourceError as exc:
            return str(exc)
        self.settings.setValue("map/package", str(path))
        levels = f"zoom {source.min_zoom}-{source.max_zoom}"
        self._set_source(source, PACKAGE, f"Tiles: {source.label} ({levels}, offline)")
        return None

    def use_street(self) -> str | None:
        """OpenStreetMap's street map (`map/street_url` may name another server of the same
        tiles, e.g. a mirror or a test server)."""
        template = str(self.settings.value("map/street_url", "") or STREET_TEMPLATE)
        try:
            source = OnlineTileSource(
                template,
                self.cache_root,
                http=self._http,
                label=STREET_LABEL,
                attribution=STREET_ATTRIBUTION,
            )
        except TileSourceError as exc:
            return str(exc)
        self._set_source(source, STREET, f"Street map: {STREET_LABEL} (cached for offline use)")
        return None

    def use_online(self, template: str) -> str | None:
        try:
            source = OnlineTileSource(template, self.cache_root, http=self._http)
        except TileSourceError as exc:
            return str(exc)
        self.settings.setValue("map/tile_url", source.template)
        self._set_source(source, ONLINE, f"Tiles: {source.label} (cached for offline use)")
        return None

    def _set_source(
        self, source: TileSource | None, kind: str, status: str, save: bool = True
    ) -> None:
        self._cancel()
        if self.source is not None:
            self.source.close()
        self.source, self.kind = source, kind
        self.notice = ""
        if save:
            self.settings.setValue("map/basemap", kind)
        self._set_status(status)
        self.source_changed.emit()

    def _set_status(self, text: str) -> None:
        if text != self.status or self.notice != self._said_notice:
            self._said_notice = self.notice
            self.status = text
            self.status_changed.emit(text)

    # --- fetching ------------------------------------------------------------------

    def want(self, keys: list[TileKey]) -> None:
        """The tiles the view needs now, most wanted first (those it has are left out)."""
        self._wanted = [k for k in keys if k not in self._inflight]
        self._pump()

    def _pump(self) -> None:
        source = self.source
        while source is not None and self._wanted and len(self._inflight) < MAX_INFLIGHT:
            key = self._wanted.pop(0)
            self._inflight.add(key)
            task = asyncio.ensure_future(self._fetch(source, key, self._latest.ticket))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _fetch(self, source: TileSource, key: TileKey, generation: int) -> None:
        try:
            data = await source.fetch(key)
        except Exception as exc:  # a broken tile is a gap in the map, not a failure
            log.info("tile %s failed: %s", key, type(exc).__name__)
            data = None
        finally:
            self._inflight.discard(key)
        if not self._latest.is_current(generation):
            return  # the source changed meanwhile
        if data:
            self.tile_ready.emit(key, data)
        if isinstance(source, OnlineTileSource):
            offline = "offline: showing cached tiles only" if source.offline else ""
            base = "Street map" if self.kind == STREET else "Tiles"
            self.notice = OFFLINE_NOTICE if source.missing_offline else ""
            self._set_status(f"{base}: {source.label} ({offline or 'cached for offline use'})")
        self._pump()

    def _cancel(self) -> None:
        self._latest.advance()
        self._wanted = []
        self._inflight.clear()
        for task in list(self._tasks):
            task.cancel()

    def close(self) -> None:
        self._cancel()
        if self.source is not None:
            self.source.close()
            self.source = None
