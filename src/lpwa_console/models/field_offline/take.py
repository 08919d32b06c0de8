"""Taking a region offline: its devices and base stations with their details and recent
alarms, as the platform answers them, into a snapshot (`store`), and the street map's tiles
of the region (zoom 10 to 16) into an MBTiles tile package beside it.

`estimate` says the size before anything is fetched (items by the lists' counts, tiles by
the region's box); `take` fetches it with progress, a few requests at a time. Cancelled or
failed, it leaves the last snapshot as it was (SnapshotWriter, and the tiles' file written
beside the old one and moved in)."""

from __future__ import annotations

import asyncio
import math
import os
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ...api import LpwaClient
from ...api.errors import APIStatusError
from ..tasks import in_thread
from .offline_edits import DEVICES_PATH, STATIONS_PATH
from .paths import SNAPSHOT_FILE, TILES_FILE
from .store import DEVICE_ALARMS, DEVICES, STATIONS, SnapshotWriter, item_id, response_key

ZOOMS = range(10, 17)
PAGE = 1000
PARALLEL = 16  # requests at once: a platform far away answers each in ~100 ms
BATCH = 500  # answers written to the snapshot at once, off the UI thread
# Sizes for the estimate: a street map's PNG tile, a device's or station's detail and list
# item with its alarms (measured on the sandbox and OpenStreetMap's tiles: docs).
TILE_KB = 14.0
ITEM_KB = 3.0
ALARMS_PATH = f"{DEVICES_PATH}/alarms"
SUBSCRIPTION_PATH = "/subscriptions/mine"

Box = tuple[float, float, float, float]  # south, west, north, east
Progress = Callable[[int, int, str], None]  # done, total, what


@dataclass(frozen=True)
class Region:
    """A box of the map, a domain (`group:name`) or a tag."""

    kind: str  # "box", "domain", "tag"
    box: Box | None = None
    value: str = ""

    def params(self) -> list[tuple[str, str]]:
        if self.kind == "box" and self.box is not None:
            keys = ("minLat", "minLon", "maxLat", "maxLon")
            return [(k, repr(v)) for k, v in zip(keys, self.box, strict=True)]
        if self.kind in ("domain", "tag") and self.value:
            return [(self.kind, self.value)]
        return []

    @property
    def words(self) -> str:
        if self.kind == "box" and self.box is not None:
            s, w, n, e = self.box
            return f"the box {s:.4f}, {w:.4f} to {n:.4f}, {e:.4f}"
        return f"the {self.kind} “{self.value}”"

    def as_meta(self) -> dict[str, Any]:
        return {"kind": self.kind, "box": list(self.box) if self.box else None, "value": self.value}


@dataclass
class Estimate:
    devices: int
    stations: int
    tiles: int
    box: Box | None

    @property
    def megabytes(self) -> float:
        return (self.tiles * TILE_KB + (self.devices + self.stations) * ITEM_KB) / 1024

    @property
    def words(self) -> str:
        return (
            f"{self.devices:,} devices, {self.stations:,} base stations and {self.tiles:,}"
            f" map tiles (zoom {ZOOMS.start} to {ZOOMS.stop - 1}): about {self.megabytes:,.0f} MB"
        )


def tile_xy(lat: float, lon: float, z: int) -> tuple[int, int]:
    n = 1 << z
    x = int((lon + 180.0) / 360.0 * n)
    lat = max(min(lat, 85.0511), -85.0511)
    y = int((1.0 - math.asinh(math.tan(math.radians(lat))) / math.pi) / 2.0 * n)
    return min(max(x, 0), n - 1), min(max(y, 0), n - 1)


def tile_keys(box: Box, zooms: Iterable[int] = ZOOMS) -> list[tuple[int, int, int]]:
    south, west, north, east = box
    keys = []
    for z in zooms:
        x0, y0 = tile_xy(north, west, z)
        x1, y1 = tile_xy(south, east, z)
        keys += [(z, x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1)]
    return keys


def box_of(items: Iterable[dict[str, Any]]) -> Box | None:
    points = [
        (float(i["lat"]), float(i["lon"]))
        for i in items
        if isinstance(i.get("lat"), (int, float)) and isinstance(i.get("lon"), (int, float))
    ]
    if not points:
        return None
    lats, lons = [p[0] for p in points], [p[1] for p in points]
    return min(lats), min(lons), max(lats), max(lons)


async def _parallel(calls: Iterable[Callable[[], Awaitable[None]]]) -> None:
    """PARALLEL workers take the calls in turn (not one task per call: making 10,000 tasks
    at once holds the UI thread for a tenth of a second). `calls` is best a generator: a
    list of 10,000 closures is as many objects more for the garbage collector to walk."""
    waiting = iter(calls)

    async def worker() -> None:
        for call in waiting:
            await call()

    await asyncio.gather(*(worker() for _ in range(PARALLEL)))


