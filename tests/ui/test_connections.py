"""SignalConnections: what a widget connected to a view-model, undone once when it closes."""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QObject, Signal

from lpwa_console.ui.connections import SignalConnections


class Source(QObject):
    changed = Signal(int)


def test_disconnect_all_undoes_every_connection_once(qtbot: Any) -> None:
    source = Source()
    seen: list[tuple[str, int]] = []
    connections = SignalConnections((source.changed, lambda v: seen.append(("a", v))))
    connections.connect(source.changed, lambda v: seen.append(("b", v)))
    source.changed.emit(1)
    assert seen == [("a", 1), ("b", 1)]

    connections.disconnect_all()
    connections.disconnect_all()  # twice is harmless
    source.changed.emit(2)
    assert seen == [("a", 1), ("b", 1)]


def test_disconnect_all_after_the_source_is_gone(qtbot: Any) -> None:
    source = Source()
    connections = SignalConnections((source.changed, print))
    shiboken6.delete(source)
    assert not shiboken6.isValid(source)
    connections.disconnect_all()  # no RuntimeError from the deleted object
