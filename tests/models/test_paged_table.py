"""The lazy paged model against a fake async page source."""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass
from typing import Any

import pytest
from PySide6.QtCore import QModelIndex, Qt

from lpwa_console.models.paged_table import PLACEHOLDER, Column, ItemRole, PagedTableModel
from lpwa_console.schema.common import ListEnvelope


@dataclass
class Row:
    n: int
    name: str


class FakeSource:
    """`total` rows named row-N; records every request; optional delay and count."""

    def __init__(self, total: int, *, with_count: bool = True, delay: float = 0.0) -> None:
        self.total = total
        self.with_count = with_count
        self.delay = delay
        self.calls: list[tuple[int, int, str | None, bool]] = []
        self.fail = False

    async def __call__(
        self, page: int, size: int, sort: str | None, desc: bool
    ) -> ListEnvelope[Row]:
        self.calls.append((page, size, sort, desc))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise RuntimeError("boom")
        start = (page - 1) * size
        numbers = range(start, min(start + size, self.total))
        if desc:
            numbers = range(self.total - 1 - start, max(self.total - 1 - start - size, -1), -1)
        rows = [Row(n, f"row-{n}") for n in numbers]
        count = self.total if (page == 1 and self.with_count) else None
        return ListEnvelope[Row](briefs=rows, count=count, more=start + size < self.total)


COLUMNS: list[Column[Row]] = [
    Column("Name", lambda r: r.name, sort_key="name"),
    Column("N", lambda r: r.n, alignment=Qt.AlignmentFlag.AlignRight),
]


def make(source: FakeSource, **kw: Any) -> PagedTableModel[Row]:
    return PagedTableModel(COLUMNS, source, page_size=10, **kw)


def wait_loaded(qtbot: Any, model: PagedTableModel[Row]) -> None:
    qtbot.waitUntil(lambda: not model.loading and model.rowCount() > 0, timeout=3000)


def test_row_count_from_first_page_and_placeholders(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(1_000_000)
    model = make(source)
    model.reload()
    wait_loaded(qtbot, model)
    assert model.rowCount() == 1_000_000
    assert model.data(model.index(0, 0)) == "row-0"
    assert model.data(model.index(5, 1)) == "5"
    # A far row is a placeholder until its page arrives.
    far = model.index(500_005, 0)
    assert model.data(far) == PLACEHOLDER
    qtbot.waitUntil(lambda: model.data(far) == "row-500005", timeout=3000)
    # Only the first page and the visible one were fetched.
    assert [c[0] for c in source.calls] == [1, 50_001]


def test_requests_are_coalesced_and_deduplicated(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(1000, delay=0.05)
    model = make(source)
    model.reload()
    wait_loaded(qtbot, model)
    for row in range(200, 220):  # two pages asked many times in one paint
        for col in range(2):
            model.data(model.index(row, col))
    qtbot.waitUntil(lambda: model.item(219) is not None, timeout=3000)
    pages = [c[0] for c in source.calls]
    assert pages == [1, 22, 21]  # newest wish first, each once


def test_stale_generation_is_dropped(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(1000, delay=0.05)
    model = make(source)
    model.reload()
    wait_loaded(qtbot, model)
    model.data(model.index(500, 0))
    qtbot.waitUntil(lambda: len(source.calls) == 2, timeout=2000)
    generation = model.generation
    model.reload()  # e.g. a filter change while page 51 is on its way
    assert model.generation == generation + 1
    wait_loaded(qtbot, model)
    qtbot.wait(120)
    assert model.loaded_pages() == [0]


def test_lru_bound_keeps_memory_flat(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(1_000_000)
    model = make(source, max_cached_pages=5)
    model.reload()
    wait_loaded(qtbot, model)
    for page in range(0, 40_000, 1000):
        index = model.index(page * 10, 0)
        model.data(index)
        qtbot.waitUntil(lambda index=index: model.data(index) != PLACEHOLDER, timeout=2000)
        assert len(model.loaded_pages()) <= 5
    gc.collect()
    assert len(model.loaded_pages()) == 5


def test_server_side_sort(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(100)
    model = make(source)
    model.reload()
    wait_loaded(qtbot, model)
    with qtbot.waitSignal(model.first_page_loaded, timeout=2000):
        model.sort(0, Qt.SortOrder.DescendingOrder)
    assert source.calls[-1] == (1, 10, "name", True)
    assert model.data(model.index(0, 0)) == "row-99"
    calls = len(source.calls)
    model.sort(1, Qt.SortOrder.AscendingOrder)  # not sortable: nothing happens
    qtbot.wait(30)
    assert len(source.calls) == calls


def test_growing_mode_without_count(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(25, with_count=False)
    model = make(source)
    model.reload()
    wait_loaded(qtbot, model)
    assert model.rowCount() == 10 and model.canFetchMore(QModelIndex())
    model.fetchMore(QModelIndex())
    qtbot.waitUntil(lambda: model.rowCount() == 20, timeout=2000)
    model.fetchMore(QModelIndex())
    qtbot.waitUntil(lambda: model.rowCount() == 25, timeout=2000)
    assert not model.canFetchMore(QModelIndex())


def test_errors_are_signalled(qtbot: Any, qloop: Any) -> None:
    source = FakeSource(100)
    source.fail = True
    model = make(source)
    with qtbot.waitSignal(model.error, timeout=2000) as blocker:
        model.reload()
    assert "boom" in blocker.args[0]
    assert not model.loading


def test_item_role_and_modeltester(qtbot: Any, qloop: Any, qtmodeltester: Any) -> None:
    source = FakeSource(35)
    model = make(source)
    qtmodeltester.check(model)  # watches every change from before the first load
    model.reload()
    wait_loaded(qtbot, model)
    for row in (10, 20, 30):
        model.data(model.index(row, 0))
    qtbot.waitUntil(lambda: model.item(34) is not None, timeout=2000)
    assert model.data(model.index(3, 0), ItemRole) == Row(3, "row-3")
    qtmodeltester.check(model, force_py=True)


@pytest.mark.parametrize("total", [0, 3])
def test_modeltester_small_and_empty(
    qtbot: Any, qloop: Any, qtmodeltester: Any, total: int
) -> None:
    model = make(FakeSource(total))
    qtmodeltester.check(model)  # watches every change from before the first load
    model.reload()
    qtbot.waitUntil(lambda: not model.loading, timeout=2000)
    qtbot.wait(20)
    assert model.rowCount() == total
    qtmodeltester.check(model, force_py=True)
