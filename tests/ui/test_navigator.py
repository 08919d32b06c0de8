"""The navigator alone: open, Back, Forward, what a pane says it shows, links."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from lpwa_console.ui.navigator import MAX_HISTORY, Location, Navigator, link, location_of


class Pane(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[tuple[str | None, str | None]] = []
        self.showing: str | None = None

    def open_item(self, item: str | None, section: str | None) -> None:
        self.opened.append((item, section))
        self.showing = item

    def current_item(self) -> tuple[str | None, str | None]:
        return self.showing, None


def make(qtbot: Any) -> tuple[Navigator, dict[str, Pane], list[str]]:
    panes = {"devices": Pane(), "alarms": Pane(), "network": Pane()}
    for pane in panes.values():
        qtbot.addWidget(pane)
    shown: list[str] = []
    return Navigator(dict(panes), shown.append), panes, shown


def test_open_back_forward(qtbot: Any) -> None:
    nav, panes, shown = make(qtbot)
    assert nav.open("devices")
    assert nav.open("alarms")
    assert nav.open("devices", "70B3D5E750000001")
    assert panes["devices"].opened == [("70B3D5E750000001", None)]
    # The user picks another device in the list, then goes on: Back returns to that one.
    panes["devices"].showing = "70B3D5E750000009"
    assert nav.open("network", "ctx-1", section="network_contexts")
    assert panes["network"].opened == [("ctx-1", "network_contexts")]
    nav.pane_shown("alarms")  # from the side list
    assert nav.back() and shown[-1] == "network"
    assert nav.back() and panes["devices"].opened[-1] == ("70B3D5E750000009", None)
    assert nav.back() and shown[-1] == "alarms"
    assert nav.forward() and shown[-1] == "devices"
    assert nav.can_go_back and nav.can_go_forward
    assert not nav.open("nowhere")  # an unknown pane changes nothing
    nav.open("alarms")
    assert not nav.can_go_forward  # a new step drops the way forward
    with qtbot.waitSignal(nav.changed, timeout=1000):
        nav.forget()
    assert not nav.can_go_back and not nav.back()


def test_history_is_bounded(qtbot: Any) -> None:
    nav, _panes, _shown = make(qtbot)
    for i in range(MAX_HISTORY + 50):
        nav.open("devices", f"{i:016X}")
    assert len(nav.back_stack) == MAX_HISTORY


def test_links_name_locations() -> None:
    href = link("network", "ctx/1 é", "network_contexts")
    assert href.startswith("lpwa:network/network_contexts/")
    assert location_of(href) == Location("network", "ctx/1 é", "network_contexts")
    assert location_of(link("app_servers", "as-1")) == Location("app_servers", "as-1")
    assert location_of("https://example.com/a/b") is None
