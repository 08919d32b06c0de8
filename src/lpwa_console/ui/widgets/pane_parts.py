"""Parts every list pane has: the lazy table, the busy bar, the empty state in place of the
table, and a message line that hides itself after a while."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
)
from PySide6.QtGui import QBrush, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QStackedWidget,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

from ...models.paged_table import PagedTableModel, SeverityRole
from ..theme import error_background, severity_color
from .column_chooser import install_column_chooser

MESSAGE_MS = 6000


# Where a cell reads as what it means: its level, from 6 (critical) to 1, 0 for none.
LevelOf = Callable[[QModelIndex | QPersistentModelIndex], int]
CellTest = Callable[[QModelIndex | QPersistentModelIndex], bool]


def alarm_severity(index: QModelIndex | QPersistentModelIndex) -> int:
    """The row's alarm severity (SeverityRole)."""
    return int(index.data(SeverityRole) or 0)


class SeverityDelegate(QStyledItemDelegate):
    """Colours a cell by what it means: its text in the colour of `level(index)` (the
    row's alarm severity by default), major and critical in bold where `bold`; a cell
    `refused(index)` says is wrong, on the error background (an import's refused value)."""

    def __init__(
        self,
        parent: QObject | None = None,
        level: LevelOf = alarm_severity,
        *,
        bold: bool = True,
        refused: CellTest | None = None,
    ) -> None:
        super().__init__(parent)
        self.level = level
        self.bold = bold
        self.refused = refused

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        level = self.level(index)
        if level:
            option.palette.setColor(option.palette.ColorRole.Text, severity_color(level))
            if self.bold:
                font = QFont(option.font)
                font.setBold(level >= 5)
                option.font = font
        if self.refused is not None and self.refused(index):
            option.backgroundBrush = QBrush(error_background())


def row_table(model: QAbstractItemModel, name: str) -> QTableView:
    """A read-only table of rows: whole rows selected, no grid, no wrapping, alternate
    colours, a fixed row height (the view never measures rows, PITFALLS)."""
    table = QTableView()
    table.setObjectName(name)
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setAlternatingRowColors(True)
    table.setWordWrap(False)
    table.setShowGrid(False)
    vertical = table.verticalHeader()
    vertical.setVisible(False)
    vertical.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vertical.setDefaultSectionSize(table.fontMetrics().height() + 8)
    return table


def data_table(model: PagedTableModel[Any], name: str, *, multi_select: bool = False) -> QTableView:
    """A row table over a lazy model (`row_table`): the columns' widths, severity colours,
    sorting when a column sorts."""
    table = row_table(model, name)
    table.setSelectionMode(
        QAbstractItemView.SelectionMode.ExtendedSelection
        if multi_select
        else QAbstractItemView.SelectionMode.SingleSelection
    )
    # Tab leaves the table for the next control (arrows move inside it): a row list is one
    # stop of the keyboard's way, not a grid of cells to walk through.
    table.setTabKeyNavigation(False)
    header = table.horizontalHeader()
    header.setStretchLastSection(True)
    header.setHighlightSections(False)
    delegate = SeverityDelegate(table)
    metrics = table.fontMetrics()
    for column, spec in enumerate(model.columns):
        if spec.width:
            # Never narrower than its header or its usual value in this font: a cut time or
            # title says nothing.
            fits = max(
                metrics.horizontalAdvance(spec.header) + 28,  # room for the sort arrow
                metrics.horizontalAdvance(spec.sample) + 14 if spec.sample else 0,
            )
            table.setColumnWidth(column, max(spec.width, fits))
        if spec.hidden:  # shown from the header's column chooser
            table.setColumnHidden(column, True)
        if spec.severity is not None:
            table.setItemDelegateForColumn(column, delegate)
    if any(c.sort_key for c in model.columns):
        header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        table.setSortingEnabled(True)
    install_column_chooser(table)
    return table


