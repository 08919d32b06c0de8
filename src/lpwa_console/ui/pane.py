"""The pane interface: what the main window and the diagnostics ask of a pane.

Every pane derives from `Pane` and overrides what it does; the defaults do nothing, so the
window calls these methods on any pane without asking first whether it has them. The window's
stack may hold a `LazyPane` host instead of the pane (made when first shown): `pane_of` gives
the pane behind either, `title_of` the title without making it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from .lazy_pane import LazyPane, real_pane
from .widgets.filter_state import FilterSet


class Pane(QWidget):
    """A page of the main window (devices, map, alarms...)."""

    # A Location: what the pane asks the window's navigator to show (a link followed).
    navigate = Signal(object)

    title: str = ""  # the side list's and the View menu's words for the pane
    # What the View menu's Import (`import_devices`) and Export (`choose_export_file`) do
    # here; elsewhere they say which pane has them.
    imports: ClassVar[bool] = False
    exports: ClassVar[bool] = False
    # The list's filter controls as one value (`ui/widgets/filter_state.py`): kept per
    # account, set aside to show an item the filters would hide. None: a pane without.
    filter_set: FilterSet | None = None

    def set_account(self, key: str) -> None:
        """The account signed in now (profile and account): each keeps its own filters."""
        if self.filter_set is not None:
            self.filter_set.switch_account(key)

    def refresh(self) -> None:
        """F5: read again what the pane shows."""

    def focus_filter(self) -> None:
        """Ctrl+F: the cursor into the pane's filter."""

    def create_item(self) -> None:
        """Ctrl+N: the form of a new item of this pane (a device, a station, a profile)."""

    def create_refusal(self) -> str:
        """Why `create_item` refuses now ('' when it may, or cannot tell yet)."""
        return ""

    def import_devices(self) -> None:
        """Ctrl+I, where `imports`: the import of a file of devices."""

    def choose_export_file(self) -> None:
        """Ctrl+E, where `exports`: the rows of the view into a file."""

    async def first_page(self) -> dict[str, Any]:
        """Wait until the pane shows its first page (of each of its lists) and return what
        it took, for the self-test's line (`diagnostics/self_test.py`): a pane's keys are
        part of that line's format. Raises RuntimeError naming what failed."""
        return {}

    async def show_first_item(self) -> None:
        """What a screenshot shows of the pane: by default the pane as it is; a list with a
        detail waits for its first page and shows the first item's detail."""


def pane_of(widget: QWidget) -> Pane | None:
    """The pane a widget of the window's stack is or hosts (made now if need be); None for a
    widget that is no pane (a test's placeholder)."""
    pane = real_pane(widget)
    return pane if isinstance(pane, Pane) else None


def title_of(widget: QWidget, default: str | None = None) -> str:
    """A pane's title, a host's without making its pane; else `default`, else the object name."""
    if isinstance(widget, Pane | LazyPane):
        return widget.title
    return widget.objectName() if default is None else default
