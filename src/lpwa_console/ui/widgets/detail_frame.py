"""The frame of a detail beside a list (a device, a base station): its tabs, or a sentence
(a title and a few words) when there is nothing to show, and loading and errors said the
same way in every detail."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import QLabel, QStackedWidget, QTabWidget, QVBoxLayout, QWidget

from .detail_html import muted


class DetailFrame(QWidget):
    """`tabs` when an item is shown, else the empty page (`empty_title`, `empty_text`).
    A detail says what it shows first (`summary`, where "Loading…" goes while the item
    shown is read again), whether it shows an item, and how it shows none."""

    noun = "the item"  # "Could not load <noun>"
    tabs: QTabWidget
    summary: Any  # a label or an HTML view: setText

    def _frame(self, name: str, *, margin: int | None = None) -> None:
        """The empty page (`<name>Empty`, its `...Title` and `...Text`) and the stack of the
        tabs and it, filling the widget. `margin`: around the empty page's words."""
        self.empty = QWidget()
        self.empty.setObjectName(f"{name}Empty")
        self.empty_title = QLabel()
        self.empty_title.setObjectName(f"{name}EmptyTitle")
        self.empty_title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = QFont(self.empty_title.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.empty_title.setFont(font)
        self.empty_text = QLabel()
        self.empty_text.setObjectName(f"{name}EmptyText")
        self.empty_text.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_text.setWordWrap(True)
        self.empty_text.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        empty_layout = QVBoxLayout(self.empty)
        if margin is not None:
            empty_layout.setContentsMargins(margin, margin, margin, margin)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_title)
        empty_layout.addWidget(self.empty_text)
        empty_layout.addStretch(1)
        self.stack = QStackedWidget()
        self.stack.addWidget(self.tabs)
        self.stack.addWidget(self.empty)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)

    def _showing(self) -> bool:
        """An item is shown (its tabs)."""
        return self.stack.currentWidget() is self.tabs

    def _show_none(self) -> None:
        """Show no item."""
        raise NotImplementedError

    def show_loading(self) -> None:
        if self._showing():
            self.summary.setText(muted("Loading…"))
        else:
            self._show_empty("Loading…", "")

    def show_error(self, message: str) -> None:
        """The item could not be read: nothing of it is shown."""
        self._show_none()
        self._show_empty(f"Could not load {self.noun}", message)

    def _show_empty(self, title: str, text: str) -> None:
        self.empty_title.setText(title)
        self.empty_text.setText(text)
        self.empty_text.setVisible(bool(text))
        self.stack.setCurrentWidget(self.empty)
