"""The alarms centre: device and multicast group alarms in one lazy table.

The two platform lists are random-access by `pageIndex`/`pageSize`, sorted by the server, and
give their `count` with the first page; the table is their merge in the chosen sort order
(see `combined_fetcher`), so a critical group alarm sorts among the device alarms.

Live refresh re-reads only the pages the view shows, in place (dataChanged, rows inserted or
removed at the end when the count moved), so the selection and the scroll position stay.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Iterable
from typing import Any, Literal

from PySide6.QtCore import QModelIndex, QObject, QTimer, Signal

from ..api import FeatureNotOffered, LpwaClient
from ..schema.alarms import AlarmFilter, DeviceAlarmBrief, MulticastAlarmBrief
from ..schema.common import ListEnvelope, Severity
from ..schema.station_alarms import STATION_ALARMS
from .client_view_model import ClientViewModel
from .columns import time_column
from .errors import user_message
from .formatting import TIME_SAMPLE
from .paged_table import RIGHT, Column, PagedTableModel
from .tasks import TaskRunner

log = logging.getLogger(__name__)

AlarmItem = DeviceAlarmBrief | MulticastAlarmBrief
Source = Literal["all", "devices", "multicast", "stations"]
Kind = Literal["device", "multicast", "station"]
KIND_RANK = {"device": 0, "multicast": 1, "station": 2}  # ties: devices, groups, stations
# fetch(page_index from 1, page_size, sort, descending, filters) -> one server page
ListFetch = Callable[[int, int, str | None, bool, AlarmFilter], Awaitable[ListEnvelope[Any]]]

REFRESH_MS = 15_000
ACK_BATCH = 500


# The alarm IDs the platform raises, in words. Document 1 names only 004 (no uplink, §6); the
# others are those the sandbox raises (sandbox/demo.py, sandbox/simulator.py).
ALARM_TYPES: dict[int, tuple[str, str]] = {
    4: (
        "No uplink",
        "The device has sent no uplink for longer than a threshold of its alarm 004 "
        "(by default: warning after 2 days, major after 4 days)",
    ),
    12: (
        "Tamper",
        "The device reported tampering: its casing opened or the device moved",
    ),
    21: (
        "Multicast delivery failed",
        "A multicast downlink could not be delivered by some of the group's base stations",
    ),
}


# Base station alarms (Document 2 §6): their names and meanings are the schema's; addInfo2
# reads as a sentence ("{}" is its value). 102 and 103 carry no addInfo2.
ADD_INFO2_SENTENCES: dict[int, str] = {
    104: "{} % of uplink frames with an invalid CRC over the last 4 hours",
    105: "{} % of downlink frames dropped over the last hour",
    106: "CPU {} % average over the last hour",
    107: "RAM {} % average over the last hour",
    108: "File system {} % used on average over the last hour",
    111: "{} % of beacons failed over the last hour",
}
STATION_ALARM_TYPES: dict[int, tuple[str, str, str]] = {
    code: (words.title, words.help.rstrip("."), ADD_INFO2_SENTENCES.get(code, ""))
    for code, words in STATION_ALARMS.items()
}
for _code, (_name, _meaning, _words) in STATION_ALARM_TYPES.items():
    ALARM_TYPES[_code] = (_name, _meaning)


def add_info2_words(alarm_id: int, add_info2: str | None) -> str:
    """A base station alarm's addInfo2 in words ("CPU 93 % average over the last hour");
    the value as it came for other alarms, "" when there is none."""
    if not add_info2:
        return ""
    known = STATION_ALARM_TYPES.get(alarm_id)
    if known is None or not known[2]:
        return add_info2
    value = add_info2.strip().removesuffix("%").strip()
    try:
        number = float(value)
    except ValueError:
        return f"{known[0]}: {add_info2}"
    shown = f"{number:.0f}" if number == int(number) else f"{number:.1f}"
    return known[2].format(shown)


def alarm_name(alarm_id: int) -> str:
    """ "004 No uplink"; an ID the console does not know keeps its number alone."""
    known = ALARM_TYPES.get(alarm_id)
    return f"{alarm_id:03d} {known[0]}" if known else f"{alarm_id:03d}"


def alarm_meaning(alarm_id: int) -> str:
    known = ALARM_TYPES.get(alarm_id)
    if known is None:
        return f"Alarm {alarm_id:03d}: the platform does not say what it means"
    return f"Alarm {alarm_id:03d}, {known[0].lower()}: {known[1]}"


def kind_of(alarm: Any) -> Kind:
    if isinstance(alarm, MulticastAlarmBrief):
        return "multicast"
    if isinstance(alarm, DeviceAlarmBrief):
        return "device"
    return "station"  # a base station alarm (Document 2 §6)


def owner_of(alarm: Any) -> Any:
    """The device, multicast group or base station the alarm belongs to."""
    kind = kind_of(alarm)
    if kind == "multicast":
        return alarm.multicastGroup
    if kind == "device":
        return alarm.device
    return station_of(alarm)


def station_of(alarm: Any) -> Any:
    return getattr(alarm, "baseStation", None) or getattr(alarm, "bs", None)


def owner_id(alarm: Any) -> str:
    """The EUI of a device or group, the LRR ID of a station."""
    owner = owner_of(alarm)
    if kind_of(alarm) == "station":
        return str(getattr(owner, "lrrID", "") or getattr(alarm, "lrrID", "") or "")
    return str(owner.EUI)


def owner_name(alarm: Any) -> str:
    owner = owner_of(alarm)
    return str(getattr(owner, "name", None) or "") if owner is not None else ""


SOURCE_WORDS = {"device": "Device", "multicast": "Multicast group", "station": "Base station"}


def alarm_info(alarm: Any) -> str:
    """What the alarm says beyond its name: a station alarm's addInfo2 in words."""
    if kind_of(alarm) == "station":
        return add_info2_words(alarm.ID, alarm.addInfo2) or (alarm.addInfo or "")
    return alarm.addInfo or ""


