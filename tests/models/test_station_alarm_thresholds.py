"""Alarm thresholds of a base station: the §2.4 rules in plain words, the default of
alarm102, and the schema's AlarmsConfiguration produced."""

from __future__ import annotations

from lpwa_console.models.station_alarm_thresholds import (
    ThresholdRow,
    configuration_of,
    problem_of,
    rows_of,
    summary_of,
)
from lpwa_console.schema.stations import AlarmsConfiguration


def rows(r102: ThresholdRow | None = None, *r103: ThresholdRow) -> dict[str, list[ThresholdRow]]:
    off = ThresholdRow(False, 5, "")
    return {
        "alarm102": [r102 or ThresholdRow(False, 6, "")],
        "alarm103": [*r103, off, off][:2],
    }


def test_default_and_existing_rows() -> None:
    default = rows_of(None)
    assert default["alarm102"] == [ThresholdRow(True, 6, "PT30S")]
    assert [r.enabled for r in default["alarm103"]] == [False, False]
    given = rows_of({"alarm102": [], "alarm103": [{"duration": "PT2H", "severity": 5}]})
    assert given["alarm102"] == [ThresholdRow(False, 6, "")]
    assert given["alarm103"][0] == ThresholdRow(True, 5, "PT2H")
    assert summary_of(default) == "Connection lost: Critical after 30 seconds. No uplink: no alarm."


def test_rules_in_plain_words() -> None:
    assert problem_of(rows(ThresholdRow(True, 6, ""))) == (
        "Connection lost: say after how long the alarm is raised"
    )
    later = rows(None, ThresholdRow(True, 4, "PT2H"), ThresholdRow(True, 6, "PT1H"))
    assert problem_of(later) == (
        "No uplink: the second threshold must come later than the first "
        "(1 hour is not later than 2 hours)"
    )
    severe = rows(None, ThresholdRow(True, 6, "PT1H"), ThresholdRow(True, 5, "P1D"))
    assert problem_of(severe) == (
        "No uplink: the second threshold must be more severe than the first "
        "(Major is not more severe than Critical)"
    )
    assert problem_of(rows(None, ThresholdRow(True, 4, "P400D"))) == (
        "No uplink, threshold 1: at most 365 days"
    )
    second_alone = rows(None, ThresholdRow(False, 4, ""), ThresholdRow(True, 6, "P1D"))
    assert problem_of(second_alone) == "No uplink: turn the first threshold on before the second"


def test_valid_rows_give_the_schemas_configuration() -> None:
    good = rows(
        ThresholdRow(True, 5, "PT1M"), ThresholdRow(True, 4, "PT2H"), ThresholdRow(True, 6, "P1D")
    )
    request, problem = configuration_of(good)
    assert problem == "" and isinstance(request, AlarmsConfiguration)
    assert request.to_wire() == {
        "alarm102": [{"duration": "PT1M", "severity": 5}],
        "alarm103": [{"duration": "PT2H", "severity": 4}, {"duration": "P1D", "severity": 6}],
    }
    none, _ = configuration_of(rows())
    assert none is not None and none.to_wire() == {"alarm102": [], "alarm103": []}
