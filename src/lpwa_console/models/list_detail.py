"""The list-and-detail view-model the fleet entities (devices, base stations) and the catalog
resources (`ResourceViewModel`) share: server-side filters, the lazy paged list, the first
page's timing, finding a row by its key, and the detail read for the row shown.

A subclass says how to ask for one page (`_list_page`), how an item is named in the rows
(`item_key`) and what its task titles say; everything else is here once."""

from __future__ import annotations

import time
from collections.abc import Awaitable
from typing import Any

from pydantic import BaseModel
from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..schema.common import ListEnvelope
from .client_view_model import ClientViewModel
from .paged_table import Column, PagedTableModel
from .tasks import TaskRunner
from .validation import validate


class ListDetailViewModel(ClientViewModel):
    count_changed = Signal(int)
    loading_changed = Signal(bool)
    error = Signal(str)
    first_page_loaded = Signal(float)  # ms since the reload that asked for it
    filters_changed = Signal(object)  # the list's filter model
    client_changed = Signal(bool)  # has a client
    detail_loading = Signal(bool)

    list_title = "Items"  # the task of one page: "<list_title> page N"
    load_at_start = True  # made with a client, the list loads (else when first shown)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        page_size: int = 100,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(runner, client, parent)
        self.default_filters: Any = self._initial_filters()
        self.filters: Any = self.default_filters
        self.model: PagedTableModel[Any] = self._make_model(self._columns(), page_size)
        self.model.count_changed.connect(self.count_changed)
        self.model.loading_changed.connect(self.loading_changed)
        self.model.error.connect(self.error)
        self.model.first_page_loaded.connect(self._first_page)
        self.first_page_ms: float | None = None
        self._reload_t0 = 0.0
        self._detail_task: int | None = None
        self._setup()
        if client is not None and self.load_at_start:
            self.reload()

    # --- what a list says ---------------------------------------------------------------

    def _columns(self) -> list[Column[Any]]:
        raise NotImplementedError

    def _initial_filters(self) -> Any:
        """The filters a list starts with (and `clear_filters` goes back to)."""
        raise NotImplementedError

    def _setup(self) -> None:
        """The subclass's own state, made before the list first loads."""

    def _make_model(self, columns: list[Column[Any]], page_size: int) -> PagedTableModel[Any]:
        """The table model (a subclass may make one that refreshes in place)."""
        return PagedTableModel(columns, None, page_size=page_size, parent=self)

    def _list_page(
        self, client: LpwaClient, filters: Any, page: int, size: int, sort: str | None, desc: bool
    ) -> Awaitable[ListEnvelope[Any]]:
        """The request for one page of the list with these filters (those of its reload)."""
        raise NotImplementedError

    def item_key(self, item: Any) -> object:
        """What names an item in `row_of` (its UID, EUI or ID)."""
        raise NotImplementedError

    def _is_item(self, item: Any, key: object) -> bool:
        return self.item_key(item) == key

    def _after_first_page(self) -> None:
        """What follows the first page of a reload (the detail following the list)."""

    # --- the list -----------------------------------------------------------------------

    def reload(self) -> None:
        self._reload_t0 = time.perf_counter()
        self.first_page_ms = None
        self.model.set_fetcher(self._fetcher() if self.client is not None else None)

    def _fetcher(self) -> Any:
        client, runner, filters = self.client, self.runner, self.filters
        assert client is not None
        title = self.list_title

        async def fetch(
            page: int, size: int, sort: str | None, descending: bool
        ) -> ListEnvelope[Any]:
            call = self._list_page(client, filters, page, size, sort, descending)
            return await runner.track(f"{title} page {page}", call)

        return fetch

    def _first_page(self) -> None:
        self.first_page_ms = (time.perf_counter() - self._reload_t0) * 1000
        self.first_page_loaded.emit(self.first_page_ms)
        self._after_first_page()

    def row_of(self, key: object) -> int:
        """The row of the item named `key` among the rows loaded, or -1."""
        model = self.model
        size, rows = model.page_size, model.rowCount()
        for page in sorted(model.loaded_pages()):
            for row in range(page * size, min((page + 1) * size, rows)):
                item = model.item(row)
                if item is not None and self._is_item(item, key):
                    return row
        return -1

    def list_complete(self) -> bool:
        """Every row of the view is loaded (so an item not among them is not in the view)."""
        if not self.model.count_known:
            return False
        pages = -(-self.model.rowCount() // self.model.page_size)
        return set(range(pages)) <= set(self.model.loaded_pages())

    # --- filters ------------------------------------------------------------------------

    def set_filters(self, filters: BaseModel) -> None:
        """New filters apply on the server: the list loads again."""
        if filters == self.filters:
            return
        self.filters = filters
        self.filters_changed.emit(filters)
        self._filters_set()

    def _filters_set(self) -> None:
        self.reload()

    def clear_filters(self) -> None:
        self.set_filters(self.default_filters)

    def update_filters(self, **changes: Any) -> None:
        """Change some filters, e.g. `update_filters(query="abc", appServerID=["a"])`; what
        the filter model refuses ("abc" as a price) is said (`error`), nothing applied."""
        if self.filters is None:
            return
        data = self.filters.model_dump()
        data.update(changes)
        filters, errors = validate(type(self.filters), data)
        if filters is None:
            self.error.emit("Filter not applied: " + "; ".join(errors.values()))
            return
        self.set_filters(filters)

    # --- the detail ---------------------------------------------------------------------

    def _cancel_detail(self) -> None:
        if self._detail_task is not None:
            self.runner.cancel(self._detail_task)
            self._detail_task = None
