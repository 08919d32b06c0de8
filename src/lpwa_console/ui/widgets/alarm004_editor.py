"""The no-uplink alarm (004) thresholds of one device: two rows of enable, level, duration,
checked live by the schema's rules (AlarmsConfiguration) before Save is offered. Severities
read in words, durations as a number and a unit ("2 days", sent as P2D)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ...models.device_detail import Threshold, alarm004_request, thresholds_of
from ...models.forms import tooltip_of
from ...schema.common import Severity
from ...schema.devices import Alarm004Threshold, Device
from ...schema.labels import field_words, label_of
from ..rights import RightsGate
from ..theme import severity_color
from .duration_input import DurationInput


class Alarm004Editor(QWidget):
    save_requested = Signal(str, dict)  # device ref, {"alarmsConfiguration": ...}

    def __init__(self, gate: RightsGate | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.gate = gate or RightsGate(None, self)
        self.device: Device | None = None
        self.enabled: list[QCheckBox] = []
        self.levels: list[QComboBox] = []
        self.durations: list[DurationInput] = []
        grid = QGridLayout()
        grid.addWidget(QLabel("Threshold"), 0, 0)
        for column, name in ((1, "level"), (2, "duration")):
            header = QLabel(label_of(name, Alarm004Threshold))
            header.setToolTip(tooltip_of(name, field_words(name, Alarm004Threshold)))
            grid.addWidget(header, 0, column)
        for i in range(2):
            check = QCheckBox(f"{i + 1}")
            check.setObjectName(f"threshold{i + 1}Enabled")
            level = QComboBox()
            level.setObjectName(f"threshold{i + 1}Level")
            for value in range(2, 7):
                level.addItem(Severity(value).label, value)
                level.setItemData(
                    level.count() - 1, severity_color(value), Qt.ItemDataRole.ForegroundRole
                )
            duration = DurationInput()
            duration.setObjectName(f"threshold{i + 1}Duration")
            duration.setToolTip(tooltip_of("duration", field_words("duration")))
            check.toggled.connect(lambda _c: self._changed())
            level.currentIndexChanged.connect(lambda _i: self._changed())
            duration.changed.connect(self._changed)
            grid.addWidget(check, i + 1, 0)
            grid.addWidget(level, i + 1, 1)
            grid.addWidget(duration, i + 1, 2)
            self.enabled.append(check)
            self.levels.append(level)
            self.durations.append(duration)
        self.error = QLabel()
        self.error.setObjectName("alarm004Error")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {severity_color(6).name()}")
        self.save_button = QPushButton("Save thresholds")
        self.save_button.setObjectName("saveAlarm004")
        self.reset_button = QPushButton("Revert")
        self.save_button.clicked.connect(self.save)
        self.reset_button.clicked.connect(lambda: self.set_device(self.device))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.reset_button)
        buttons.addWidget(self.save_button)
        hint = QLabel(
            "Raise an alarm when the device has sent no uplink for a while. "
            "The second threshold must be more severe and later than the first."
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("opacity: .7")
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addLayout(grid)
        layout.addWidget(self.error)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self._loading = False
        self.set_device(None)

    def set_device(self, device: Device | None) -> None:
        self.device = device
        self._loading = True
        for i, threshold in enumerate(thresholds_of(device)):
            self.enabled[i].setChecked(threshold.enabled)
            self.levels[i].setCurrentIndex(max(0, self.levels[i].findData(threshold.level)))
            self.durations[i].setText(threshold.duration)
        self._loading = False
        self._dirty = False
        self._changed()
        self._dirty = False
        self._update_buttons()

    def thresholds(self) -> list[Threshold]:
        return [
            Threshold(
                self.enabled[i].isChecked(),
                int(self.levels[i].currentData()),
                self.durations[i].text(),
            )
            for i in range(2)
        ]

    def request(self) -> tuple[dict[str, Any] | None, str]:
        return alarm004_request(self.thresholds())

    def _changed(self) -> None:
        if self._loading:
            return
        self._dirty = True
        _body, message = self.request()
        self.error.setText(message)
        self.error.setVisible(bool(message))
        self._update_buttons()

    def _update_buttons(self) -> None:
        valid = not self.error.text()
        self.gate.enable(self.save_button, self.device is not None and valid and self._dirty)
        self.reset_button.setEnabled(self.device is not None and self._dirty)
        for widget in (*self.enabled, *self.levels, *self.durations):
            widget.setEnabled(self.device is not None)

    def save(self) -> None:
        body, _message = self.request()
        if body is None or self.device is None:
            return
        self.save_requested.emit(self.device.path_ref, {"alarmsConfiguration": body})
