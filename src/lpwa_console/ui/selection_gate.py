"""Action controls tied to the selection they act on: one mechanism for every list pane.

A pane says once what each control needs (`needs(self.tag_button, min_rows=1)`,
`needs(self.edit_button, max_rows=1, test=...)`); the gate re-judges every control whenever
the selection, the rows under it (a delete, an acknowledge, a refresh, a reload) or the
connection change, and enables it through the pane's `RightsGate`: enabled only when the
selection fits AND the account may; otherwise its tooltip says why ("Select a device first").
Without this, a button stayed enabled after a delete emptied the selection, and did nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QAbstractItemView

from .rights import RightsGate, Target

# rows selected -> why the control cannot act on them ('' when it can)
RowTest = Callable[[list[int]], str]
MAX_TESTED_ROWS = 10_000  # a test is given at most this many rows (a huge selection)


def a_noun(noun: str) -> str:
    """The noun with its article: a device, an alarm."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


@dataclass
class _Need:
    target: Target
    min_rows: int
    max_rows: int | None
    test: RowTest | None
    current: bool  # the table's current row counts as the selection (Open, Edit)


class SelectionGate(QObject):
    """Judges a pane's action controls by the selection of one table."""

    def __init__(
        self,
        table: QAbstractItemView,
        gate: RightsGate,
        *,
        noun: str,
        connected: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent or table)
        self.table = table
        self.gate = gate
        self.noun = noun  # "device", "alarm": said in "Select a device first"
        self._connected = connected
        self._needs: list[_Need] = []
        self._timer = QTimer(self)  # many changes in one turn: judged once
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.update)
        self._model: object = None
        self._watch()

    def needs(
        self,
        target: Target,
        *,
        min_rows: int = 1,
        max_rows: int | None = None,
        test: RowTest | None = None,
        current: bool = False,
    ) -> Target:
        """`target` acts on min..max selected rows for which `test` says nothing against."""
        self._needs.append(_Need(target, min_rows, max_rows, test, current))
        self.update()
        return target

    def later(self) -> None:
        """Judge again on the next turn of the event loop (coalesced)."""
        self._timer.start()

    def selected_rows(self) -> list[int]:
        """The rows selected, read from the selection's ranges (no index per row)."""
        model = self.table.selectionModel()
        if model is None:
            return []
        rows: set[int] = set()
        ranges = model.selection()
        for i in range(ranges.count()):
            part = ranges.at(i)
            rows.update(range(part.top(), part.bottom() + 1))
            if len(rows) > MAX_TESTED_ROWS:
                break
        return sorted(rows)

    def why_not(self, need: _Need, rows: list[int]) -> str:
        """Why this control cannot act now ('' when it can)."""
        if not self._connected():
            return "Not connected"
        if need.current and not rows:
            index = self.table.currentIndex()
            rows = [index.row()] if index.isValid() else []
        count = len(rows)
        if count < need.min_rows:
            return f"Select {a_noun(self.noun)} first"
        if need.max_rows is not None and count > need.max_rows:
            return (
                f"Select only one {self.noun}"
                if need.max_rows == 1
                else (f"Select at most {need.max_rows:,} {self.noun}s")
            )
        return need.test(rows) if need.test is not None else ""

    def update(self) -> None:
        self._timer.stop()
        self._watch()
        rows = self.selected_rows()
        for need in self._needs:
            why = self.why_not(need, rows)
            self.gate.enable(need.target, not why, why)

    def _watch(self) -> None:
        """Follow the table's model and selection (both change when a pane sets another)."""
        model = self.table.model()
        if model is None or model is self._model:
            return
        self._model = model
        later = self.later
        for signal in (
            model.modelReset,
            model.rowsRemoved,
            model.rowsInserted,
            model.layoutChanged,
            model.dataChanged,
        ):
            signal.connect(later)
        selection = self.table.selectionModel()  # a click is judged at once
        selection.selectionChanged.connect(lambda *_: self.update())
        selection.currentChanged.connect(lambda *_: self.update())
