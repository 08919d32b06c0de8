"""Connections of a widget to longer-lived objects (view-models), undone when it closes.

A view-model outlives the pane or dialog that shows it: a connection left behind calls into a
deleted widget (PITFALLS.md), so a widget keeps what it connected here and disconnects it all
in `closeEvent` or `done`.
"""

from __future__ import annotations

import contextlib
from typing import Any


class SignalConnections:
    """The (signal, slot) pairs one widget connected; `disconnect_all` undoes them once."""

    def __init__(self, *pairs: tuple[Any, Any]) -> None:
        self._pairs: list[tuple[Any, Any]] = []
        self.connect_all(*pairs)

    def connect(self, signal: Any, slot: Any) -> None:
        signal.connect(slot)
        self._pairs.append((signal, slot))

    def connect_all(self, *pairs: tuple[Any, Any]) -> None:
        for signal, slot in pairs:
            self.connect(signal, slot)

    def disconnect_all(self) -> None:
        """Safe to call twice, and after the signal's object is gone."""
        pairs, self._pairs = self._pairs, []
        for signal, slot in pairs:
            with contextlib.suppress(RuntimeError, TypeError):
                signal.disconnect(slot)
