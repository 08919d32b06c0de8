"""Field mode's two dialogs: "Take offline" (a region, its size before it starts, progress
and cancel) and "Offline edits" (the queue: each edit's outcome, and a conflict's two
values for the user to choose). The work is in models/field_offline."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ...models.field_offline.edit_queue import CONFLICT, STATE_WORDS, Edit
from ...models.field_offline.mode import FieldMode
from ...models.field_offline.offline_edits import changed_words, tag_names
from ...models.field_offline.take import Estimate, Region
from ...models.session import Session
from ...models.tiles import STREET_TEMPLATE
from ..widgets.job_progress import JobBar

KINDS = (("box", "A box of the map"), ("domain", "A domain (group:name)"), ("tag", "A tag"))
BOX_FIELDS = (("South (min. latitude)", -90, 90), ("West (min. longitude)", -180, 180),
              ("North (max. latitude)", -90, 90), ("East (max. longitude)", -180, 180))  # fmt: skip


class TakeOfflineDialog(QDialog):
    def __init__(
        self,
        field: FieldMode,
        session: Session,
        settings: QSettings,
        box: tuple[float, float, float, float] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Take offline")
        self.field, self.session, self.settings = field, session, settings
        self.estimate: Estimate | None = None
        self.region: Region | None = None
        self._task: asyncio.Future[Any] | None = None
        self.kind = QComboBox()
        for key, words in KINDS:
            self.kind.addItem(words, key)
        self.box_inputs = [QLineEdit() for _ in BOX_FIELDS]
        if box is not None:
            for edit, value in zip(self.box_inputs, box, strict=True):
                edit.setText(f"{value:.5f}")
        self.value = QLineEdit()
        self.value.setPlaceholderText("e.g. Paris 11e, or region:north")
        form = QFormLayout()
        form.addRow("Region", self.kind)
        for (label, _lo, _hi), edit in zip(BOX_FIELDS, self.box_inputs, strict=True):
            form.addRow(label, edit)
        form.addRow("Domain or tag", self.value)
        self.size_label = QLabel("Say which region, then “Size”: nothing is fetched before.")
        self.size_label.setWordWrap(True)
        self.progress = JobBar("takeProgress", hide_idle=True)
        self.size_button = QPushButton("Size")
        self.start_button = QPushButton("Take offline")
        self.start_button.setEnabled(False)
        self.cancel_button = QPushButton("Cancel")
        self.close_button = QPushButton("Close")
        buttons = QHBoxLayout()
        for button in (self.size_button, self.start_button, self.cancel_button, self.close_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.size_label)
        layout.addWidget(self.progress)
        layout.addLayout(buttons)
        self.cancel_button.setEnabled(False)
        self.size_button.clicked.connect(self.size_region)
        self.start_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(field.cancel_take)
        self.close_button.clicked.connect(self.reject)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        field.take_progress.connect(self._progress)
        field.take_finished.connect(self._finished)
        self._kind_changed()

    def _kind_changed(self) -> None:
        box = self.kind.currentData() == "box"
        for edit in self.box_inputs:
            edit.setEnabled(box)
        self.value.setEnabled(not box)
        self.start_button.setEnabled(False)

    def read_region(self) -> Region | str:
        kind = str(self.kind.currentData())
        if kind != "box":
            value = self.value.text().strip()
            return Region(kind, value=value) if value else f"Type the {kind} to take offline"
        values = []
        for (label, low, high), edit in zip(BOX_FIELDS, self.box_inputs, strict=True):
            try:
                number = float(edit.text().strip().replace(",", "."))
            except ValueError:
                return f"{label}: type a number of degrees"
            if not low <= number <= high:
                return f"{label}: between {low} and {high}"
            values.append(number)
        south, west, north, east = values
        if south >= north or west >= east:
            return "The box's south must be below its north, and its west left of its east"
        return Region("box", box=(south, west, north, east))

    def size_region(self) -> None:
        region = self.read_region()
        client = self.session.client
        if isinstance(region, str):
            self.size_label.setText(region)
            return
        if client is None or self.field.offline:
            self.size_label.setText("Taking a region offline needs a connection to the platform")
            return
        self.region = region
        template = str(self.settings.value("map/street_url", "") or STREET_TEMPLATE)
        self.taker = self.field.taker(client, template)
        self.size_label.setText("Sizing…")
        self.size_button.setEnabled(False)

        def sized(estimate: Estimate) -> None:
            self.size_button.setEnabled(True)
            self.estimate = estimate
            self.size_label.setText(f"{region.words}: {estimate.words}")
            self.start_button.setEnabled(True)

        def failed(_exc: BaseException, message: str) -> None:
            self.size_button.setEnabled(True)
            self.size_label.setText(f"Could not size it: {message}")

        self.field.runner.run(
            "Size a region", self.taker.estimate(region), on_done=sized, on_error=failed
        )

    def start(self) -> None:
        if self.estimate is None or self.region is None:
            return
        self.start_button.setEnabled(False)
        self.size_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.progress.busy()
        account = (self.session.account_name, self.session.role)
        self.field.take(self.taker, self.region, self.estimate, account)

    def _progress(self, done: int, total: int, what: str) -> None:
        self.progress.advance(done, total, f"{what}: %p%")

    def _finished(self, error: str) -> None:
        self.cancel_button.setEnabled(False)
        self.size_button.setEnabled(True)
        self.progress.finish()
        self.size_label.setText(error or f"Taken offline: {self.field.snapshot_words()}")

    def done(self, result: int) -> None:
        self.field.take_progress.disconnect(self._progress)
        self.field.take_finished.disconnect(self._finished)
        super().done(result)


def value_words(field: str, value: Any) -> str:
    if field == "tags":
        return ", ".join(tag_names(value)) or "no tags"
    if isinstance(value, float):
        return f"{value:.6f}"
    return "" if value is None else str(value)


def values_words(values: dict[str, Any] | None) -> str:
    """ "name: Bastille 12 · position: 48.853410, 2.348800"."""
    if not values:
        return ""
    parts = []
    if "name" in values:
        parts.append(f"name: {values['name']}")
    if "tags" in values:
        parts.append(f"tags: {value_words('tags', values['tags'])}")
    # A device's administrative position, a base station's (as its detail reads it).
    for lat_field, lon_field in (("adminLat", "adminLon"), ("lastGeoLat", "lastGeoLon")):
        if lat_field in values:
            lat, lon = values.get(lat_field), values.get(lon_field)
            where = "none" if lat is None else f"{value_words('', lat)}, {value_words('', lon)}"
            parts.append(f"position: {where}")
    if values.get("lastGeoAlt") is not None:
        parts.append(f"altitude: {values['lastGeoAlt']} m")
    return " · ".join(parts)


COLUMNS = ("#", "Item", "Change", "State", "Outcome")


class OfflineEditsDialog(QDialog):
    """The queue of offline edits, with each outcome; a conflict shows the platform's and
    the user's values, and two buttons to choose."""

    def __init__(self, field: FieldMode, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Offline edits")
        self.resize(900, 420)
        self.field, self.session = field, session
        self.edits: list[Edit] = []
        self.rows: dict[int, int] = {}  # an edit's seq: its row
        self.summary = QLabel()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Stretch)
        self.conflict = QLabel()
        self.conflict.setWordWrap(True)
        self.conflict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.mine_button = QPushButton("Keep mine (send it)")
        self.theirs_button = QPushButton("Keep the platform's")
        self.send_button = QPushButton("Send now")
        self.clear_button = QPushButton("Forget the settled ones")
        close = QPushButton("Close")
        choose = QHBoxLayout()
        for button in (self.mine_button, self.theirs_button):
            choose.addWidget(button)
        choose.addStretch(1)
        for button in (self.send_button, self.clear_button, close):
            choose.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.conflict)
        layout.addLayout(choose)
        self.table.itemSelectionChanged.connect(self._selected)
        self.mine_button.clicked.connect(lambda: self._choose(mine=True))
        self.theirs_button.clicked.connect(lambda: self._choose(mine=False))
        self.send_button.clicked.connect(self._send)
        self.clear_button.clicked.connect(self._clear)
        close.clicked.connect(self.accept)
        field.queue_changed.connect(self.refresh)
        field.edit_done.connect(self.edit_done)
        session.state_changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        queue = self.field.queue
        chosen = self.selected_edit()
        self.edits = queue.edits() if queue is not None else []
        self.rows = {edit.seq: row for row, edit in enumerate(self.edits)}
        self.table.setRowCount(len(self.edits))
        for row, edit in enumerate(self.edits):
            self._fill(row, edit)
            if chosen is not None and edit.seq == chosen.seq:
                self.table.selectRow(row)
        self._summarise()

    def _fill(self, row: int, edit: Edit) -> None:
        # values_words names each field ("name: …", "position: …"): said once.
        cells = (str(edit.seq), edit.label, values_words(edit.changes) or
                 changed_words(edit.changes), STATE_WORDS.get(edit.state, edit.state),
                 edit.outcome)  # fmt: skip
        for column, text in enumerate(cells):
            item = self.table.item(row, column)
            if item is None:
                self.table.setItem(row, column, QTableWidgetItem(text))
            elif item.text() != text:
                item.setText(text)

    def edit_done(self, edit: Edit) -> None:
        """One edit's outcome: its row only (a replay of hundreds stays smooth)."""
        row = self.rows.get(edit.seq)
        if row is None:
            self.refresh()
            return
        self.edits[row] = edit
        self._fill(row, edit)
        self._summarise()

    def _summarise(self) -> None:
        waiting = sum(1 for e in self.edits if e.pending)
        conflicts = sum(1 for e in self.edits if e.state == CONFLICT)
        online = self.session.client is not None and not self.field.offline
        if self.field.syncing:
            state = "Sending…"
        elif not online:
            state = "Sent when the connection is back"
        else:
            state = "Connected"
        self.summary.setText(
            f"{waiting} waiting, {conflicts} conflicts to choose, {len(self.edits)} in all"
            f" · {state}"
        )
        self.send_button.setEnabled(online and waiting > 0 and not self.field.syncing)
        self.send_button.setToolTip("" if online else "Offline: sent when the connection is back")
        self._selected()

    def selected_edit(self) -> Edit | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.edits):
            return None
        return self.edits[rows[0].row()]

    def _selected(self) -> None:
        edit = self.selected_edit()
        conflict = edit is not None and edit.state == CONFLICT
        online = self.session.client is not None and not self.field.offline
        self.mine_button.setEnabled(conflict and online)
        self.theirs_button.setEnabled(conflict)
        if edit is not None and conflict:
            self.conflict.setText(
                f"{edit.label} changed on the platform since the snapshot.\n"
                f"On the platform: {values_words(edit.platform)}\n"
                f"Yours (made offline): {values_words(edit.changes)}"
            )
        else:
            self.conflict.setText("")

    def _choose(self, *, mine: bool) -> None:
        edit = self.selected_edit()
        client = self.session.client
        if edit is None or edit.state != CONFLICT:
            return
        if mine and (client is None or self.field.offline):
            return
        self.field.resolve(client, edit, mine=mine)  # type: ignore[arg-type]

    def _send(self) -> None:
        if self.session.client is not None and not self.field.offline:
            self.field.sync(self.session.client)

    def _clear(self) -> None:
        if self.field.queue is not None:
            self.field.queue.clear_done()
            self.refresh()

    def done(self, result: int) -> None:
        self.field.queue_changed.disconnect(self.refresh)
        self.session.state_changed.disconnect(self.refresh)
        super().done(result)
