"""The alarm thresholds editor: severities by name, durations as a number and a unit (seconds
too), the rules said while typing, and the schema's AlarmsConfiguration out."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox, QComboBox, QLabel

from lpwa_console.schema.stations import AlarmsConfigurationView
from lpwa_console.ui.widgets.alarm_thresholds_editor import AlarmThresholdsEditor
from lpwa_console.ui.widgets.duration_input import DurationInput
from tests.helpers import shot


def test_rules_enforced_while_typing(qtbot: Any) -> None:
    editor = AlarmThresholdsEditor()
    qtbot.addWidget(editor)
    changes: list[int] = []
    editor.changed.connect(lambda: changes.append(1))
    # the platform's default: Critical after 30 seconds (seconds kept, not rounded)
    first = editor.findChild(DurationInput, "alarm102_1_duration")
    assert first.text() == "PT30S" and first.unit.currentText() == "seconds"
    severity = editor.findChild(QComboBox, "alarm102_1_severity")
    assert [severity.itemText(i) for i in range(severity.count())] == [
        "Critical", "Major", "Minor", "Warning", "Indeterminate",
    ]  # fmt: skip
    second = editor.findChild(QCheckBox, "alarm103_2_enabled")
    assert not second.isEnabled()  # the second waits for the first
    editor.findChild(QCheckBox, "alarm103_1_enabled").setChecked(True)
    message = editor.findChild(QLabel, "thresholdsProblem")
    assert message.text() == "No uplink, threshold 1: say after how long the alarm is raised"
    assert editor.configuration() is None
    duration = editor.findChild(DurationInput, "alarm103_1_duration")
    duration.unit.setCurrentIndex(duration.unit.findData("H"))
    duration.number.setValue(2)
    assert second.isEnabled()
    second.setChecked(True)
    later = editor.findChild(DurationInput, "alarm103_2_duration")
    later.unit.setCurrentIndex(later.unit.findData("H"))
    later.number.setValue(1)
    assert message.text() == (
        "No uplink: the second threshold must come later than the first "
        "(1 hour is not later than 2 hours)"
    )
    shot(editor, "alarm_thresholds_problem")
    later.unit.setCurrentIndex(later.unit.findData("D"))
    assert message.text() == ""
    assert editor.findChild(QLabel, "thresholdsSummary").text() == (
        "Connection lost: Critical after 30 seconds. "
        "No uplink: Major after 2 hours, then Critical after 1 day."
    )
    request = editor.configuration()
    assert request is not None and request.to_wire()["alarm103"] == [
        {"duration": "PT2H", "severity": 5},
        {"duration": "P1D", "severity": 6},
    ]
    assert changes and editor.dirty


def test_shows_a_stations_thresholds_and_can_be_read_only(qtbot: Any) -> None:
    editor = AlarmThresholdsEditor()
    qtbot.addWidget(editor)
    view = AlarmsConfigurationView.model_validate(
        {"alarm102": [{"duration": "PT5M", "severity": 5}], "alarm103": []}
    )
    editor.set_configuration(view)
    assert not editor.dirty
    assert editor.findChild(DurationInput, "alarm102_1_duration").text() == "PT5M"
    assert editor.findChild(QComboBox, "alarm102_1_severity").currentText() == "Major"
    assert editor.configuration().to_wire() == {
        "alarm102": [{"duration": "PT5M", "severity": 5}],
        "alarm103": [],
    }
    editor.set_editable(False)
    assert not editor.findChild(QCheckBox, "alarm102_1_enabled").isEnabled()
    assert not editor.findChild(DurationInput, "alarm102_1_duration").isEnabled()