class SnapshotTaker:
    def __init__(
        self,
        client: LpwaClient,
        folder: Path,
        tile_template: str,
        *,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.client = client
        self.folder = Path(folder)
        self.tile_template = tile_template
        self._http = http
        self._briefs: dict[str, list[dict[str, Any]]] = {}
        self.missing_tiles = 0  # tiles the street map did not give
        self._tiles_conn: sqlite3.Connection | None = None
        self.phase_s: dict[str, float] = {}  # how long each part took (the bench's figures)
        # One thread writes the files, in the order asked: SQLite's work stays off the UI
        # thread, and one connection is never used by two threads at once.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="snapshot")

    async def _write(self, call: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self._writer, call, *args)

    async def _count(self, path: str, region: Region) -> int:
        params = [("pageIndex", "1"), ("pageSize", "10"), *region.params()]
        try:
            page = (await self.client.request("GET", path, params=params)).json()
        except APIStatusError:
            return 0  # an account without stations
        return int(page.get("count") or len(page.get("briefs") or []))

    async def _list(self, path: str, region: Region, sort: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params = [("pageSize", str(PAGE)), ("sort", sort), *region.params()]
            if cursor:
                params.append(("pageAfter", cursor))
            try:
                page = (await self.client.request("GET", path, params=params)).json()
            except APIStatusError:
                if path == STATIONS_PATH:
                    return items
                raise
            items += page.get("briefs") or []
            cursor = (page.get("cursors") or {}).get("last")
            if not page.get("more") or not cursor:
                return items

    async def estimate(self, region: Region) -> Estimate:
        devices = await self._count(DEVICES_PATH, region)
        stations = await self._count(STATIONS_PATH, region)
        box = region.box
        if box is None:  # a domain or a tag: the box of its items
            self._briefs[DEVICES] = await self._list(DEVICES_PATH, region, "EUI,asc")
            self._briefs[STATIONS] = await self._list(STATIONS_PATH, region, "lrrID,asc")
            box = box_of(self._briefs[DEVICES] + self._briefs[STATIONS])
        tiles = len(tile_keys(box)) if box is not None else 0
        return Estimate(devices, stations, tiles, box)

    async def take(
        self,
        region: Region,
        estimate: Estimate,
        progress: Progress,
        meta: dict[str, Any] | None = None,
    ) -> None:
        """Fetch the region; `meta`: what else the snapshot says (the account's name)."""
        writer = SnapshotWriter(self.folder / SNAPSHOT_FILE)
        writer.set_meta(**(meta or {}))
        tiles_partial = self.folder / (TILES_FILE + ".partial")
        try:
            await self._take(writer, region, estimate, progress, tiles_partial)
        except BaseException:
            # After the writes under way (one thread owns the files), then nothing is left.
            self._writer.submit(writer.discard).result()
            self._writer.submit(self._close_tiles).result()
            tiles_partial.unlink(missing_ok=True)
            self._writer.shutdown(wait=False)
            raise
        await self._write(writer.commit)  # the file's sync takes a while: off the UI
        if tiles_partial.exists():
            os.replace(tiles_partial, self.folder / TILES_FILE)
        self._writer.shutdown(wait=False)

    async def _take(
        self,
        writer: SnapshotWriter,
        region: Region,
        estimate: Estimate,
        progress: Progress,
        tiles_partial: Path,
    ) -> None:
        total = estimate.devices + estimate.stations + estimate.tiles + 2
        done = 0

        clock = time.perf_counter()

        def phase(name: str) -> None:
            nonlocal clock
            now = time.perf_counter()
            self.phase_s[name] = round(now - clock, 1)
            clock = now

        def step(what: str, count: int = 1) -> None:
            nonlocal done
            done += count
            progress(done, max(total, done), what)

        subscription = await self.client.request("GET", SUBSCRIPTION_PATH)
        writer.put_response(response_key(SUBSCRIPTION_PATH), subscription.content)
        devices = self._briefs.get(DEVICES) or await self._list(DEVICES_PATH, region, "EUI,asc")
        stations = self._briefs.get(STATIONS)
        if stations is None:
            stations = await self._list(STATIONS_PATH, region, "lrrID,asc")
        await self._write(
            writer.put_items, DEVICES, [(item_id(DEVICES, d), "", d) for d in devices]
        )
        await self._write(
            writer.put_items, STATIONS, [(item_id(STATIONS, s), "", s) for s in stations]
        )
        step("Lists of devices and base stations")
        phase("lists")
        # From here on only what the next steps need: ids, EUIs, the box. The 10,000 list
        # items (dicts in dicts: some 100,000 objects) would otherwise stay alive through the
        # details, and each full garbage collection meanwhile walked them all (the UI's
        # longest stall during a snapshot).
        device_ids = [item_id(DEVICES, d) for d in devices]
        station_ids = [item_id(STATIONS, s) for s in stations]
        euis = {str(d.get("EUI", "")).upper() for d in devices}
        box = estimate.box or box_of(devices + stations)
        counts = len(devices), len(stations)
        del devices, stations
        self._briefs.clear()

        answers: list[tuple[str, bytes]] = []

        async def flush() -> None:
            batch = answers[:]
            answers.clear()
            await self._write(writer.put_responses, batch)

        def detail(path: str) -> Callable[[], Awaitable[None]]:
            async def fetch() -> None:
                answer = await self.client.request("GET", path)
                answers.append((response_key(path), answer.content))
                if len(answers) >= BATCH:
                    await flush()
                step("Details")

            return fetch

        paths = [f"{DEVICES_PATH}/{i}" for i in device_ids]
        paths += [f"{STATIONS_PATH}/{i}" for i in station_ids]
        await _parallel(detail(path) for path in paths)
        await flush()
        phase("details")
        await self._alarms(writer, euis)
        step("Alarms")
        phase("alarms")
        if box is not None:
            await self._tiles(tiles_partial, box, step)
            phase("tiles")
        writer.set_meta(
            region=region.as_meta(),
            words=region.words,
            base_url=self.client.base_url,
            devices=counts[0],
            stations=counts[1],
            missing_tiles=self.missing_tiles,
        )

    async def _alarms(self, writer: SnapshotWriter, euis: set[str]) -> None:
        """The alarms of the region's devices, newest first (the platform keeps the recent
        ones: the collection is what it holds)."""
        alarms: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            params = [("pageSize", str(PAGE)), ("sort", "alarmUid,asc")]
            if cursor:
                params.append(("pageAfter", cursor))
            page = (await self.client.request("GET", ALARMS_PATH, params=params)).json()
            alarms += [
                a
                for a in page.get("briefs") or []
                if str((a.get("device") or {}).get("EUI", "")).upper() in euis
            ]
            cursor = (page.get("cursors") or {}).get("last")
            if not page.get("more") or not cursor:
                break
        alarms.sort(key=lambda a: -int(a.get("updateTimestamp") or 0))
        eui_of = {a["alarmUid"]: (a.get("device") or {}).get("EUI", "") for a in alarms}
        rows = [(a["alarmUid"], eui_of[a["alarmUid"]], a) for a in alarms]
        await self._write(writer.put_items, DEVICE_ALARMS, rows)

    async def _tiles(self, path: Path, box: Box, step: Callable[[str, int], None]) -> None:
        path.unlink(missing_ok=True)
        conn = sqlite3.connect(path, check_same_thread=False)
        self._tiles_conn = conn
        conn.executescript(
            "CREATE TABLE metadata (name TEXT, value TEXT);"
            "CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER,"
            " tile_data BLOB, PRIMARY KEY (zoom_level, tile_column, tile_row));"
        )
        s, w, n, e = box
        conn.executemany(
            "INSERT INTO metadata VALUES (?, ?)",
            [("name", "Street map (taken offline)"), ("format", "png"),
             ("bounds", f"{w},{s},{e},{n}"), ("minzoom", str(ZOOMS.start)),
             ("maxzoom", str(ZOOMS.stop - 1)), ("type", "baselayer"),
             ("attribution", "© OpenStreetMap contributors")],
        )  # fmt: skip
        # Made in a worker thread: a new client loads the system's certificates (its SSL
        # context), 50-90 ms that held the UI thread (bench/field_offline.py --stacks).
        http = self._http
        if http is None:
            http = await in_thread(
                lambda: httpx.AsyncClient(timeout=30, headers={"User-Agent": "lpwa-console"})
            )
        rows: list[tuple[int, int, int, bytes]] = []

        def insert(batch: list[tuple[int, int, int, bytes]]) -> None:
            conn.executemany("INSERT OR REPLACE INTO tiles VALUES (?, ?, ?, ?)", batch)

        try:

            def fetch(z: int, x: int, y: int) -> Callable[[], Awaitable[None]]:
                async def one() -> None:
                    url = self.tile_template.format(z=z, x=x, y=y)
                    try:
                        answer = await http.get(url)
                    except httpx.HTTPError:
                        self.missing_tiles += 1  # a gap in the map, not a failed snapshot
                    else:
                        if answer.status_code == 200 and answer.content:
                            rows.append((z, x, (1 << z) - 1 - y, answer.content))
                            if len(rows) >= BATCH:
                                batch = rows[:]
                                rows.clear()
                                await self._write(insert, batch)
                        else:
                            self.missing_tiles += 1
                    step("Map tiles", 1)

                return one

            await _parallel(fetch(*k) for k in tile_keys(box))
        finally:
            if self._http is None:
                await http.aclose()
        await self._write(insert, rows)
        await self._write(conn.commit)
        self._close_tiles()

    def _close_tiles(self) -> None:
        if self._tiles_conn is not None:
            self._tiles_conn.close()
            self._tiles_conn = None
