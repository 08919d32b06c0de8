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
