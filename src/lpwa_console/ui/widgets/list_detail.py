"""The list beside its detail, the same in every pane (devices, stations, network resources,
partners, catalogs).

The list gets the room: by default the detail takes what the list's columns leave, between
DETAIL_FLOOR and DETAIL_MAX px (a laptop's list shows as many columns as it can, a wide
screen shows them all and the detail stops growing), and it keeps its width when the window
grows or shrinks. A width the user dragged is kept, the list keeping LIST_MIN. Where the
user drags the handle is remembered per pane: the window
saves every splitter's detail width with its layout (`save_splitters`) and gives it back to a
pane when the pane is made (`restore_splitters`).
"""

from __future__ import annotations

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import QResizeEvent, QShowEvent
from PySide6.QtWidgets import QSplitter, QStackedWidget, QTableView, QWidget

DETAIL_MAX = 480  # px: a default detail on the widest screens
DETAIL_FLOOR = 320  # px: what a detail keeps on the smallest screens (labels and values)
LIST_MIN = 560  # px: what the list keeps beside a detail the user widened
LAST_COLUMN = 140  # px: a stretched last column (its own width is not known to us)


def default_detail_width(room: int, list_need: int) -> int:
    """What the list's columns leave, within DETAIL_FLOOR..DETAIL_MAX."""
    return max(DETAIL_FLOOR, min(DETAIL_MAX, room - list_need))


def placed_detail_width(room: int, wanted: int) -> int:
    """The detail's width in `room` px: the one wanted, the list keeping LIST_MIN."""
    return max(min(DETAIL_FLOOR, room // 2), min(wanted, room - LIST_MIN))


def list_need(widget: QWidget) -> int:
    """The width that shows every column of the list's table (LIST_MIN without one)."""
    tables = [widget] if isinstance(widget, QTableView) else widget.findChildren(QTableView)
    # The table shown (a pane with sections stacks one table per section).
    table = next((t for t in tables if t.isVisible()), tables[0] if tables else None)
    if table is None:
        return LIST_MIN
    header = table.horizontalHeader()
    shown = [
        header.logicalIndex(v)
        for v in range(header.count())
        if not header.isSectionHidden(header.logicalIndex(v))
    ]
    widths = [header.sectionSize(i) for i in shown]
    if widths and header.stretchLastSection():
        widths[-1] = min(widths[-1], LAST_COLUMN)  # stretched: its own need is unknown
    frame = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()
    return max(LIST_MIN, sum(widths) + frame)


class ListDetailSplitter(QSplitter):
    def __init__(
        self, name: str, list_widget: QWidget, detail: QWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(Qt.Orientation.Horizontal, parent)
        self.setObjectName(name)
        self.addWidget(list_widget)
        self.addWidget(detail)
        self.setChildrenCollapsible(False)
        self.setStretchFactor(0, 1)
        self.setStretchFactor(1, 0)
        self.detail_width: int | None = None  # the user's, once dragged (or restored)
        self._placing = False
        self.splitterMoved.connect(self._moved)
        # Another table shown (a section, or the empty state): its columns need other room.
        for stack in list_widget.findChildren(QStackedWidget):
            stack.currentChanged.connect(lambda _i: QTimer.singleShot(0, self, self.place))
        if isinstance(list_widget, QStackedWidget):
            list_widget.currentChanged.connect(lambda _i: QTimer.singleShot(0, self, self.place))

    def room(self) -> int:
        return self.width() - self.handleWidth()

    def place(self) -> None:
        """Give the detail its width for the room there is now; the list the rest."""
        room = self.room()
        if room <= 0:
            return
        listed = self.widget(0)
        need = list_need(listed) if listed is not None else LIST_MIN
        wanted = self.detail_width or default_detail_width(room, need)
        detail = placed_detail_width(room, wanted)
        self._placing = True
        try:
            self.setSizes([room - detail, detail])
        finally:
            self._placing = False

    def set_detail_width(self, width: int) -> None:
        self.detail_width = width
        self.place()

    def _moved(self, _pos: int, _index: int) -> None:
        if not self._placing:
            self.detail_width = self.sizes()[1]

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.place()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.place()  # the table shown is known now


def _key(splitter: ListDetailSplitter) -> str:
    return f"layout/splitters/{splitter.objectName()}/detail_width"


def save_splitters(root: QWidget, settings: QSettings) -> None:
    """Remember the detail width the user chose in every list-and-detail under `root`."""
    for splitter in root.findChildren(ListDetailSplitter):
        if splitter.detail_width:
            settings.setValue(_key(splitter), splitter.detail_width)


def restore_splitters(root: QWidget, settings: QSettings) -> None:
    for splitter in root.findChildren(ListDetailSplitter):
        value = settings.value(_key(splitter))
        try:
            width = int(str(value)) if value is not None else 0
        except ValueError:
            width = 0
        if width > 0:
            splitter.set_detail_width(width)
