"""Keys a widget's owner handles before the widget does (Down in a picker lists every choice,
Insert and Delete in a table of rows, the palette's arrows, Enter and Esc): one event filter,
so each owner says which key does what instead of writing its own filter."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget

# A key's action: False when it had nothing to do (the widget then gets the key as usual);
# anything else (None included) means it acted, and the key stops there.
KeyAction = Callable[[], bool | None]


class KeyFilter(QObject):
    """Calls `actions[key]` for a key pressed in `widget`; `plain`: only when no modifier is
    held (Shift+Delete stays the widget's own)."""

    def __init__(
        self, widget: QWidget, actions: Mapping[Qt.Key, KeyAction], *, plain: bool = False
    ) -> None:
        super().__init__(widget)
        self.widget = widget
        self.actions = dict(actions)
        self.plain = plain
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.widget
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and not (self.plain and event.modifiers())
        ):
            action = self.actions.get(Qt.Key(event.key()))
            if action is not None and action() is not False:
                return True
        return super().eventFilter(watched, event)


def on_keys(
    widget: QWidget, actions: Mapping[Qt.Key, KeyAction], *, plain: bool = False
) -> KeyFilter:
    """Handle `actions`' keys in `widget` (the filter lives as long as the widget)."""
    return KeyFilter(widget, actions, plain=plain)
