"""Going from anything to what it concerns, and back.

A pane asks to go somewhere by emitting its `navigate` signal with a `Location` (a pane key,
and optionally an item and a section of that pane); the main window connects every pane's
signal to one `Navigator`, which shows the pane, asks it to open the item (`open_item`), and
records the way for Back and Forward (Alt+Left, Alt+Right).

A pane that can open items has `open_item(item_id, section)`; one that knows what it shows
has `current_item()` -> (item_id, section), so that coming back returns to the item the user
had picked there rather than to the one the pane was opened on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, unquote

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

MAX_HISTORY = 100
LINK_SCHEME = "lpwa"  # hrefs of references in detail views: lpwa:pane/section/item


@dataclass(frozen=True)
class Location:
    pane: str  # a key of the window's panes: "devices", "alarms", "app_servers", ...
    item: str | None = None  # the pane's own identifier: a DevEUI, an application server ID
    section: str | None = None  # a section of the pane (a resource kind of "network")


class Navigator(QObject):
    """`open(pane, item_id)` + history. `show_pane(key)` is how the window shows a pane."""

    changed = Signal()  # history or current location moved (Back/Forward availability)

    def __init__(
        self,
        panes: dict[str, QWidget],
        show_pane: Callable[[str], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.panes = panes
        self._show_pane = show_pane
        self.back_stack: list[Location] = []
        self.forward_stack: list[Location] = []
        self.current: Location | None = None

    # --- going somewhere ----------------------------------------------------------------

    def open(self, pane: str, item_id: str | None = None, *, section: str | None = None) -> bool:
        return self.go(Location(pane, item_id, section))

    def go(self, location: Location) -> bool:
        """Show this location and remember where we were. False for an unknown pane."""
        if location.pane not in self.panes:
            return False
        here = self._here()
        if here is not None and here != location:
            self.back_stack.append(here)
            del self.back_stack[:-MAX_HISTORY]
            self.forward_stack.clear()
        self._show(location)
        return True

    def pane_shown(self, pane: str) -> None:
        """The user picked a pane in the side list: a step of the way too."""
        if self.current is not None and self.current.pane == pane:
            return
        self.go(Location(pane))

    # --- back and forward ---------------------------------------------------------------

    def forget(self) -> None:
        """No way back or forward (where we are stays)."""
        self.back_stack.clear()
        self.forward_stack.clear()
        self.changed.emit()

    @property
    def can_go_back(self) -> bool:
        return bool(self.back_stack)

    @property
    def can_go_forward(self) -> bool:
        return bool(self.forward_stack)

    def back(self) -> bool:
        if not self.back_stack:
            return False
        here = self._here()
        target = self.back_stack.pop()
        if here is not None:
            self.forward_stack.append(here)
        self._show(target)
        return True

    def forward(self) -> bool:
        if not self.forward_stack:
            return False
        here = self._here()
        target = self.forward_stack.pop()
        if here is not None:
            self.back_stack.append(here)
        self._show(target)
        return True

    # --- inside -------------------------------------------------------------------------

    def _here(self) -> Location | None:
        """Where we are now: what the current pane shows, if it can say."""
        if self.current is None:
            return None
        pane = self.panes.get(self.current.pane)
        where = getattr(pane, "current_item", None)
        if callable(where):
            item, section = where()
            return Location(self.current.pane, item, section)
        return self.current

    def _show(self, location: Location) -> None:
        self.current = location
        self._show_pane(location.pane)
        pane = self.panes[location.pane]
        open_item = getattr(pane, "open_item", None)
        if callable(open_item) and (location.item is not None or location.section is not None):
            open_item(location.item, location.section)
        self.changed.emit()


def link(pane: str, item: str, section: str | None = None) -> str:
    """The href of an item of a pane: `lpwa:pane/section/item` (each part quoted)."""
    parts = [pane, section or "", item]
    return f"{LINK_SCHEME}:" + "/".join(quote(p, safe="") for p in parts)


def location_of(href: str) -> Location | None:
    """The Location an href of `link` names (None for anything else)."""
    scheme, _, rest = href.partition(":")
    parts = rest.split("/")
    if scheme != LINK_SCHEME or len(parts) != 3:
        return None
    pane, section, item = (unquote(p) for p in parts)
    return Location(pane, item, section or None)
