"""A base station's alarm thresholds (`alarmsConfiguration`, Document 2 §2.4) as an editor
holds them: rows of (on, severity, duration), and the rules in plain words.

alarm102 (connection lost): at most one threshold, CRITICAL after 30 seconds by default.
alarm103 (no uplink): at most two; the second comes later and is more severe than the first.
The rules are checked here as the user types, with a message that names what is wrong, and
once more by the schema's own `AlarmsConfiguration` before anything is produced.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from pydantic import ValidationError

from ..schema.common import Severity
from ..schema.durations import duration_words, parse_duration
from ..schema.stations import (
    DEFAULT_ALARM102_DURATION,
    DEFAULT_ALARM102_SEVERITY,
    MAX_THRESHOLD,
    AlarmsConfiguration,
)

# Most severe first, as people choose them.
SEVERITIES: tuple[int, ...] = (6, 5, 4, 3, 2)
ALARM_NAMES = {"alarm102": "Connection lost", "alarm103": "No uplink"}
MAX_ROWS = {"alarm102": 1, "alarm103": 2}


def severity_words(level: int) -> str:
    return Severity(level).label


@dataclass(frozen=True)
class ThresholdRow:
    enabled: bool
    severity: int
    duration: str  # ISO 8601, '' when not given


DEFAULT_102 = ThresholdRow(True, DEFAULT_ALARM102_SEVERITY, DEFAULT_ALARM102_DURATION)


def rows_of(configuration: Any) -> dict[str, list[ThresholdRow]]:
    """The editor's rows for a station's alarmsConfiguration (an answer, a request or a
    mapping); alarm102 not given means the default, as the platform applies it."""
    rows: dict[str, list[ThresholdRow]] = {}
    for name, count in MAX_ROWS.items():
        value = (
            configuration.get(name)
            if isinstance(configuration, dict)
            else getattr(configuration, name, None)
        )
        given = [
            ThresholdRow(True, int(_get(t, "severity")), str(_get(t, "duration")))
            for t in (value or [])[:count]
        ]
        if name == "alarm102" and value is None:
            given = [DEFAULT_102]
        # Rows not in use offer a likely choice: Major then Critical for no uplink.
        spares = [ThresholdRow(False, 6 if name == "alarm102" else 5 + i, "") for i in range(count)]
        rows[name] = given + spares[len(given) :]
    return rows


def _get(item: Any, name: str) -> Any:
    return item.get(name) if isinstance(item, dict) else getattr(item, name)


def _span(text: str) -> timedelta | None:
    try:
        return parse_duration(text)
    except ValueError:
        return None


def problem_of(rows: dict[str, list[ThresholdRow]]) -> str:
    """What is wrong, in words ('' when nothing is)."""
    for name, thresholds in rows.items():
        alarm = ALARM_NAMES[name]
        on = [t for t in thresholds if t.enabled]
        for position, threshold in enumerate(thresholds):
            if not threshold.enabled:
                continue
            which = alarm if len(thresholds) == 1 else f"{alarm}, threshold {position + 1}"
            span = _span(threshold.duration) if threshold.duration else None
            if span is None or span <= timedelta(0):
                return f"{which}: say after how long the alarm is raised"
            if span > MAX_THRESHOLD:
                return f"{which}: at most {MAX_THRESHOLD.days} days"
        if len(thresholds) > 1 and thresholds[1].enabled and not thresholds[0].enabled:
            return f"{alarm}: turn the first threshold on before the second"
        if len(on) == 2:
            first, second = on
            if (_span(second.duration) or timedelta(0)) <= (_span(first.duration) or timedelta(0)):
                return (
                    f"{alarm}: the second threshold must come later than the first "
                    f"({duration_words(second.duration)} is not later than "
                    f"{duration_words(first.duration)})"
                )
            if second.severity <= first.severity:
                return (
                    f"{alarm}: the second threshold must be more severe than the first "
                    f"({severity_words(second.severity)} is not more severe than "
                    f"{severity_words(first.severity)})"
                )
    return ""


def configuration_of(
    rows: dict[str, list[ThresholdRow]],
) -> tuple[AlarmsConfiguration | None, str]:
    """(the request, '') for valid rows, else (None, what is wrong in words)."""
    problem = problem_of(rows)
    if problem:
        return None, problem
    data = {
        name: [{"duration": t.duration, "severity": t.severity} for t in thresholds if t.enabled]
        for name, thresholds in rows.items()
    }
    try:
        return AlarmsConfiguration.model_validate(data), ""
    except ValidationError as exc:  # a rule of the schema's not mirrored above
        message = str(exc.errors()[0].get("msg", "invalid")).removeprefix("Value error, ")
        for name, words in ALARM_NAMES.items():
            message = message.replace(name, words)
        return None, message


def summary_of(rows: dict[str, list[ThresholdRow]]) -> str:
    """ "Connection lost: Critical after 30 seconds. No uplink: Major after 2 hours, then
    Critical after 1 day." """
    parts = []
    for name, thresholds in rows.items():
        on = [t for t in thresholds if t.enabled]
        steps = [f"{severity_words(t.severity)} after {duration_words(t.duration)}" for t in on]
        parts.append(f"{ALARM_NAMES[name]}: " + (", then ".join(steps) if steps else "no alarm"))
    return ". ".join(parts) + "."