def busy_bar() -> QProgressBar:
    """A small indeterminate bar shown while pages load."""
    bar = QProgressBar()
    bar.setRange(0, 0)
    bar.setMaximumSize(80, 8)
    bar.setTextVisible(False)
    # Its room is kept while hidden, and it asks for almost none at the row's narrowest: a
    # bar coming and going with each request must not move the row it sits in (a map whose
    # width changed asked for its new box, and so on), nor widen a narrow pane.
    bar.setMinimumWidth(1)
    policy = bar.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    bar.setSizePolicy(policy)
    bar.setVisible(False)
    return bar


NOT_CONNECTED = "Not connected"


class TableOrEmpty(QStackedWidget):
    """The table, or in its place a sentence saying why there is nothing to show."""

    def __init__(self, table: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = table
        self.empty = QLabel()
        self.empty.setObjectName("emptyState")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setWordWrap(True)
        self._asked = ""
        self._offline = ""
        self.addWidget(table)
        self.addWidget(self.empty)

    def show_empty(self, text: str) -> None:
        """Show `text` instead of the table; an empty text shows the table."""
        self._asked = text
        shown = self._offline if text == NOT_CONNECTED and self._offline else text
        self.empty.setText(shown)
        self.setCurrentWidget(self.empty if shown else self.table)

    def set_offline_text(self, text: str) -> None:
        """What to say instead of "Not connected" while a connection is on its way
        ("Starting the local sandbox…"); an empty text says "Not connected" again."""
        self._offline = text
        self.show_empty(self._asked)


class PaneMessage(QLabel):
    """A one-line message (what just happened) that empties itself after a few seconds.

    Its line is always there, empty or not: a message that appeared and went would push the
    pane down and back, and a click meant for a row would land on another (issue 20). A text
    longer than the line is cut at the pane's edge; the whole of it is the tooltip."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("paneMessage")
        self.setWordWrap(False)
        self.setFixedHeight(self.fontMetrics().height() + 4)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(MESSAGE_MS)
        self._timer.timeout.connect(self.clear_message)

    def show_message(self, text: str) -> None:
        self.setText(text)
        self.setToolTip(text)
        self._timer.start()

    def clear_message(self) -> None:
        self.setText("")
        self.setToolTip("")


def keep_line(label: QLabel) -> None:
    """A status label keeps one line of room when empty: a text that comes and goes does
    not move what is under it."""
    label.setMinimumHeight(label.fontMetrics().height() + 2)


def tab_order(*widgets: QWidget) -> None:
    """Tab goes through these in this order (reading order: filters, actions, list, detail),
    whatever order they were created in."""
    for first, second in pairwise(widgets):
        QWidget.setTabOrder(first, second)


def count_text(
    count: int, noun: str, plural: str, *, first_loaded: bool, known: bool = True
) -> str:
    """A list's count in words: "Loading…" until its first page, "1,234+ devices" while the
    platform has not said its total."""
    if not first_loaded:
        return "Loading…"
    return f"{count:,}{'' if known else '+'} {noun if count == 1 else plural}"


def selected_rows(table: QTableView, limit: int) -> list[int]:
    """The rows selected in `table` (sorted), read by ranges and stopped once past `limit`:
    a huge selection builds no index per row."""
    rows: list[int] = []
    ranges = table.selectionModel().selection()
    for selection in (ranges.at(i) for i in range(ranges.count())):
        rows.extend(range(selection.top(), selection.bottom() + 1))
        if len(rows) > limit:
            break
    return sorted(set(rows))


class KeptDialog:
    """A pane's one form dialog open at a time (`dialog`), deleted once closed."""

    dialog: Any = None

    def _show_dialog(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.finished.connect(self._dialog_closed)
        dialog.open()

    def _dialog_closed(self, _result: int) -> None:
        if self.dialog is not None:
            self.dialog.deleteLater()
        self.dialog = None