def _severity(alarm: AlarmItem) -> int | None:
    return None if alarm.acked else int(alarm.state)


def alarm_columns() -> list[Column[AlarmItem]]:
    # Sized by what they hold (a label, a name, a time): on a 1280-pixel screen every column
    # shown is in sight; Info, last, stretches over the room the others leave. The platform sorts alarms by state, acked or
    # alarmUid only; with no sort it lists the latest update first (newest first), the
    # table's order until a header is clicked. The alarm's UID is the platform's internal
    # ID: hidden until chosen in the header's column menu.
    return [
        Column(
            "Severity",
            lambda a: Severity(a.state).label,
            sort_key="state",
            severity=_severity,
            width=60,
        ),
        Column(
            "Alarm",
            lambda a: alarm_name(a.ID),
            severity=_severity,
            tooltip=lambda a: alarm_meaning(a.ID),
            width=130,
        ),
        Column("Name", owner_name, tooltip=lambda a: owner_name(a) or None, width=130),
        Column("EUI / LRR ID", owner_id, width=110, sample="70B3D5FFFE000001"),
        time_column("Raised", "creationTimestamp", width=100, sample=TIME_SAMPLE),
        time_column("Updated", "updateTimestamp", width=100, sample=TIME_SAMPLE),
        Column("Count", lambda a: a.occurrence, alignment=RIGHT, width=50),
        Column("Acked", lambda a: "yes" if a.acked else "", sort_key="acked", width=52),
        Column("Source", lambda a: SOURCE_WORDS[kind_of(a)], width=100),
        # The last column shown: it takes the room the others leave (its whole text in its
        # tooltip), so no column is pushed off the right edge at 1280 px.
        Column("Info", alarm_info, tooltip=lambda a: alarm_info(a) or None, width=100),
        Column("Alarm UID", lambda a: a.alarmUid, sort_key="alarmUid", width=120, hidden=True),
    ]


MAX_HELD_PAGES = 8  # pages of a selection re-read by a live refresh besides the visible ones
CACHE_PAGES = 64  # server pages kept by one fetcher (binary-search probes hit them again)


def _sort_value(alarm: AlarmItem, sort: str) -> tuple[Any, ...]:
    if sort == "alarmUid":  # hexadecimal of one counter: longer is larger
        return (len(alarm.alarmUid), alarm.alarmUid)
    value = getattr(alarm, sort, None)
    return (value is not None, value if value is not None else 0)


