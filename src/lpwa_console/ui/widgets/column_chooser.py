"""Which columns a table shows: a right-click on any table header lists them to show or hide,
and the window remembers every table's columns (order, widths, hidden ones) by name.

Installed by `data_table`, so every list of every pane has it; the first column (what names
the row) cannot be hidden."""

from __future__ import annotations

import zlib

from PySide6.QtCore import QByteArray, QPoint, QSettings, Qt
from PySide6.QtWidgets import QHeaderView, QMenu, QTableView, QWidget

SETTINGS_GROUP = "tables"


def install_column_chooser(table: QTableView) -> None:
    header = table.horizontalHeader()
    header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    header.customContextMenuRequested.connect(
        lambda pos: column_menu(table).popup(header.mapToGlobal(QPoint(pos)))
    )
    header.setToolTip("Right-click to choose the columns")


def column_menu(table: QTableView) -> QMenu:
    """The header's menu: one checkable entry per column, and a reset."""
    header = table.horizontalHeader()
    model = table.model()
    menu = QMenu(table)
    menu.setObjectName("columnMenu")
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    for column in range(model.columnCount()):
        title = str(model.headerData(column, Qt.Orientation.Horizontal))
        action = menu.addAction(title)
        action.setCheckable(True)
        action.setChecked(not header.isSectionHidden(column))
        action.setEnabled(column != 0)
        action.toggled.connect(lambda shown, c=column: header.setSectionHidden(c, not shown))
    menu.addSeparator()
    menu.addAction("Show all columns", lambda: show_all(header))
    return menu


def show_all(header: QHeaderView) -> None:
    for column in range(header.count()):
        header.setSectionHidden(column, False)


def _key(table: QTableView) -> str:
    """The table's name and its columns' titles in order (a digest): columns added, removed
    or moved since a state was saved make another key, so that state is not put back onto
    columns it was not made for (Qt would give one column another's width)."""
    model = table.model()
    titles = "|".join(
        str(model.headerData(c, Qt.Orientation.Horizontal)) for c in range(model.columnCount())
    ) if model is not None else ""  # fmt: skip
    return f"{SETTINGS_GROUP}/{table.objectName()}-{zlib.crc32(titles.encode()):08x}"


def save_tables(root: QWidget, settings: QSettings) -> None:
    """Remember the columns of every named table under `root`."""
    for table in root.findChildren(QTableView):
        if table.objectName():
            settings.setValue(_key(table), table.horizontalHeader().saveState())


def restore_tables(root: QWidget, settings: QSettings) -> None:
    """Put back what `save_tables` kept; a table whose columns changed since keeps its
    defaults (another key; and Qt refuses a state of another column count)."""
    for table in root.findChildren(QTableView):
        state = settings.value(_key(table)) if table.objectName() else None
        if isinstance(state, QByteArray) and not state.isEmpty():
            header = table.horizontalHeader()
            count = header.count()
            if not header.restoreState(state) or header.count() != count:
                show_all(header)
