"""A lazy paged table model over a random-access list API (`pageIndex`/`pageSize`/`count`).

Only the pages the view asks for are fetched: `data()` on a row that is not loaded yet
returns a placeholder and schedules its page. Requests are coalesced on the next turn of the
event loop, de-duplicated, newest first, and a few at a time; pages live in an LRU cache of
bounded size so memory stays flat while scrolling a million rows. Each reset (filter, sort,
refresh) bumps a generation; answers of an older generation are dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, Qt, QTimer, Signal

from ..api.errors import FeatureNotOffered
from ..schema.common import ListEnvelope
from .errors import user_message
from .item_index import Index

log = logging.getLogger(__name__)

T = TypeVar("T")

PLACEHOLDER = "…"
# Roles beyond Qt's: the whole row object, and a severity (1-6) a delegate may colour by.
ItemRole = int(Qt.ItemDataRole.UserRole) + 1
SeverityRole = int(Qt.ItemDataRole.UserRole) + 2
# Plain ints: data() runs thousands of times per repaint; enum comparisons cost.
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
# Numbers and counts read right-aligned in every list.
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter

# fetch(page_index starting at 1, page_size, sort key or None, descending) -> one page
PageFetcher = Callable[[int, int, str | None, bool], Awaitable[ListEnvelope[T]]]


@dataclass(frozen=True)
class Column(Generic[T]):
    """One column: its header, how to show a row's value, and how the server sorts it."""

    header: str
    value: Callable[[T], object]
    sort_key: str | None = None
    alignment: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    tooltip: Callable[[T], str | None] | None = None
    severity: Callable[[T], int | None] | None = None
    width: int | None = None
    hidden: bool = False  # not shown until picked in the header's column chooser
    sample: str = ""  # the widest value it usually holds: the column is sized to fit it
    roles: dict[int, Callable[[T], object]] = field(default_factory=dict)


def alarm_count_column() -> Column[Any]:
    """The "Alarms" column of a list whose items count their open alarms (devices,
    multicast groups): the count, coloured by the highest severity."""
    return Column(
        "Alarms",
        lambda item: item.alarmCount or "",
        alignment=RIGHT,
        severity=lambda item: item.alarmLevel or None,
        width=60,
    )


