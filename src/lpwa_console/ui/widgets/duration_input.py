"""A duration edited as people say it: a number and a unit ("2 days"), sent as the ISO 8601
text the platform reads (`P2D`). A duration the units cannot hold exactly (`PT90M` in
hours) is shown in the largest unit that does (90 minutes)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QSpinBox, QWidget

from ...schema.durations import DURATION_UNITS, join_duration, split_duration
from ..layouts import FLUSH, fill

# The units a form offers: minutes to weeks (seconds are never useful for these fields)...
UNITS = [(unit, many) for unit, _size, _one, many in DURATION_UNITS if unit != "S"][::-1]
# ...except where the platform counts in seconds (a station disconnected for 30 s).
UNITS_WITH_SECONDS = [(unit, many) for unit, _size, _one, many in DURATION_UNITS][::-1]


class DurationInput(QWidget):
    """`text()` is the ISO 8601 duration ('' when the number is 0: nothing given);
    `changed` fires on every edit."""

    changed = Signal()

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, seconds: bool = False
    ) -> None:
        super().__init__(parent)
        self.seconds = seconds
        self.number = QSpinBox()
        self.number.setRange(0, 9999)
        self.number.setSpecialValueText(" ")  # 0 reads as empty: nothing given
        self.number.setAccessibleName("Number")
        self.unit = QComboBox()
        self.unit.setAccessibleName("Unit")
        for unit, words in UNITS_WITH_SECONDS if seconds else UNITS:
            self.unit.addItem(words, unit)
        fill(QHBoxLayout(self), (self.number, 1), self.unit, margins=FLUSH)
        self.setFocusProxy(self.number)
        self.setText(text)
        self.number.valueChanged.connect(lambda _v: self.changed.emit())
        self.unit.currentIndexChanged.connect(lambda _i: self.changed.emit())

    def setText(self, text: str) -> None:
        number, unit = 0, "D"
        if text.strip():
            try:
                number, unit = split_duration(text)
            except ValueError:
                number = 0
        if unit == "S" and not self.seconds:  # seconds only: shown in minutes, rounded
            number, unit = max(1, round(number / 60)), "M"
        self.number.setValue(number)
        self.unit.setCurrentIndex(max(0, self.unit.findData(unit)))

    def text(self) -> str:
        number = self.number.value()
        return join_duration(number, str(self.unit.currentData())) if number else ""
