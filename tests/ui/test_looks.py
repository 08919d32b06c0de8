"""The looks of issue 20: readable links after a theme change, focused buttons that keep
their labels, list-and-detail splitters that give the list the room and remember it."""

from __future__ import annotations

from collections import Counter
from typing import Any

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser

from lpwa_console.ui.theme import apply_theme

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
