"""The looks of issue 20: readable links after a theme change, focused buttons that keep
their labels, list-and-detail splitters that give the list the room and remember it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, QSettings, Qt
from PySide6.QtGui import QColor, QMouseEvent, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QStyle,
    QStyleOptionButton,
    QTableView,
    QTextBrowser,
    QToolButton,
    QWidget,
)

from lpwa_console.models.devices import DevicesViewModel
from lpwa_console.ui.panes.devices import DevicesPane
from lpwa_console.ui.theme import apply_theme
from lpwa_console.ui.widgets.list_detail import (
    DETAIL_FLOOR,
    DETAIL_MAX,
    ListDetailSplitter,
    restore_splitters,
    save_splitters,
)
from tests.helpers import shot

LINK_HTML = "<a href='lpwa:devices//X'>LINKLINKLINKLINK</a>"


def _colours(widget: Any) -> Counter[str]:
    image = widget.grab().toImage()
    found: Counter[str] = Counter()
    for x in range(image.width()):
        for y in range(min(image.height(), 30)):
            found[QColor(image.pixel(x, y)).name()] += 1
    return found


def test_links_shown_before_a_theme_change_take_the_new_link_colour(qtbot: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = (app.palette(), app.styleSheet(), app.style().name(), app.property("lpwaDark"))
    apply_theme(app, "light")
    label, browser = QLabel(LINK_HTML), QTextBrowser()
    browser.setHtml(LINK_HTML)
    for widget in (label, browser):
        qtbot.addWidget(widget)
        widget.resize(220, 40)
        widget.show()
    for widget in (label, browser):
        assert _colours(widget)["#0000ff"] > 20  # laid out in the light theme's link colour
    try:
        apply_theme(app, "dark")
        link = app.palette().color(QPalette.ColorRole.Link).name()
        for widget in (label, browser):
            colours = _colours(widget)
            assert colours["#0000ff"] == 0  # the light theme's blue, unreadable on dark grey
            assert colours[link] > 20
    finally:
        palette, sheet, style, dark = before
        app.setStyle(style)
        app.setPalette(palette)
        app.setStyleSheet(sheet)
        app.setProperty("lpwaDark", dark)


def _themed(app: QApplication, theme: str) -> tuple[Any, ...]:
    before = (app.palette(), app.styleSheet(), app.style().name(), app.property("lpwaDark"))
    apply_theme(app, theme)  # type: ignore[arg-type]
    return before


def _unthemed(app: QApplication, before: tuple[Any, ...]) -> None:
    palette, sheet, style, dark = before
    app.setStyle(style)
    app.setPalette(palette)
    app.setStyleSheet(sheet)
    app.setProperty("lpwaDark", dark)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_focused_button_keeps_its_whole_label(qtbot: Any, theme: str) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = _themed(app, theme)
    try:
        row = QWidget()
        qtbot.addWidget(row)
        layout = QHBoxLayout(row)
        acknowledge = QPushButton("Acknowledge")
        plus = QPushButton("+")
        plus.setProperty("compact", True)
        commands = QToolButton()
        commands.setText("Commands")
        commands.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        commands.setMenu(QMenu(commands))
        buttons: list[QWidget] = [acknowledge, plus, commands]
        for button in buttons:
            layout.addWidget(button)
        layout.addStretch(1)
        row.show()
        qtbot.waitExposed(row)
        for button in buttons:
            # The label keeps the room it was laid out with when the button takes the focus
            # (the focus ring is no wider a box).
            hint, width = button.sizeHint(), button.width()
            button.setFocus()
            qtbot.waitUntil(button.hasFocus)
            QApplication.processEvents()
            assert button.sizeHint() == hint
            assert button.width() == width >= hint.width()
            if isinstance(button, QPushButton):
                option = QStyleOptionButton()
                option.initFrom(button)  # focused: the style sheet's :focus box
                room = button.style().subElementRect(
                    QStyle.SubElement.SE_PushButtonContents, option, button
                )
                assert room.width() >= button.fontMetrics().horizontalAdvance(button.text())
    finally:
        _unthemed(app, before)


def _devices_pane(qtbot: Any, devices_vm: DevicesViewModel, width: int) -> DevicesPane:
    pane = DevicesPane(devices_vm)
    qtbot.addWidget(pane)
    pane.resize(width, 640)
    pane.show()
    qtbot.waitExposed(pane)
    qtbot.waitUntil(lambda: devices_vm.model.item(0) is not None, timeout=15000)
    # The filters' lists, asked a moment after the rows: answered while this test's loop runs.
    refs = devices_vm.references.values()
    qtbot.waitUntil(lambda: all(m.loaded or m.error for m in refs), timeout=15000)
    return pane


def test_the_list_gets_the_room(qtbot: Any, devices_vm: DevicesViewModel) -> None:
    # A 1280 px laptop (less the side list): the detail yields to the list.
    pane = _devices_pane(qtbot, devices_vm, 1280 - 150)
    splitter = pane.splitter
    assert isinstance(splitter, ListDetailSplitter)
    listed, detail = splitter.sizes()
    # (the list's columns fit: the detail takes what they leave, near its floor)
    assert DETAIL_FLOOR <= detail < DETAIL_MAX and listed > 2 * detail
    # Every column shown by default is in sight, none squeezed under its title: no
    # horizontal scroll bar (the defaults once totalled 1,310 px); the others are a
    # right-click away in the header's column chooser.
    table = pane.table
    model = devices_vm.model
    headers = [c.header for c in model.columns]
    shown = [c for c in range(len(headers)) if not table.isColumnHidden(c)]
    assert {"Name", "DevEUI / IMEI", "Health", "Model", "Last uplink"} <= {
        headers[c] for c in shown
    }
    for column in shown:
        right = table.columnViewportPosition(column) + table.columnWidth(column)
        assert right <= table.viewport().width(), headers[column]
        title = table.fontMetrics().horizontalAdvance(headers[column])
        assert table.columnWidth(column) >= title, headers[column]
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() == 0, timeout=2000)
    shot(pane, "devices-1280.png")
    # A 1920 px workstation: every column shown, the detail far from half the width.
    pane.resize(1920 - 150, 900)
    qtbot.waitUntil(lambda: splitter.sizes()[0] > listed + 400, timeout=2000)
    listed, detail = splitter.sizes()
    assert detail <= DETAIL_MAX and detail < (listed + detail) / 3
    qtbot.waitUntil(lambda: table.horizontalScrollBar().maximum() == 0, timeout=2000)
    shot(pane, "devices-1920.png")


def test_a_split_is_remembered_per_pane(
    qtbot: Any, devices_vm: DevicesViewModel, tmp_path: Path
) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    pane = _devices_pane(qtbot, devices_vm, 1400)
    splitter = pane.splitter
    assert isinstance(splitter, ListDetailSplitter)
    before = splitter.sizes()[1]
    handle = splitter.handle(1)
    start = QPoint(handle.width() // 2, handle.height() // 2)
    end = start - QPoint(150, 0)  # drag left: a wider detail
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for t in (0.3, 0.7, 1.0):
        where = start + (end - start) * t
        move = QMouseEvent(
            QEvent.Type.MouseMove,
            QPointF(where),
            QPointF(handle.mapToGlobal(where)),
            Qt.MouseButton.NoButton,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        QApplication.sendEvent(handle, move)
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)
    chosen = splitter.sizes()[1]
    assert chosen >= before + 100 and splitter.detail_width == chosen
    # The window grows: the detail keeps the width chosen, the list takes the rest.
    pane.resize(1600, 640)
    qtbot.waitUntil(lambda: splitter.sizes()[1] == chosen, timeout=2000)
    save_splitters(pane, settings)
    pane.close()

    again = _devices_pane(qtbot, devices_vm, 1400)
    restore_splitters(again, settings)
    assert again.splitter.sizes()[1] == chosen
    # Another pane's split is its own.
    other = QWidget()
    qtbot.addWidget(other)
    ListDetailSplitter("stationsSplitter", QTableView(), QWidget(), other)
    restore_splitters(other, settings)
    found = other.findChild(ListDetailSplitter)
    assert found is not None and found.detail_width is None
