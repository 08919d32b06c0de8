"""The Help menu's windows: the keyboard shortcuts (read from the window's own actions, so
the list cannot drift from what the keys do) and About."""

from __future__ import annotations

import platform
from html import escape
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .. import __version__
from .widgets.form_parts import close_buttons

# Keys that belong to a control rather than to a menu action, said in the same list.
CONTROL_KEYS = [
    ("Enter (in a search box)", "Move to the results"),
    ("Enter (on an alarm)", "Open its device or multicast group"),
    ("Esc (in a filter)", "Clear the filter"),
    ("Up / Down, Enter, Esc (in the command palette)", "Choose, open, close"),
    ("Tab / Shift+Tab", "Next / previous control"),
]


def shortcut_rows(actions: list[QAction]) -> list[tuple[str, str]]:
    """(keys, what they do) of every action with a shortcut, in menu order. An action whose
    meaning follows the pane shown (Ctrl+N) says it per pane in its What's This text."""
    rows = []
    for action in actions:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        if keys:
            does = action.whatsThis() or action.text().replace("&", "").rstrip("…")
            rows.append((" or ".join(keys), does))
    return rows


class ShortcutsDialog(QDialog):
    def __init__(self, actions: list[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        rows = shortcut_rows(actions) + CONTROL_KEYS
        self.table = QTableWidget(len(rows), 2)
        self.table.setObjectName("shortcutsTable")
        self.table.setHorizontalHeaderLabels(["Keys", "Does"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 260)
        for row, (keys, does) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(does))
        buttons = close_buttons(self)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Every menu action and its keys:"))
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(620, 560)

    def rows(self) -> list[tuple[str, str]]:
        def text(row: int, column: int) -> str:
            item = self.table.item(row, column)
            return item.text() if item is not None else ""

        return [(text(r, 0), text(r, 1)) for r in range(self.table.rowCount())]


def about_html(platform_text: str, data_dir: Path | None) -> str:
    rows = [
        ("Version", __version__),
        ("Platform", platform_text),
        ("Data folder", str(data_dir) if data_dir is not None else "—"),
        (
            "Runs on",
            f"Python {platform.python_version()}, Qt {qVersion()}, PySide6 {pyside_version}, "
            f"{platform.system()} {platform.release()}",
        ),
    ]
    table = "".join(
        f"<tr><td style='padding:2px 12px 2px 0;opacity:.7'>{escape(k)}</td>"
        f"<td>{escape(v)}</td></tr>"
        for k, v in rows
    )
    return (
        "<h3>LPWA Console</h3><p>Manage LoRaWAN and cellular IoT networks: devices, alarms, "
        f"multicast groups, application servers and network resources.</p><table>{table}</table>"
    )


def about_box(platform_text: str, data_dir: Path | None, parent: QWidget) -> QMessageBox:
    box = QMessageBox(parent)
    box.setObjectName("aboutBox")
    box.setWindowTitle("About LPWA Console")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html(platform_text, data_dir))
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    return box
