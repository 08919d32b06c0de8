"""Following a run of a command over base stations: one station's line, or many stations'
table and progress bar, with Stop, Retry failed and Send again. Shared by the command dialog
(`station_commands.py`) and the support password's (`support_password.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ...models.rights import AccountRights
from ...models.station_command_catalogue import (
    CommandSpec,
    StationRef,
    confirmation_text,
    count_words,
    stations_in_words,
)
from ...models.station_command_run import BulkCommandRun, State, StationResultsModel
from ...models.tasks import TaskRunner
from ..layouts import FLUSH, Item, fill
from ..rights import RightsGate
from ..theme import severity_color
from ..widgets.form_parts import message_line, words_label
from ..widgets.job_progress import JobBar
from ..widgets.pane_parts import SeverityDelegate, row_table

# A state's colour: the severity it reads as (6 critical ... 2 indeterminate; 0 none).
STATE_SEVERITY = {
    State.FAILED.name: 6,
    State.REFUSED.name: 6,
    State.TIMED_OUT.name: 5,
    State.UNKNOWN.name: 4,
    State.LEFT.name: 2,
    State.CANCELLED.name: 2,
}


SEVERITY_BY_WORDS = {State[name].words: level for name, level in STATE_SEVERITY.items()}


def state_level(index: QModelIndex | QPersistentModelIndex) -> int:
    """The State column in the colour of what it means (failed red, not known amber)."""
    return SEVERITY_BY_WORDS.get(str(index.data()), 0)  # the state's words are its name


LONG_STATION = "Paris La Defense water tower 05 (1000000F)"


def results_table(model: StationResultsModel) -> QTableView:
    """Per-station results: fixed row height (never measured), the message stretching."""
    table = row_table(model, "stationResults")
    header = table.horizontalHeader()
    header.setStretchLastSection(False)
    # In the stations' order until a header is clicked (State: what needs attention first).
    header.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
    table.setSortingEnabled(True)
    header.setSectionResizeMode(StationResultsModel.MESSAGE, QHeaderView.ResizeMode.Stretch)
    width = table.fontMetrics().horizontalAdvance("M")
    # Room for a long station's name and LRR ID, and for the longest state's words.
    metrics, pad = table.fontMetrics(), 16
    table.setColumnWidth(StationResultsModel.STATION, metrics.horizontalAdvance(LONG_STATION) + pad)
    longest = max((state.words for state in State), key=metrics.horizontalAdvance)
    table.setColumnWidth(StationResultsModel.STATE, metrics.horizontalAdvance(longest) + pad)
    table.setColumnWidth(StationResultsModel.DURATION, width * 7)
    table.setItemDelegateForColumn(
        StationResultsModel.STATE, SeverityDelegate(table, state_level, bold=False)
    )
    return table


class RunView(QWidget):
    """The progress of a run: one station's line, or many stations' table and bar; Stop,
    Retry failed, and Send again where it is not known whether the first one arrived."""

    def __init__(self, run: BulkCommandRun, *, allow_retry: bool = True, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("runView")
        self.run = run
        self.allow_retry = allow_retry
        single = len(run.stations) == 1
        title = QLabel(
            f"{run.spec.title}: {stations_in_words(run.stations, limit=3)}"
            if single or len(run.stations) <= 3
            else f"{run.spec.title}: {count_words(len(run.stations))}"
        )
        title.setObjectName("runTitle")
        title.setWordWrap(True)
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.bar = JobBar("runProgress", "%v of %m stations done")  # failures are outcomes
        self.bar.setRange(0, len(run.stations))
        # At 0 while hidden: the run's first "0 of N" is then no change, and no repaint of
        # the whole window in the middle of opening it (a new value repaints at once).
        self.bar.setValue(0)
        self.line = QLabel()
        self.line.setObjectName("runLine")
        self.line.setWordWrap(True)
        self.line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary = message_line("runSummary", error=False)
        self.table = results_table(run.model)
        self.table.setVisible(not single)
        self.line.setVisible(single)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setObjectName("stopRun")
        self.stop_button.setToolTip("Send no more and stop following; what was sent stays sent")
        self.retry_button = QPushButton("Retry failed")
        self.retry_button.setObjectName("retryFailed")
        self.again_button = QPushButton()
        self.again_button.setObjectName("sendAgainUnknown")
        self.again_button.setToolTip(
            "The connection dropped after sending: the station may have it already. "
            "Check it first; sending again may run the command twice."
        )
        self._again_armed = False
        buttons = fill(QHBoxLayout(), self.stop_button, 1, self.again_button, self.retry_button)
        self.buttons = buttons  # the dialog adds its Close here
        layout = fill(
            QVBoxLayout(self),
            title, self.bar, self.line, (self.table, 1), self.summary, buttons,
            margins=FLUSH,
        )  # fmt: skip
        if single:
            layout.addStretch(1)
        self.stop_button.clicked.connect(run.cancel)
        self.retry_button.clicked.connect(self._retry)
        self.again_button.clicked.connect(self._again)
        run.progress.connect(self.bar.advance)
        self.bar.shown.connect(self._progress_shown)
        run.model.dataChanged.connect(self._row_changed)
        run.running_changed.connect(lambda _r: self._update())
        run.finished.connect(self.summary.setText)
        self._update()

    def _progress_shown(self, _done: int, _total: int) -> None:
        if self.run.running:
            self.summary.setText(self.run.summary())

    def _row_changed(self, _top: QModelIndex, _bottom: QModelIndex, *_roles: Any) -> None:
        if len(self.run.stations) == 1:
            self._update_line()

    def _update_line(self) -> None:
        result = self.run.model.results[0]
        words = result.state.words
        self.line.setText(f"{words}: {result.message}" if result.message else words)
        level = STATE_SEVERITY.get(result.state.name, 0)
        self.line.setStyleSheet(f"color: {severity_color(level).name()}" if level else "")

    def _update(self) -> None:
        running = self.run.running
        failed = len(self.run.failed_rows())
        unknown = len(self.run.model.rows_in(State.UNKNOWN))
        self.stop_button.setVisible(running)
        self.retry_button.setVisible(self.allow_retry and not running and failed > 0)
        self.retry_button.setText(
            "Retry" if len(self.run.stations) == 1 else f"Retry failed ({failed})"
        )
        self.again_button.setVisible(self.allow_retry and not running and unknown > 0)
        self._again_armed = False
        self.again_button.setText(f"Send again where not known ({unknown})…")
        if len(self.run.stations) == 1:
            self.bar.setRange(0, 0 if running else 1)
            self.bar.setValue(0 if running else 1)
            self.bar.setTextVisible(False)
            self._update_line()
        if running:
            self.summary.setText(self.run.summary())

    def _retry(self) -> None:
        self.run.retry_failed()

    def _again(self) -> None:
        """Two clicks: the first says what it means, the second sends."""
        if not self._again_armed:
            self._again_armed = True
            unknown = len(self.run.model.rows_in(State.UNKNOWN))
            self.again_button.setText(f"Send again anyway to {count_words(unknown)}")
            self.summary.setText(
                "Not known whether these stations received the command: sending again may "
                "run it twice. Check their last command first."
            )
            return
        self.run.retry_failed(include_unknown=True)


class CommandDialog(QDialog):
    """The pages every station command dialog has: the form (sent with `send_button`), a
    confirmation (`back_button` safe, `confirm_button` starts), then the run followed
    (`show_run`). Closing stops sending and following; what was sent stays sent."""

    def __init__(
        self,
        parent: QWidget | None,
        admin: Any,
        *,
        rights: AccountRights | None = None,
        runner: TaskRunner | None = None,
    ) -> None:
        """`admin`: the client's station admin resource (None: not connected)."""
        super().__init__(parent)
        self.admin = admin
        self.runner = runner
        self.gate = RightsGate(rights, self)
        self.run: BulkCommandRun | None = None
        self.run_view: RunView | None = None

    def _stack_pages(self, *pages: QWidget) -> None:
        self.stack = QStackedWidget()
        for page in pages:
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack, 1)

    def _send_row(self, text: str = "") -> QHBoxLayout:
        """Cancel and the default `send_button` (named `sendCommand`), right-aligned."""
        self.send_button = QPushButton(text)
        self.send_button.setObjectName("sendCommand")
        self.send_button.setDefault(True)
        cancel = QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(cancel)
        buttons.addWidget(self.send_button)
        return buttons

    def _confirm_row(self, text: str = "") -> QHBoxLayout:
        """Back to the form, and `confirm_button` that starts (`start`)."""
        self.back_button = QPushButton("Back")
        self.back_button.setObjectName("backToForm")
        self.confirm_button = QPushButton(text)
        self.confirm_button.setObjectName("confirmCommand")
        self.back_button.clicked.connect(lambda: self.stack.setCurrentIndex(0))
        self.confirm_button.clicked.connect(self.start)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.confirm_button)
        return buttons

    def confirm_page(self, *effects: Item, confirm: str = "") -> QWidget:
        """Page 2: what is done to which stations (`confirm_text`), the `effects` under it,
        then Back and `confirm_button`."""
        page = QWidget()
        page.setObjectName("confirmPage")
        self.confirm_text = words_label("confirmText")
        fill(QVBoxLayout(page), self.confirm_text, *effects, 1, self._confirm_row(confirm))
        return page

    def confirm(self, spec: CommandSpec, stations: Sequence[StationRef], button: str = "") -> None:
        """Page 2 for `spec` over `stations`, `button` naming what it starts (by default
        the sentence's head: "Reboot 2 stations"); Enter gives Back, the safe answer."""
        sentence = confirmation_text(spec, stations)
        self.confirm_text.setText(sentence)
        self.confirm_button.setText(button or sentence.split(":", 1)[0])
        self.stack.setCurrentIndex(1)
        self.back_button.setFocus()

    def allowed(self, action: str, message: QLabel) -> bool:
        """The account may do `action` (models/rights.py); if not, back to the form with
        `message` saying why."""
        verdict = self.gate.check(action)
        if not verdict.allowed:
            message.setText(verdict.reason)
            self.stack.setCurrentIndex(0)
        return verdict.allowed

    def begin_run(
        self,
        command: str,
        stations: Sequence[StationRef],
        body: Any,
        *,
        allow_retry: bool = True,
    ) -> BulkCommandRun:
        """The run of `command` with `body` over `stations`, owned by the dialog, its page
        shown (`run_view`); the caller starts it once it has connected what it follows."""
        run = BulkCommandRun(self.admin, command, stations, body, runner=self.runner)
        run.setParent(self)
        self.run = run
        self.run_view = self.show_run(run, allow_retry=allow_retry)
        return run

    def start(self) -> None:
        raise NotImplementedError

    def show_run(self, run: BulkCommandRun, *, allow_retry: bool = True) -> RunView:
        """The run's page, with Close, shown (the run is started by the caller)."""
        view = RunView(run, allow_retry=allow_retry)
        close = QPushButton("Close")
        close.setObjectName("closeRun")
        close.clicked.connect(self.accept)
        view.buttons.addWidget(close)
        self.stack.addWidget(view)
        self.stack.setCurrentWidget(view)
        return view

    def done(self, result: int) -> None:
        if self.run is not None and self.run.running:
            self.run.cancel()
        super().done(result)
