"""A list pane's filters as one value: kept per account, set aside to show an item.

`FilterSet` reads and writes the pane's filter controls (line edits, combo boxes, check
boxes) without knowing what they filter, so every list pane gets the same two habits:

- Each account keeps its own filters (issue 20: a partner saw "0 alarms" through the
  subscriber's severity filter). The window tells every pane which account is signed in
  (`Pane.set_account`); the filters of the account left are kept, the new one's put back.
- Opening an item the filters would hide (an alarm's device, a palette result, a link, a new
  item) sets the filters aside: the pane narrows its search to that item, so its row is
  listed and selected, and `AsideBar` says so, with a way back ("Put the filters back").
  Changing a filter by hand ends the set-aside (the line goes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from ..layouts import fill

Value = tuple[object, ...]


def _read(control: QWidget) -> object:
    if isinstance(control, QLineEdit):
        return control.text()
    if isinstance(control, QComboBox):  # by its data: a refilled list keeps the choice
        return (
            ("data", control.currentData())
            if control.currentData() is not None
            else ("index", control.currentIndex())
        )
    if isinstance(control, QAbstractButton):
        return control.isChecked()
    raise TypeError(f"not a filter control: {control!r}")


def _write(control: QWidget, value: object) -> None:
    if isinstance(control, QLineEdit):
        control.setText(str(value))
    elif isinstance(control, QComboBox):
        kind, data = value if isinstance(value, tuple) else ("index", 0)
        index = control.findData(data) if kind == "data" else int(data)
        control.setCurrentIndex(index if 0 <= index < control.count() else 0)
    elif isinstance(control, QAbstractButton):
        control.setChecked(bool(value))


class AsideBar(QFrame):
    """The line "Filters set aside to show <name>", the way back, and a close button that
    keeps the view."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("filtersAside")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel()
        self.label.setObjectName("filtersAsideText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.put_back = QPushButton("Put the filters back")
        self.put_back.setObjectName("filtersPutBack")
        self.close_button = QToolButton()
        self.close_button.setObjectName("filtersAsideClose")
        self.close_button.setText("\u00d7")  # a multiplication sign: close
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Keep this view and hide this line")
        fill(
            QHBoxLayout(self),
            (self.label, 1),
            self.put_back,
            self.close_button,
            margins=(6, 2, 2, 2),
        )
        self.setVisible(False)


class FilterSet(QObject):
    """The filter controls of one list; `apply()` is the pane's "send these filters"."""

    def __init__(
        self,
        controls: Sequence[QWidget],
        apply: Callable[[], None],
        *,
        search: QLineEdit | None = None,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.controls = list(controls)
        self.search = search  # narrowed to the item shown when the filters are set aside
        self._apply = apply
        self.defaults: Value = self.values()
        self.account: str | None = None
        self._by_account: dict[str, Value] = {}
        self._kept: Value | None = None  # the user's filters while set aside
        self._writing = False
        self.bar = AsideBar(parent)
        self.bar.put_back.clicked.connect(self.put_back)
        self.bar.close_button.clicked.connect(self.dismiss)
        for control in self.controls:
            self._watch(control)

    # --- values -------------------------------------------------------------------------

    def values(self) -> Value:
        return tuple(_read(c) for c in self.controls)

    def is_default(self) -> bool:
        return self.values() == self.defaults

    def set_values(self, values: Value) -> None:
        """Put these values in the controls (no request per control), then apply them."""
        self._writing = True
        try:
            for control, value in zip(self.controls, values, strict=True):
                control.blockSignals(True)
                try:
                    _write(control, value)
                finally:
                    control.blockSignals(False)
        finally:
            self._writing = False
        self._apply()

    # --- per account ----------------------------------------------------------------------

    def switch_account(self, key: str) -> None:
        """The account signed in is now `key`: its own filters (the defaults the first time);
        the account left keeps its filters for its return."""
        if not key or key == self.account:
            return
        if self.account is not None:
            self._by_account[self.account] = self.user_values()
        self.account = key
        kept = self._kept
        self._end_aside()
        wanted = self._by_account.get(key, self.defaults)
        if wanted != self.values() or kept is not None:  # no request when nothing changes
            self.set_values(wanted)

    def user_values(self) -> Value:
        """The user's own filters (those set aside, if they are)."""
        return self._kept if self._kept is not None else self.values()

    # --- set aside ------------------------------------------------------------------------

    @property
    def aside(self) -> bool:
        return self._kept is not None

    def set_aside(self, name: str, search_text: str = "") -> None:
        """Show one item: the filters set aside, the search narrowed to `search_text`."""
        if self._kept is None:
            self._kept = self.values()
        values = list(self.defaults)
        if self.search is not None and search_text:
            values[self.controls.index(self.search)] = search_text
        self.set_values(tuple(values))
        self.rename(name)
        self.bar.setVisible(True)

    def rename(self, name: str) -> None:
        """The item's name once known (it was set aside under its ID)."""
        if self._kept is None:
            return
        had_filters = self._kept != self.defaults
        self.bar.label.setText(
            f"Filters set aside to show {name}" if had_filters else f"Showing {name} only"
        )
        self.bar.put_back.setText("Put the filters back" if had_filters else "Show the whole list")

    def put_back(self) -> None:
        kept = self._kept
        self._end_aside()
        if kept is not None:
            self.set_values(kept)

    def dismiss(self) -> None:
        """Keep the view as it is; the line goes."""
        self._end_aside()

    def _end_aside(self) -> None:
        self._kept = None
        self.bar.setVisible(False)

    def _changed_by_hand(self) -> None:
        if not self._writing and self._kept is not None:
            self._end_aside()

    def _watch(self, control: QWidget) -> None:
        if isinstance(control, QLineEdit):
            control.textEdited.connect(lambda _t: self._changed_by_hand())
        elif isinstance(control, QComboBox):
            control.activated.connect(lambda _i: self._changed_by_hand())
        elif isinstance(control, QAbstractButton):
            control.clicked.connect(lambda _c: self._changed_by_hand())
