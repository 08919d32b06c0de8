"""The tables' remembered columns: put back onto the same columns, never onto others."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QTableView, QWidget

from lpwa_console.ui.widgets.column_chooser import restore_tables, save_tables


def _table(holder: QWidget, titles: list[str]) -> QTableView:
    model = QStandardItemModel(3, len(titles), holder)
    model.setHorizontalHeaderLabels(titles)
    table = QTableView(holder)
    table.setObjectName("someTable")
    table.setModel(model)
    return table


def test_a_saved_state_returns_to_the_same_columns_only(qtbot: Any, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    holder = QWidget()
    qtbot.addWidget(holder)
    table = _table(holder, ["Severity", "Alarm", "Source", "Info"])
    table.setColumnWidth(2, 111)
    table.setColumnHidden(3, True)
    save_tables(holder, settings)

    again = QWidget()
    qtbot.addWidget(again)
    same = _table(again, ["Severity", "Alarm", "Source", "Info"])
    restore_tables(again, settings)
    assert same.columnWidth(2) == 111 and same.isColumnHidden(3)

    # A later version moved Info before Source: the old widths are not given to others.
    moved_holder = QWidget()
    qtbot.addWidget(moved_holder)
    moved = _table(moved_holder, ["Severity", "Alarm", "Info", "Source"])
    default = moved.columnWidth(2)
    restore_tables(moved_holder, settings)
    assert moved.columnWidth(2) == default and not moved.isColumnHidden(3)