class PagedTableModel(QAbstractTableModel, Generic[T]):
    loading_changed = Signal(bool)
    error = Signal(str)
    # The platform does not offer this list (FeatureNotOffered), in words: said once; the
    # list then stays empty and asks no more until a new source (clear, set_fetcher).
    not_offered = Signal(str)
    count_changed = Signal(int)  # total rows known (or loaded so far in growing mode)
    first_page_loaded = Signal()

    MAX_CONCURRENT = 2
    MAX_WANTED = 4  # a viewport spans at most a couple of pages; older wishes are stale

    def __init__(
        self,
        columns: list[Column[T]],
        fetch: PageFetcher[T] | None = None,
        *,
        page_size: int = 100,
        max_cached_pages: int = 40,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._columns = columns
        # The roles some column answers; the view asks for many more (font, colours, size).
        self._roles = {_DISPLAY, _ALIGN, _TOOLTIP, ItemRole, SeverityRole}
        self._roles.update(role for column in columns for role in column.roles)
        self._fetch = fetch
        self.page_size = page_size
        self.max_cached_pages = max_cached_pages
        self.generation = 0
        self._rows = 0
        self._count_known = True
        self._more = False
        self._pages: OrderedDict[int, list[T]] = OrderedDict()  # page number (0-based) -> rows
        self._in_flight: dict[int, asyncio.Future[Any]] = {}
        self._wanted: OrderedDict[int, None] = OrderedDict()
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        self._loading = False
        self._started = False
        self.not_offered_reason: str | None = None
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(0)
        self._flush_timer.timeout.connect(self._flush)

    # --- public API ---------------------------------------------------------------------

    @property
    def columns(self) -> list[Column[T]]:
        return self._columns

    @property
    def has_fetcher(self) -> bool:
        return self._fetch is not None

    @property
    def loading(self) -> bool:
        return self._loading

    @property
    def count_known(self) -> bool:
        return self._count_known

    @property
    def sort_key(self) -> str | None:
        if 0 <= self._sort_column < len(self._columns):
            return self._columns[self._sort_column].sort_key
        return None

    @property
    def descending(self) -> bool:
        return self._sort_order == Qt.SortOrder.DescendingOrder

    def set_fetcher(self, fetch: PageFetcher[T] | None) -> None:
        """A new source (e.g. new filters): drop everything and load the first page. A list
        the platform does not offer stays empty (not_offered_reason) until `clear()`."""
        self._fetch = fetch
        self.reload()

    def reload(self) -> None:
        """Forget every page (new generation) and fetch the first page again."""
        self.beginResetModel()
        self.generation += 1
        for future in self._in_flight.values():
            future.cancel()
        self._in_flight.clear()
        self._wanted.clear()
        self._pages.clear()
        self._rows = 0
        self._count_known = True
        self._more = False
        self.endResetModel()
        self._set_loading(False)
        self.count_changed.emit(0)
        if self._fetch is not None and self.not_offered_reason is None:
            self._started = True
            self._want(0)

    def clear(self) -> None:
        """No source at all (e.g. signed out, or another platform)."""
        self._fetch = None
        self.not_offered_reason = None
        self.reload()

    def item(self, row: int) -> T | None:
        page, offset = divmod(row, self.page_size)
        rows = self._pages.get(page)
        if rows is None or offset >= len(rows):
            return None
        return rows[offset]

    def loaded_pages(self) -> list[int]:
        return list(self._pages)

    def repaint_all(self) -> None:
        """Every row shown again (what a column reads from elsewhere changed: names)."""
        if self._rows:
            self.dataChanged.emit(
                self.index(0, 0), self.index(self._rows - 1, len(self._columns) - 1)
            )

    def replace_item(self, row: int, item: T) -> None:
        """Patch one loaded row in place (after an edit) without refetching."""
        page, offset = divmod(row, self.page_size)
        rows = self._pages.get(page)
        if rows is not None and offset < len(rows):
            rows[offset] = item
            last = max(0, len(self._columns) - 1)
            self.dataChanged.emit(self.index(row, 0), self.index(row, last))

    # --- Qt model -----------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._columns)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(self._columns):
            column = self._columns[section]
            if role == Qt.ItemDataRole.DisplayRole:
                return column.header
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return column.alignment
            if role == Qt.ItemDataRole.ToolTipRole and column.sort_key is None:
                return f"{column.header} (not sortable)"
        elif orientation == Qt.Orientation.Vertical and role == Qt.ItemDataRole.DisplayRole:
            return section + 1
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _FLAGS

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        role = int(role)
        if role not in self._roles or not index.isValid():
            return None
        row, col = index.row(), index.column()
        if row >= self._rows or col >= len(self._columns):
            return None
        column = self._columns[col]
        if role == _ALIGN:
            return column.alignment
        page, offset = divmod(row, self.page_size)
        rows = self._pages.get(page)
        if rows is None:
            if role == _DISPLAY:
                self._want(page)
                return PLACEHOLDER
            return None
        if offset >= len(rows):  # the list shrank since the count: an empty row, no refetch
            return "" if role == _DISPLAY else None
        # A field a platform left unknown (None where the schema says a value, tolerant
        # reading: api._tolerant) shows as an empty cell, whatever the column does with it.
        if role == _DISPLAY:
            self._pages.move_to_end(page)
            try:
                value = column.value(rows[offset])
            except (AttributeError, TypeError):
                return ""
            return "" if value is None else str(value)
        item = rows[offset]
        if role == ItemRole:
            return item
        try:
            if role == _TOOLTIP:
                return column.tooltip(item) if column.tooltip is not None else None
            if role == SeverityRole:
                return column.severity(item) if column.severity is not None else None
            getter = column.roles.get(role)
            return getter(item) if getter is not None else None
        except (AttributeError, TypeError):
            return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort on the server; columns without a sort key keep the current order."""
        if not 0 <= column < len(self._columns) or self._columns[column].sort_key is None:
            return
        if column == self._sort_column and order == self._sort_order and self._started:
            return
        self._sort_column = column
        self._sort_order = order
        if self._fetch is not None:
            self.reload()

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() or self._count_known:
            return False
        next_page = self._rows // self.page_size
        return self._more and next_page not in self._in_flight

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008
        if self.canFetchMore(parent):
            self._want(self._rows // self.page_size)

    # --- fetching -----------------------------------------------------------------------

    def _want(self, page: int) -> None:
        if page in self._in_flight:
            return
        self._wanted[page] = None
        self._wanted.move_to_end(page)
        while len(self._wanted) > self.MAX_WANTED:
            self._wanted.popitem(last=False)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _flush(self) -> None:
        while self._wanted and len(self._in_flight) < self.MAX_CONCURRENT:
            page, _ = self._wanted.popitem(last=True)  # newest wish first
            if page in self._pages or page in self._in_flight or self._fetch is None:
                continue
            self._start(page)

    def _start(self, page: int) -> None:
        assert self._fetch is not None
        generation = self.generation
        coro = self._fetch(page + 1, self.page_size, self.sort_key, self.descending)
        future = asyncio.ensure_future(coro)
        self._in_flight[page] = future
        self._set_loading(True)
        future.add_done_callback(lambda f: self._done(generation, page, f))

    def _done(self, generation: int, page: int, future: asyncio.Future[Any]) -> None:
        # Read even when dropped: an unread failure is reported as an unhandled error.
        exc = None if future.cancelled() else future.exception()
        if generation != self.generation:
            return  # a page of an older filter or sort: dropped
        self._in_flight.pop(page, None)
        if future.cancelled():
            self._after_fetch()
            return
        if isinstance(exc, FeatureNotOffered):
            self.not_offered_reason = user_message(exc)
            log.info("not offered: %s", self.not_offered_reason)
            self._after_fetch()
            self.not_offered.emit(self.not_offered_reason)
            return
        if exc is not None:
            message = user_message(exc)
            log.info("page %d failed: %s", page + 1, message)
            self._after_fetch()
            self.error.emit(message)
            return
        self._store(page, future.result())
        self._after_fetch()

    def _after_fetch(self) -> None:
        if not self._in_flight and not self._wanted:
            self._set_loading(False)
        self._flush()

    def _store(self, page: int, envelope: ListEnvelope[T]) -> None:
        rows = list(envelope.briefs)
        first = page * self.page_size
        if page == 0 and self._rows == 0:
            self._count_known = envelope.count is not None
            total = envelope.count if envelope.count is not None else len(rows)
            self._more = envelope.more
            self._pages[page] = rows
            if total > 0:
                self.beginInsertRows(QModelIndex(), 0, total - 1)
                self._rows = total
                self.endInsertRows()
            self.count_changed.emit(self._rows)
            self.first_page_loaded.emit()
        elif not self._count_known:
            # Growing mode: pages arrive in order and extend the table.
            self._pages[page] = rows
            self._more = envelope.more
            new_total = first + len(rows)
            if new_total > self._rows:
                self.beginInsertRows(QModelIndex(), self._rows, new_total - 1)
                self._rows = new_total
                self.endInsertRows()
                self.count_changed.emit(self._rows)
        else:
            self._pages[page] = rows
            last_row = min(self._rows, first + self.page_size) - 1
            if last_row >= first:
                right = len(self._columns) - 1
                self.dataChanged.emit(self.index(first, 0), self.index(last_row, right))
        self._evict()

    def _evict(self) -> None:
        # In growing mode every page is a real row the view may ask for again; keep them
        # unless far beyond the bound (then they come back as placeholders).
        while len(self._pages) > self.max_cached_pages:
            self._pages.popitem(last=False)

    def _set_loading(self, loading: bool) -> None:
        if loading != self._loading:
            self._loading = loading
            self.loading_changed.emit(loading)
