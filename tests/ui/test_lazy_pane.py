"""A pane is made when first shown or first asked for, once, and its links still work."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from lpwa_console.ui.lazy_pane import LazyPane, real_pane
from lpwa_console.ui.navigator import Location


class Pane(QLabel):
    navigate = Signal(object)

    def __init__(self) -> None:
        super().__init__("made")
        self.opened: list[str | None] = []

    def open_item(self, item: str | None, _section: str | None) -> None:
        self.opened.append(item)


def test_made_when_first_shown_and_only_once(qtbot: Any) -> None:
    made: list[Pane] = []

    def factory() -> QWidget:
        made.append(Pane())
        return made[-1]

    stack = QStackedWidget()
    qtbot.addWidget(stack)
    stack.addWidget(QLabel("first"))
    host = LazyPane("alarms", "Alarms", factory)
    stack.addWidget(host)
    stack.show()
    assert host.title == "Alarms" and not host.is_made and made == []
    stack.setCurrentWidget(host)
    assert host.is_made and len(made) == 1
    stack.setCurrentIndex(0)
    stack.setCurrentWidget(host)
    assert len(made) == 1 and real_pane(host) is made[0]


def test_asking_for_an_attribute_makes_it_and_links_are_forwarded(qtbot: Any) -> None:
    host = LazyPane("devices", "Devices", Pane)
    qtbot.addWidget(host)
    gone: list[Location] = []
    host.navigate.connect(gone.append)
    host.open_item("70B3D5E750000001", None)  # what the navigator does
    pane = real_pane(host)
    assert isinstance(pane, Pane) and pane.opened == ["70B3D5E750000001"]
    pane.navigate.emit(Location("map"))
    assert gone == [Location("map")]


def test_a_widget_that_is_no_host_is_its_own_pane(qtbot: Any) -> None:
    label = QLabel()
    qtbot.addWidget(label)
    assert real_pane(label) is label
