"""Light and dark palettes that follow the system, plus our small style sheet."""

from __future__ import annotations

import logging
from typing import Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QApplication, QLabel, QTextEdit

from .resources import read_text

log = logging.getLogger(__name__)

ThemeChoice = Literal["system", "light", "dark"]

# Severity colours (1 cleared .. 6 critical) for each palette.
SEVERITY_LIGHT = {
    1: "#2e7d32",
    2: "#607d8b",
    3: "#b28704",
    4: "#ef6c00",
    5: "#d84315",
    6: "#c62828",
}
SEVERITY_DARK = {
    1: "#81c784",
    2: "#b0bec5",
    3: "#ffd54f",
    4: "#ffb74d",
    5: "#ff8a65",
    6: "#ef5350",
}


def system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    return hints.colorScheme() == Qt.ColorScheme.Dark


def is_dark(app: QApplication | None = None) -> bool:
    app = app or QApplication.instance()  # type: ignore[assignment]
    if app is None:
        return False
    return bool(app.property("lpwaDark"))


def severity_color(level: int) -> QColor:
    table = SEVERITY_DARK if is_dark() else SEVERITY_LIGHT
    return QColor(table.get(level, table[2]))


def error_background() -> QColor:
    """Behind a value that was refused (a red not loud enough to hide the text)."""
    return QColor("#5c1f1f") if is_dark() else QColor("#fbd5d5")


def dark_palette() -> QPalette:
    p = QPalette()
    window, base, text = QColor("#1f2227"), QColor("#17191d"), QColor("#e6e6e6")
    roles = {
        QPalette.ColorRole.Window: window,
        QPalette.ColorRole.WindowText: text,
        QPalette.ColorRole.Base: base,
        QPalette.ColorRole.AlternateBase: QColor("#22252b"),
        QPalette.ColorRole.ToolTipBase: QColor("#2b2f36"),
        QPalette.ColorRole.ToolTipText: text,
        QPalette.ColorRole.PlaceholderText: QColor("#8a8f98"),
        QPalette.ColorRole.Text: text,
        QPalette.ColorRole.Button: QColor("#2a2e35"),
        QPalette.ColorRole.ButtonText: text,
        QPalette.ColorRole.BrightText: QColor("#ff5252"),
        QPalette.ColorRole.Light: QColor("#3a3f47"),
        QPalette.ColorRole.Midlight: QColor("#30343b"),
        QPalette.ColorRole.Mid: QColor("#2a2e35"),
        QPalette.ColorRole.Dark: QColor("#121316"),
        QPalette.ColorRole.Shadow: QColor("#000000"),
        QPalette.ColorRole.Highlight: QColor("#2f6fbf"),
        QPalette.ColorRole.HighlightedText: QColor("#ffffff"),
        QPalette.ColorRole.Link: QColor("#6ab0ff"),
    }
    for role, color in roles.items():
        p.setColor(role, color)
    disabled = QColor("#6b6f76")
    for role in (
        QPalette.ColorRole.Text,
        QPalette.ColorRole.ButtonText,
        QPalette.ColorRole.WindowText,
    ):
        p.setColor(QPalette.ColorGroup.Disabled, role, disabled)
    return p


def light_palette() -> QPalette:
    p = QApplication.style().standardPalette()
    p.setColor(QPalette.ColorRole.AlternateBase, QColor("#f5f7fa"))
    p.setColor(QPalette.ColorRole.Highlight, QColor("#2f6fbf"))
    p.setColor(QPalette.ColorRole.HighlightedText, QColor("#ffffff"))
    return p


def apply_theme(app: QApplication, choice: ThemeChoice = "system") -> bool:
    """Apply the palette and style sheet; returns True when dark."""
    dark = system_is_dark() if choice == "system" else choice == "dark"
    app.setStyle("Fusion")
    app.setPalette(dark_palette() if dark else light_palette())
    app.setProperty("lpwaDark", dark)
    try:
        qss = read_text("themes", "base.qss") + read_text(
            "themes", "dark.qss" if dark else "light.qss"
        )
    except OSError as exc:
        log.warning("theme files not found: %s", exc)
        qss = ""
    app.setStyleSheet(qss)
    refresh_links(app)
    return dark


def refresh_links(app: QApplication) -> None:
    """Qt bakes the palette's link colour into rich text when it parses it: text shown
    before a theme change kept the old one (the light theme's dark blue on dark grey).
    Labels parse their text again; documents (text browsers) get their anchors recoloured."""
    link = app.palette().color(QPalette.ColorRole.Link)
    for widget in app.allWidgets():
        if isinstance(widget, QLabel) and "<a " in widget.text():
            text = widget.text()
            widget.clear()  # setText with the same text would do nothing
            widget.setText(text)
        elif isinstance(widget, QTextEdit):
            _recolour_anchors(widget, link)


def _recolour_anchors(edit: QTextEdit, link: QColor) -> None:
    document = edit.document()
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor():
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position())
                cursor.setPosition(
                    fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                )
                recoloured = QTextCharFormat()
                recoloured.setForeground(link)
                cursor.mergeCharFormat(recoloured)
            it += 1
        block = block.next()
