"""A base station's alarm thresholds (`alarmsConfiguration`): connection lost (alarm 102, one
threshold) and no uplink (alarm 103, up to two), each a switch, a severity by name and a
duration as a number and a unit. The rules are checked on every edit and what is wrong is
said in words under the rows; `configuration()` gives the schema's AlarmsConfiguration, None
while something is wrong. The station configuration form embeds it (`changed`, `problem()`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from ...models.station_alarm_thresholds import (
    ALARM_NAMES,
    MAX_ROWS,
    SEVERITIES,
    ThresholdRow,
    configuration_of,
    rows_of,
    severity_words,
    summary_of,
)
from ...schema.stations import AlarmsConfiguration
from ..theme import severity_color
from .duration_input import DurationInput
from .form_parts import message_line

HINTS = {
    "alarm102": "Raised when the station stays disconnected this long. "
    "Without a setting, the platform raises Critical after 30 seconds.",
    "alarm103": "Raised when no uplink arrives through the station for this long. "
    "A second threshold must come later and be more severe.",
}


class ThresholdInputs:
    """One row: on/off, severity, after how long."""

    def __init__(self, name: str, position: int) -> None:
        tag = f"{name}_{position + 1}"
        self.enabled = QCheckBox("Raise" if position == 0 else "Then raise")
        self.enabled.setObjectName(f"{tag}_enabled")
        self.severity = QComboBox()
        self.severity.setObjectName(f"{tag}_severity")
        self.severity.setAccessibleName("Severity")
        for level in SEVERITIES:
            self.severity.addItem(severity_words(level), level)
            self.severity.setItemData(
                self.severity.count() - 1, severity_color(level), Qt.ItemDataRole.ForegroundRole
            )
        self.after = QLabel("after")
        self.duration = DurationInput(seconds=True)
        self.duration.setObjectName(f"{tag}_duration")
        self.duration.setToolTip("Sent as an ISO 8601 duration\nAPI name: duration")

    def row(self) -> ThresholdRow:
        return ThresholdRow(
            self.enabled.isChecked(), int(self.severity.currentData()), self.duration.text()
        )

    def show(self, row: ThresholdRow) -> None:
        self.enabled.setChecked(row.enabled)
        self.severity.setCurrentIndex(max(0, self.severity.findData(row.severity)))
        self.duration.setText(row.duration)

    def set_active(self, allowed: bool, editable: bool) -> None:
        self.enabled.setEnabled(allowed and editable)
        on = allowed and editable and self.enabled.isChecked()
        for widget in (self.severity, self.after, self.duration):
            widget.setEnabled(on)


class AlarmThresholdsEditor(QWidget):
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("alarmThresholdsEditor")
        self.inputs: dict[str, list[ThresholdInputs]] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for name, count in MAX_ROWS.items():
            code = name.removeprefix("alarm")
            group = QGroupBox(f"{ALARM_NAMES[name]} (alarm {code})")
            group.setToolTip(f"API name: alarmsConfiguration.{name}")
            grid = QGridLayout(group)
            hint = QLabel(HINTS[name])
            hint.setWordWrap(True)
            hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
            grid.addWidget(hint, 0, 0, 1, 4)
            rows = []
            for position in range(count):
                inputs = ThresholdInputs(name, position)
                grid.addWidget(inputs.enabled, position + 1, 0)
                grid.addWidget(inputs.severity, position + 1, 1)
                grid.addWidget(inputs.after, position + 1, 2)
                grid.addWidget(inputs.duration, position + 1, 3)
                inputs.enabled.toggled.connect(lambda _c: self._edited())
                inputs.severity.currentIndexChanged.connect(lambda _i: self._edited())
                inputs.duration.changed.connect(self._edited)
                rows.append(inputs)
            grid.setColumnStretch(3, 1)
            self.inputs[name] = rows
            layout.addWidget(group)
        self.message = message_line("thresholdsProblem")
        self.summary = QLabel()
        self.summary.setObjectName("thresholdsSummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.message)
        layout.addWidget(self.summary)
        self._editable = True
        self._loading = False
        self.set_configuration(None)

    # --- what it holds ----------------------------------------------------------------------

    def rows(self) -> dict[str, list[ThresholdRow]]:
        return {name: [i.row() for i in inputs] for name, inputs in self.inputs.items()}

    def configuration(self) -> AlarmsConfiguration | None:
        """The request for what is shown; None while something is wrong (`problem()`)."""
        request, _problem = configuration_of(self.rows())
        return request

    def problem(self) -> str:
        return configuration_of(self.rows())[1]

    def set_configuration(self, configuration: Any) -> None:
        """Show a station's alarmsConfiguration (None: the platform's default)."""
        self._loading = True
        for name, rows in rows_of(configuration).items():
            for inputs, row in zip(self.inputs[name], rows, strict=True):
                inputs.show(row)
        self._loading = False
        self.dirty = False
        self._refresh()

    def set_editable(self, editable: bool) -> None:
        self._editable = editable
        self._refresh()

    # --- reacting -----------------------------------------------------------------------------

    def _edited(self) -> None:
        if self._loading:
            return
        self.dirty = True
        self._refresh()
        self.changed.emit()

    def _refresh(self) -> None:
        for inputs in self.inputs.values():
            first_on = inputs[0].enabled.isChecked()
            for position, row in enumerate(inputs):
                row.set_active(position == 0 or first_on or row.enabled.isChecked(), self._editable)
        rows = self.rows()
        _request, problem = configuration_of(rows)
        self.message.setText(problem)
        self.summary.setText("" if problem else summary_of(rows))
