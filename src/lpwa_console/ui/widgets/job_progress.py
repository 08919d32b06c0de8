"""The progress bar of a long job (a file imported, a command run over stations, a region
taken offline): one part, so each job's bar moves, throttles and ends alike."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QProgressBar, QWidget

SHOWN_EVERY_MS = 250  # a new value at most 4 times a second


class JobBar(QProgressBar):
    """Moving without a count until the job gives one (`busy`), then "done of total" in
    `text_format`. A new value repaints the whole window at once: a job that counts often
    (one per station) shows its counts at most every `every_ms` (the first and the last at
    once); a job of coarse steps (batches) passes 0, each shown at once. `shown` says what
    the bar now shows, for a line of words that follows it. `hide_idle`: hidden but while
    the job runs."""

    shown = Signal(int, int)  # done, total

    def __init__(
        self,
        name: str,
        text_format: str = "%v of %m",
        *,
        hide_idle: bool = False,
        every_ms: int = SHOWN_EVERY_MS,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName(name)
        self.setFormat(text_format)
        self.hide_idle = hide_idle
        self._latest = (0, 0, text_format)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(every_ms)
        self._timer.timeout.connect(self._show)
        self.setVisible(not hide_idle)

    def busy(self) -> None:
        """The job started and has no count yet."""
        self._timer.stop()
        self.setRange(0, 0)
        self.setVisible(True)

    def advance(self, done: int, total: int, text_format: str = "") -> None:
        """`done` of `total` (and the words for them, when they change)."""
        self._latest = (done, total, text_format or self.format())
        if done == total or done == 0 or self._timer.interval() == 0:
            self._show()
        elif not self._timer.isActive():
            self._timer.start()

    def finish(self) -> None:
        """The job ended: no count is due any more."""
        self._timer.stop()
        if self.hide_idle:
            self.setVisible(False)

    def _show(self) -> None:
        self._timer.stop()
        done, total, text_format = self._latest
        self.setFormat(text_format)
        self.setRange(0, max(total, 1))
        self.setValue(done)
        self.shown.emit(done, total)
