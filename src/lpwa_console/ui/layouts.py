"""Box layouts filled in one call: the widgets and layouts of a row or a column in reading
order, a number for a stretch, and (item, stretch factor) for one that takes the room left.

    fill(QVBoxLayout(self), bar_layout, self.message, (self.splitter, 1), margins=PANE)
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtWidgets import QBoxLayout, QLayout, QWidget

Box = TypeVar("Box", bound=QBoxLayout)
# A widget or layout, a stretch (its factor), or a widget or layout with its stretch factor.
Item = QWidget | QLayout | int | tuple[QWidget | QLayout, int]
Margins = tuple[int, int, int, int]

PANE: Margins = (8, 8, 8, 4)  # a pane's content, inside the main window
FLUSH: Margins = (0, 0, 0, 0)  # a part inside another widget's own margins


def fill(layout: Box, *items: Item, margins: Margins | None = None) -> Box:
    """Add `items` to `layout` in order (and set its margins); returns the layout."""
    if margins is not None:
        layout.setContentsMargins(*margins)
    for item in items:
        stretch = 0
        if isinstance(item, tuple):
            item, stretch = item
        if isinstance(item, int):
            layout.addStretch(item)
        elif isinstance(item, QLayout):
            layout.addLayout(item, stretch)
        else:
            layout.addWidget(item, stretch)
    return layout
