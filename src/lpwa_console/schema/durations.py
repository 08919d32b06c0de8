"""ISO 8601 durations as the platform writes them (`PT1H`, `P2D`, `P1W`)."""

from __future__ import annotations

import re
from datetime import timedelta

_DURATION = re.compile(
    r"P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+)S)?)?"
)


def parse_duration(text: str) -> timedelta:
    """Parse `P2D`, `PT12H`, `P1DT6H`...; years and months are refused (not a fixed length)."""
    match = _DURATION.fullmatch(text.strip().upper())
    if not match or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise ValueError(f"{text!r} is not an ISO 8601 duration such as PT12H or P2D")
    parts = {k: int(v) for k, v in match.groupdict().items() if v}
    return timedelta(**parts)


def format_duration(value: timedelta) -> str:
    """The shortest ISO 8601 form: P2D, PT36H -> P1DT12H."""
    seconds = int(value.total_seconds())
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    out = "P" + (f"{days}D" if days else "")
    time = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
    time += f"{secs}S" if secs else ""
    if time:
        out += "T" + time
    return out if out != "P" else "PT0S"


# --- durations as people write them: a number and a unit --------------------------------------

# (unit, seconds, singular, plural), largest first: a form offers these units.
DURATION_UNITS: tuple[tuple[str, int, str, str], ...] = (
    ("W", 7 * 86400, "week", "weeks"),
    ("D", 86400, "day", "days"),
    ("H", 3600, "hour", "hours"),
    ("M", 60, "minute", "minutes"),
    ("S", 1, "second", "seconds"),
)


def split_duration(text: str) -> tuple[int, str]:
    """(number, unit) for a duration, in the largest unit that divides it exactly:
    `P2D` -> (2, "D"), `PT36H` -> (36, "H"), `P1W` -> (1, "W"). Raises ValueError."""
    seconds = int(parse_duration(text).total_seconds())
    for unit, size, _one, _many in DURATION_UNITS:
        if seconds and seconds % size == 0:
            return seconds // size, unit
    return seconds, "S"


def join_duration(number: int, unit: str) -> str:
    """The ISO 8601 text of `number` `unit`s (a unit of DURATION_UNITS): (2, "D") -> `P2D`."""
    size = next(s for u, s, _one, _many in DURATION_UNITS if u == unit)
    return format_duration(timedelta(seconds=number * size))


def duration_words(text: str) -> str:
    """A duration in words: `P2D` -> "2 days", `PT1H` -> "1 hour", `PT90M` -> "1 hour 30
    minutes". Text that is not a duration comes back as it was."""
    try:
        seconds = int(parse_duration(text).total_seconds())
    except ValueError:
        return text
    parts: list[str] = []
    for _unit, size, one, many in DURATION_UNITS[1:]:  # days, not weeks: "14 days" reads better
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {one if count == 1 else many}")
    return " ".join(parts) or "0 seconds"