def comes_before(a: AlarmItem, b: AlarmItem, sort: str | None, descending: bool) -> bool:
    """The platform's order (the sort criterion, then the latest update first; with no sort,
    the latest update first), then device alarms before group alarms."""
    if sort is not None:
        ka, kb = _sort_value(a, sort), _sort_value(b, sort)
        if ka != kb:
            return ka > kb if descending else ka < kb
    ua, ub = _sort_value(a, "updateTimestamp"), _sort_value(b, "updateTimestamp")
    if ua != ub:
        return ua > ub
    return KIND_RANK[kind_of(a)] < KIND_RANK[kind_of(b)]


def combined_fetcher(
    fetch_devices: ListFetch | None,
    fetch_multicast: ListFetch | None,
    filters: AlarmFilter,
) -> Callable[[int, int, str | None, bool], Awaitable[ListEnvelope[AlarmItem]]]:
    """A PagedTableModel fetcher over the two lists merged in the sort order.

    Both lists are sorted by the server, so the first r rows of the merge hold i device
    alarms and r - i group alarms, and i is found by binary search on random-access reads
    (the k-th smallest of two sorted arrays): a page anywhere costs a few server pages, and
    none when one list is short (the search range is its length). Without a sort the
    platform lists the latest update first, and so does the merge. Server pages are cached until page 1 is read again (a new
    generation, or a refresh)."""
    parts = (fetch_devices, fetch_multicast)
    cache: OrderedDict[tuple[Any, ...], asyncio.Future[ListEnvelope[Any]]] = OrderedDict()

    async def server_page(part: int, page: int, size: int, sort: str | None, desc: bool) -> Any:
        fetch = parts[part]
        assert fetch is not None
        key = (part, page, size, sort, desc)
        future = cache.get(key)
        if future is None:
            future = asyncio.ensure_future(fetch(page, size, sort, desc, filters))
            # Its readers may all be cancelled (a reload, a new client) before it fails:
            # reading the outcome here keeps that failure from being reported as unhandled.
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            cache[key] = future
            while len(cache) > CACHE_PAGES:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        try:
            # Shielded: a cancelled page request must not cancel a read others share.
            return await asyncio.shield(future)
        except Exception:
            if cache.get(key) is future:
                del cache[key]
            raise

    async def count(part: int, size: int, sort: str | None, desc: bool) -> int:
        if parts[part] is None:
            return 0
        first = await server_page(part, 1, size, sort, desc)
        return int(first.count if first.count is not None else len(first.briefs))

    async def rows(
        part: int, start: int, stop: int, size: int, sort: str | None, desc: bool
    ) -> list[AlarmItem]:
        """Rows [start, stop) of one list."""
        if parts[part] is None or stop <= start:
            return []
        first, last = start // size, (stop - 1) // size
        pages = await asyncio.gather(
            *(server_page(part, p + 1, size, sort, desc) for p in range(first, last + 1))
        )
        items: list[AlarmItem] = [item for page in pages for item in page.briefs]
        offset = start - first * size
        return items[offset : offset + (stop - start)]

    async def item(part: int, index: int, size: int, sort: str | None, desc: bool) -> Any:
        page = await server_page(part, index // size + 1, size, sort, desc)
        briefs = page.briefs
        return briefs[index % size] if index % size < len(briefs) else None

    async def split(r: int, n_dev: int, n_mc: int, size: int, sort: str | None, desc: bool) -> int:
        """How many device alarms are among the first r rows of the merge."""
        lo, hi = max(0, r - n_mc), min(r, n_dev)
        while lo < hi:
            i = (lo + hi) // 2
            dev, grp = await asyncio.gather(
                item(0, i, size, sort, desc), item(1, r - i - 1, size, sort, desc)
            )
            if dev is None or grp is None:  # a list shrank meanwhile: the refresh mends it
                return i
            if comes_before(dev, grp, sort, desc):
                lo = i + 1
            else:
                hi = i
        return lo

    async def fetch(
        page: int, size: int, sort: str | None, descending: bool
    ) -> ListEnvelope[AlarmItem]:
        if page == 1:
            cache.clear()
        n_dev, n_mc = await asyncio.gather(
            count(0, size, sort, descending), count(1, size, sort, descending)
        )
        total = n_dev + n_mc
        start, stop = (page - 1) * size, min(page * size, total)
        if n_dev == 0 or n_mc == 0:
            i0 = min(start, n_dev)
        else:
            i0 = await split(start, n_dev, n_mc, size, sort, descending)
        j0 = start - i0
        need = stop - start
        devs, grps = await asyncio.gather(
            rows(0, i0, min(i0 + need, n_dev), size, sort, descending),
            rows(1, j0, min(j0 + need, n_mc), size, sort, descending),
        )
        merged: list[AlarmItem] = []
        a = b = 0
        while len(merged) < need and (a < len(devs) or b < len(grps)):
            take_dev = b >= len(grps) or (
                a < len(devs) and comes_before(devs[a], grps[b], sort, descending)
            )
            if take_dev:
                merged.append(devs[a])
                a += 1
            else:
                merged.append(grps[b])
                b += 1
        # Any: the station alarms (their own schema) pass as they are.
        return ListEnvelope[Any](briefs=merged, count=total, more=stop < total)

    return fetch


def merged_list(
    first: ListFetch | None, second: ListFetch | None, filters: AlarmFilter
) -> ListFetch | None:
    """Two lists merged in the platform's order, as one list (the alarms centre merges the
    device alarms with the group and station alarms merged this way)."""
    if first is None or second is None:
        return first or second
    inner = combined_fetcher(first, second, filters)

    async def fetch(
        page: int, size: int, sort: str | None, desc: bool, _filters: AlarmFilter
    ) -> ListEnvelope[Any]:
        return await inner(page, size, sort, desc)

    return fetch


def alarm_key(alarm: AlarmItem) -> tuple[str, str]:
    """What identifies an alarm across refreshes (its row does not: new alarms push it)."""
    return kind_of(alarm), alarm.alarmUid


class LivePagedTableModel(PagedTableModel[AlarmItem]):
    """A paged model whose visible pages can be re-read in place. The selection and the
    current row follow their alarms (by kind and alarmUid) when a refresh moves them."""

    refreshed = Signal()

    def refresh_rows(self, first_row: int, last_row: int) -> None:
        """Re-read the pages covering rows first..last (page 1 too: it carries the count)."""
        fetch = self._fetch
        if fetch is None or self._rows == 0:
            self.reload()
            return
        # The pages holding the selection too (a few): its alarms are then found again even
        # when new alarms push them along.
        held = sorted({i.row() // self.page_size for i in self.persistentIndexList()})
        pages = sorted(
            {
                0,
                *range(max(first_row, 0) // self.page_size, max(last_row, 0) // self.page_size + 1),
                *held[:MAX_HELD_PAGES],
            }
        )
        generation = self.generation
        sort, descending = self.sort_key, self.descending

        async def run() -> list[tuple[int, ListEnvelope[AlarmItem]]]:
            # Page 1 first: it re-reads the counts the other pages are sliced by.
            results = [(0, await fetch(1, self.page_size, sort, descending))]
            rest = [p for p in pages if p != 0]
            answers = await asyncio.gather(
                *(fetch(p + 1, self.page_size, sort, descending) for p in rest)
            )
            return results + list(zip(rest, answers, strict=True))

        future = asyncio.ensure_future(run())
        future.add_done_callback(lambda f: self._refreshed(generation, f))

    def rows_by_key(self, first: Iterable[int] = ()) -> dict[tuple[str, str], int]:
        """The rows of the loaded alarms; the pages in `first` win over the others (they are
        fresher when an alarm moved between pages)."""
        fresh = set(first)
        order = [p for p in self._pages if p not in fresh] + [p for p in self._pages if p in fresh]
        return {
            alarm_key(alarm): page * self.page_size + offset
            for page in order
            for offset, alarm in enumerate(self._pages[page])
        }

    def _refreshed(self, generation: int, future: asyncio.Future[Any]) -> None:
        if future.cancelled():
            return
        exc = future.exception()  # read even when dropped: never an "unhandled" failure
        if generation != self.generation:
            return
        if exc is not None:
            self.error.emit(user_message(exc))
            return
        results: list[tuple[int, ListEnvelope[AlarmItem]]] = future.result()
        total = results[0][1].count
        grows = total is not None and total > self._rows
        shrinks = total is not None and total < self._rows
        if grows:
            assert total is not None
            self.beginInsertRows(QModelIndex(), self._rows, total - 1)
            self._rows = total
            self.endInsertRows()
        # The selection and current row are persistent indexes: move them with their alarms.
        self.layoutAboutToBeChanged.emit()
        persistent = self.persistentIndexList()
        keys = [self._key_at(index.row()) for index in persistent]
        fresh = {page for page, _ in results}
        for page, envelope in results:
            self._pages[page] = list(envelope.briefs)
        moved_rows = grows or shrinks
        if moved_rows:
            # The cached pages not re-read hold shifted slices now: drop them (they load
            # again when shown) rather than show rows twice or skip some.
            for page in [p for p in self._pages if p not in fresh]:
                del self._pages[page]
        rows = self.rows_by_key()
        limit = total if total is not None else self._rows
        moved = []
        for index, key in zip(persistent, keys, strict=True):
            # Gone from what is loaded: out of the selection (never onto another alarm). A row
            # that was not loaded: where it went is unknown once rows moved.
            unknown = -1 if moved_rows else index.row()
            row = rows.get(key, -1) if key is not None else unknown
            moved.append(self.index(row, index.column()) if 0 <= row < limit else QModelIndex())
        self.changePersistentIndexList(persistent, moved)
        self.layoutChanged.emit()
        if shrinks:
            assert total is not None
            self.beginRemoveRows(QModelIndex(), total, self._rows - 1)
            self._rows = total
            self.endRemoveRows()
            for page in [p for p in self._pages if p * self.page_size >= total]:
                del self._pages[page]  # pages beyond the end are gone
        if moved_rows:
            self.count_changed.emit(self._rows)
        self._evict()
        self.refreshed.emit()

    def _key_at(self, row: int) -> tuple[str, str] | None:
        alarm = self.item(row)
        return alarm_key(alarm) if alarm is not None else None


class AlarmsViewModel(ClientViewModel):
    count_changed = Signal(int)
    loading_changed = Signal(bool)
    error = Signal(str)
    first_page_loaded = Signal(float)
    acknowledged = Signal(str)
    client_changed = Signal(bool)
    filters_changed = Signal()

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        page_size: int = 100,
        refresh_ms: int = REFRESH_MS,
        sources: Callable[[], Collection[str]] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, client, parent)
        # The lists the account has ("devices", "multicast", "stations"), asked at each
        # reload: a network partner has its stations' alarms only, and the others are not
        # asked for (the server would refuse them). None: all three.
        self._sources = sources
        self.source: Source = "all"
        # The lists this platform does not offer (source -> why): left out until a new client.
        self.not_offered: dict[str, str] = {}
        self.min_severity: int | None = None
        self.acked: bool | None = False  # the unacknowledged ones by default
        self.model = LivePagedTableModel(alarm_columns(), None, page_size=page_size, parent=self)
        self.model.count_changed.connect(self.count_changed)
        self.model.loading_changed.connect(self.loading_changed)
        self.model.error.connect(self.error)
        self.model.first_page_loaded.connect(self._first_page)
        self.first_page_ms: float | None = None
        self._t0 = 0.0
        self.visible_rows: Callable[[], tuple[int, int]] | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(refresh_ms)
        self.timer.timeout.connect(self.refresh_visible)
        self.live = True  # the pane turns it off while hidden or when Live is unchecked
        if client is not None:
            self.reload()

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.not_offered = {}
        self.client_changed.emit(client is not None)
        self.reload()

    def available_sources(self) -> frozenset[str]:
        """The lists of alarms this account has: "devices", "multicast", "stations"."""
        every = frozenset(("devices", "multicast", "stations"))
        return every if self._sources is None else every & frozenset(self._sources())

    @property
    def filters(self) -> AlarmFilter:
        if self.min_severity is None:
            return AlarmFilter(acked=self.acked)
        return AlarmFilter(
            state=Severity(self.min_severity), stateFiltering="EQUAL_OR_UPPER", acked=self.acked
        )

    def set_filters(
        self, *, source: Source | None = None, min_severity: int | None = -1, acked: Any = -1
    ) -> None:
        if source is not None:
            self.source = source
        if min_severity != -1:
            self.min_severity = min_severity
        if acked != -1:
            self.acked = acked
        self.filters_changed.emit()
        self.reload()

    def _pages(self, alarms: Any, title: str, source: str | None = None) -> ListFetch:
        """One alarm list's pages. With `source`, a list the platform may not offer: then
        it is empty, said once (`not_offered`), and not asked again from this platform."""
        runner = self.runner

        async def fetch(
            page: int, size: int, sort: str | None, desc: bool, filters: AlarmFilter
        ) -> ListEnvelope[Any]:
            if source and self.not_offered.get(source):
                return ListEnvelope[Any](briefs=[], count=0, more=False)
            call = alarms.list(page, size, filters=filters, sort=sort, descending=desc)
            try:
                return await runner.track(f"{title} page {page}", call)
            except FeatureNotOffered as exc:
                if not source:
                    raise
                # The rest of the centre stands: this part is empty, said once.
                self.not_offered[source] = user_message(exc)
                log.info("alarms: %s", self.not_offered[source])
                return ListEnvelope[Any](briefs=[], count=0, more=False)

        return fetch

    def _lists(self) -> tuple[ListFetch | None, ListFetch | None, ListFetch | None]:
        if self.client is None:
            return None, None, None
        client = self.client
        devices = self._pages(client.device_alarms, "Device alarms")
        multicast = self._pages(client.multicast_alarms, "Multicast alarms", "multicast")
        station_alarms = client.station_alarms
        stations = self._pages(station_alarms, "Base station alarms")
        available = self.available_sources()

        def wanted(source: str) -> bool:
            return source in available and self.source in ("all", source)

        return (
            devices if wanted("devices") else None,
            multicast if wanted("multicast") else None,
            stations if station_alarms is not None and wanted("stations") else None,
        )

    def reload(self) -> None:
        self._t0 = time.perf_counter()
        self.first_page_ms = None
        devices, multicast, stations = self._lists()
        if devices is None and multicast is None and stations is None:
            self.timer.stop()
            self.model.set_fetcher(None)
            return
        others = merged_list(multicast, stations, self.filters)
        self.model.set_fetcher(combined_fetcher(devices, others, self.filters))
        self.set_live(self.live)

    def set_live(self, live: bool) -> None:
        """Poll the visible rows (a shown pane with Live on) or not; kept across reloads."""
        self.live = live
        if live and self.model.has_fetcher:
            self.timer.start()
        else:
            self.timer.stop()

    def _first_page(self) -> None:
        self.first_page_ms = (time.perf_counter() - self._t0) * 1000
        self.first_page_loaded.emit(self.first_page_ms)

    def refresh_visible(self) -> None:
        """The timer's tick: re-read what the view shows, in place."""
        if self.model.loading:
            return
        first, last = self.visible_rows() if self.visible_rows is not None else (0, 0)
        self.model.refresh_rows(first, last)

    # --- acknowledge ------------------------------------------------------------------

    def items(self, rows: list[int]) -> list[AlarmItem]:
        return [a for a in (self.model.item(r) for r in rows) if a is not None]

    def acknowledge(self, rows: list[int]) -> bool:
        alarms = [a for a in self.items(rows) if not a.acked]
        if not alarms or self.client is None:
            return False
        client = self.client
        device_uids = [a.alarmUid for a in alarms if kind_of(a) == "device"]
        group_uids = [a.alarmUid for a in alarms if kind_of(a) == "multicast"]
        station_uids = [a.alarmUid for a in alarms if kind_of(a) == "station"]

        async def ack() -> int:
            for start in range(0, len(device_uids), ACK_BATCH):
                await client.device_alarms.acknowledge(device_uids[start : start + ACK_BATCH])
            for start in range(0, len(group_uids), ACK_BATCH):
                await client.multicast_alarms.acknowledge(group_uids[start : start + ACK_BATCH])
            for start in range(0, len(station_uids), ACK_BATCH):
                await client.station_alarms.acknowledge(station_uids[start : start + ACK_BATCH])
            return len(alarms)

        keys = {alarm_key(a) for a in alarms}

        def done(count: int) -> None:
            self._patch_acked(keys)
            self.acknowledged.emit(f"{count:,} alarm{'s' if count != 1 else ''} acknowledged")
            self.refresh_visible()

        self.runner.run(f"Acknowledge {len(alarms):,} alarms", ack(), on_done=done)
        return True

    def _patch_acked(self, keys: set[tuple[str, str]]) -> None:
        """Mark these alarms acknowledged wherever they are now (a refresh may have moved
        them while the request ran)."""
        rows = self.model.rows_by_key()
        for key in keys:
            row = rows.get(key, -1)
            alarm = self.model.item(row) if row >= 0 else None
            if alarm is not None and not alarm.acked:
                self.model.replace_item(row, alarm.model_copy(update={"acked": True}))
