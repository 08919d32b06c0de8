"""A pane made the first time it is needed.

The window lists every pane from the start, but importing and building all of them (their
view-models, schemas, charts, the map) is most of the console's start. A `LazyPane` stands in
the window's stack with the pane's title; the real pane is made by its factory when the page
is first shown, or when anything asks it for an attribute (the navigator's `open_item`, a
test reaching `console.panes[...]`). Its `navigate` signal is forwarded, so links work from a
pane that was made late.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyPane(QWidget):
    navigate = Signal(object)  # Location: what the real pane asks to show
    made = Signal(QWidget)  # the real pane, once made

    def __init__(self, key: str, title: str, factory: Callable[[], QWidget]) -> None:
        super().__init__()
        self.key = key
        self.title = title
        self.setObjectName(f"{key}PaneHost")
        self._factory: Callable[[], QWidget] | None = factory
        self._pane: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def is_made(self) -> bool:
        return self._pane is not None

    def pane(self) -> QWidget:
        """The real pane, made now if it was not yet."""
        if self._pane is None:
            factory, self._factory = self._factory, None
            assert factory is not None, "a pane's factory failed before: not made twice"
            pane = factory()
            self._pane = pane
            self._layout.addWidget(pane)
            forward = getattr(pane, "navigate", None)
            if forward is not None:
                forward.connect(self.navigate.emit)
            self.made.emit(pane)
        return self._pane

    def showEvent(self, event: QShowEvent) -> None:
        self.pane()
        super().showEvent(event)

    def __getattr__(self, name: str) -> Any:
        # Only for names this host lacks (open_item, current_item, refresh...): the pane's.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.pane(), name)


def real_pane(widget: QWidget) -> QWidget:
    """The pane itself, whether `widget` is a pane or the host of one (made if need be)."""
    return widget.pane() if isinstance(widget, LazyPane) else widget
