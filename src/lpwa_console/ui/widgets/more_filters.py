"""Filters that do not fit a filter bar: a "Filters (n)" button opening a panel of text
filters under it, with "Clear all filters"; and Esc clearing the focused filter field."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..theme import is_dark


@dataclass(frozen=True)
class TextFilter:
    key: str  # the request parameter
    label: str
    placeholder: str
    tip: str = ""


def filter_line(name: str, placeholder: str, tip: str = "") -> QLineEdit:
    """A typed filter of a list's bar: named, saying what to type, cleared with one click."""
    edit = QLineEdit()
    edit.setObjectName(name)
    edit.setPlaceholderText(placeholder)
    if tip:
        edit.setToolTip(tip)
    edit.setClearButtonEnabled(True)
    return edit


class EscapeClears(QObject):
    """Esc in a filter field clears it (a combo goes back to its first choice, "All") and calls
    `cleared`. An empty field lets Esc through, e.g. to close the panel it is in."""

    def __init__(self, cleared: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.cleared = cleared

    def watch(self, *widgets: QWidget) -> None:
        for widget in widgets:
            widget.installEventFilter(self)

    @staticmethod
    def _has_value(widget: QObject) -> bool:
        if isinstance(widget, QLineEdit):
            return bool(widget.text())
        if isinstance(widget, QComboBox):
            return widget.currentIndex() > 0
        return False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if (
            kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress)
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and not event.modifiers()
            and self._has_value(watched)
        ):
            if kind == QEvent.Type.ShortcutOverride:
                event.accept()  # the key press comes here, not to a shortcut
                return True
            if isinstance(watched, QLineEdit):
                watched.clear()
            elif isinstance(watched, QComboBox):
                watched.setCurrentIndex(0)
            self.cleared()
            return True
        return super().eventFilter(watched, event)


class FilterPanel(QFrame):
    """The panel: one line per filter, then "Clear all filters". A popup: a click elsewhere
    or Esc (in an empty field) closes it."""

    clear_requested = Signal()

    def __init__(self, button: QWidget, filters: list[TextFilter]) -> None:
        super().__init__(button, Qt.WindowType.Popup)
        self.setObjectName("moreFiltersPanel")
        self.button = button
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.edits: dict[str, QLineEdit] = {}
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for spec in filters:
            edit = QLineEdit()
            edit.setObjectName(f"filter_{spec.key}")
            edit.setPlaceholderText(spec.placeholder)
            edit.setToolTip(spec.tip)
            edit.setClearButtonEnabled(True)
            edit.setMinimumWidth(280)
            form.addRow(spec.label, edit)
            self.edits[spec.key] = edit
        self.clear_button = QPushButton("Clear all filters")
        self.clear_button.setObjectName("clearFilters")
        self.clear_button.setToolTip("Clear every filter of the list, these and the bar's")
        self.clear_button.clicked.connect(self.clear_requested)
        hint = QLabel("Esc clears a field")
        hint.setEnabled(False)
        row = QHBoxLayout()
        row.addWidget(hint, 1)
        row.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(row)

    def popup(self) -> None:
        """Show under the button, right edges aligned, inside the screen."""
        # A popup over a window of the same colour: a line shows its edge (in the theme of now).
        edge = "light" if is_dark() else "mid"
        self.setStyleSheet(f"QFrame#moreFiltersPanel {{ border: 1px solid palette({edge}); }}")
        self.adjustSize()
        anchor = self.button.mapToGlobal(QPoint(self.button.width(), self.button.height()))
        x, y = anchor.x() - self.width(), anchor.y() + 2
        screen = self.button.screen() or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            x = max(area.left(), min(x, area.right() - self.width()))
            if y + self.height() > area.bottom():
                y = self.button.mapToGlobal(QPoint(0, 0)).y() - self.height() - 2
        self.move(x, y)
        self.show()
        first = next(iter(self.edits.values()), None)
        focus = next((e for e in self.edits.values() if e.text()), first)
        if focus is not None:
            focus.setFocus(Qt.FocusReason.PopupFocusReason)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        # A click on the button closes the panel; it must not open it again.
        on_button = self.button.rect().contains(
            self.button.mapFromGlobal(event.globalPosition().toPoint())
        )
        self.setAttribute(Qt.WidgetAttribute.WA_NoMouseReplay, on_button)
        super().mousePressEvent(event)


class MoreFiltersButton(QPushButton):
    """ "Filters", or "Filters (n)" when n of its panel's filters are set."""

    def __init__(self, filters: list[TextFilter], parent: QWidget | None = None) -> None:
        super().__init__("Filters", parent)
        self.setObjectName("moreFilters")
        self.specs = filters
        self.panel = FilterPanel(self, filters)
        self.edits = self.panel.edits
        self.clicked.connect(self.panel.popup)
        for edit in self.edits.values():
            edit.textChanged.connect(lambda _t: self.update_count())
        self.update_count()

    def active(self) -> list[TextFilter]:
        return [s for s in self.specs if self.edits[s.key].text().strip()]

    def values(self) -> dict[str, str | None]:
        return {key: edit.text().strip() or None for key, edit in self.edits.items()}

    def update_count(self) -> None:
        active = self.active()
        self.setText(f"Filters ({len(active)})" if active else "Filters")
        names = ", ".join(s.label for s in self.specs)
        on = "; ".join(f"{s.label}: {self.edits[s.key].text().strip()}" for s in active)
        self.setToolTip(f"More filters ({names})" + (f"\nSet: {on}" if on else ""))
