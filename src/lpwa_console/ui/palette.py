"""The command palette (Ctrl+K): type to jump to a pane, run an action, or open a device
found on the server by name, DevEUI or IMEI. Up/Down choose, Enter opens, Esc closes.

It floats over the main window (a child frame, not a window of its own), fed by two things:
`entries()`, the panes and actions of the window now, and a `DeviceSearchViewModel`.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QHideEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from ..models.palette import DeviceSearchViewModel, PaletteEntry, rank
from .widgets.keys import on_keys

ENTRY_ROLE = int(Qt.ItemDataRole.UserRole) + 1
KIND_WORDS = {"pane": "Go to", "action": "Action", "device": "Device", "station": "Base station"}
WIDTH, HEIGHT = 600, 380


class EntryDelegate(QStyledItemDelegate):
    """A row: the title on the left, what it is (and its keys) on the right, muted."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        entry = index.data(ENTRY_ROLE)
        if not isinstance(entry, PaletteEntry):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = opt.palette
        text = group.color(
            QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        muted = text if selected else group.color(QPalette.ColorRole.PlaceholderText)
        rect = opt.rect.adjusted(8, 0, -8, 0)
        right = entry_kind_text(entry)
        painter.save()
        painter.setPen(muted)
        width = opt.fontMetrics.horizontalAdvance(right)
        painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight, right)
        painter.setPen(text if entry.enabled else muted)
        title_rect = rect.adjusted(0, 0, -(width + 16), 0)
        title = opt.fontMetrics.elidedText(
            entry.title, Qt.TextElideMode.ElideRight, title_rect.width()
        )
        painter.drawText(
            title_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, title
        )
        painter.restore()


def entry_kind_text(entry: PaletteEntry) -> str:
    """ "Go to · Ctrl+3", "Action · Ctrl+N", "Device · DevEUI 70B3…"."""
    if entry.kind in ("device", "station"):
        return entry.detail
    kind = KIND_WORDS[entry.kind]
    return f"{kind} · {entry.detail}" if entry.detail else kind


class CommandPalette(QFrame):
    chosen = Signal(object)  # PaletteEntry (enabled) the user picked

    def __init__(
        self,
        entries: Callable[[], list[PaletteEntry]],
        search: DeviceSearchViewModel,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("commandPalette")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.entries = entries
        self.search = search
        self.commands: list[PaletteEntry] = []
        self.input = QLineEdit()
        self.input.setObjectName("paletteInput")
        self.input.setPlaceholderText("Type a pane, an action, or a device name, DevEUI or IMEI…")
        self.input.setClearButtonEnabled(True)
        self.input.setAccessibleName("Command")
        self.list = QListWidget()
        self.list.setObjectName("paletteResults")
        self.list.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay in the input
        self.list.setUniformItemSizes(True)
        self.list.setItemDelegate(EntryDelegate(self.list))
        self.hint = QLabel()
        self.hint.setObjectName("paletteHint")
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addWidget(self.input)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.hint)
        self.input.textChanged.connect(self._typed)
        on_keys(
            self.input,
            {
                Qt.Key.Key_Down: lambda: self._move(1),
                Qt.Key.Key_Up: lambda: self._move(-1),
                Qt.Key.Key_Return: self.activate,
                Qt.Key.Key_Enter: self.activate,
                Qt.Key.Key_Escape: self.close_palette,
            },
        )
        self.list.itemClicked.connect(lambda _i: self.activate())
        self.list.currentRowChanged.connect(lambda _r: self._show_hint())
        search.results_changed.connect(lambda _r: self._fill())
        search.searching_changed.connect(lambda _s: self._show_hint())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._focus_changed)
        self.hide()

    # --- showing ------------------------------------------------------------------------

    def popup(self) -> None:
        """Show over the top of the window, with what the window offers now."""
        self.commands = self.entries()
        parent = self.parentWidget()
        assert parent is not None
        width = min(WIDTH, parent.width() - 40)
        self.setGeometry(
            (parent.width() - width) // 2, 48, width, min(HEIGHT, parent.height() - 80)
        )
        self.input.clear()
        self._typed("")
        self.show()
        self.raise_()
        self.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def hideEvent(self, event: QHideEvent) -> None:
        # Hidden (closed, or its window closed): a search still waiting for the typing to
        # pause has nobody to show its results to.
        self.search.search("")
        super().hideEvent(event)

    def close_palette(self) -> None:
        if self.isVisible():
            self.hide()
            self.search.search("")
            parent = self.parentWidget()
            if parent is not None:
                parent.setFocus(Qt.FocusReason.PopupFocusReason)

    def sizeHint(self) -> QSize:
        return QSize(WIDTH, HEIGHT)

    # --- typing -------------------------------------------------------------------------

    def _typed(self, text: str) -> None:
        self.search.search(text)
        self._fill()

    def _fill(self) -> None:
        text = self.input.text()
        found = self.search.results if self.search.query == text.strip() else []
        # The index's results come ranked by any fragment; the palette's own ranking (which
        # words start with the text) would put them behind the panes and actions.
        indexed = self.search.index is not None and self.search.index.ready
        ranked = rank(text, self.commands) + found if indexed else rank(text, self.commands + found)
        self.list.clear()
        for entry in ranked:
            # The text is for accessibility and tests; the delegate draws the row.
            item = QListWidgetItem(f"{entry.title}, {entry_kind_text(entry)}")
            item.setData(ENTRY_ROLE, entry)
            if not entry.enabled:
                item.setToolTip(entry.reason)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        self._show_hint()

    def _show_hint(self) -> None:
        entry = self.current_entry()
        if entry is not None and not entry.enabled:
            text = entry.reason
        elif self.search.searching:
            text = "Looking for devices…"
        elif self.input.text().strip() and not self.list.count():
            text = "Nothing matches"
        elif self.input.text().strip() and self.search.note:
            text = self.search.note
        else:
            text = "↑↓ choose · Enter open · Esc close"
        self.hint.setText(text)

    # --- choosing -----------------------------------------------------------------------

    def current_entry(self) -> PaletteEntry | None:
        item = self.list.currentItem()
        entry = item.data(ENTRY_ROLE) if item is not None else None
        return entry if isinstance(entry, PaletteEntry) else None

    def ranked(self) -> list[PaletteEntry]:
        return [self.list.item(row).data(ENTRY_ROLE) for row in range(self.list.count())]

    def activate(self) -> None:
        entry = self.current_entry()
        if entry is None:
            return
        if not entry.enabled:
            self._show_hint()  # says why, stays open
            return
        self.close_palette()
        self.chosen.emit(entry)

    def _move(self, step: int) -> None:
        count = self.list.count()
        if count:
            self.list.setCurrentRow((self.list.currentRow() + step) % count)

    def _focus_changed(self, _old: QWidget | None, new: QWidget | None) -> None:
        # Clicking elsewhere closes it, as a popup would.
        if self.isVisible() and new is not None and not self.isAncestorOf(new):
            self.hide()
            self.search.search("")
