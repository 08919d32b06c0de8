"""How the view-models write values for people: shared by every list and detail."""

from __future__ import annotations

from datetime import datetime

TIME_SAMPLE = "2026-12-28 23:58"  # format_time's widest (digits are of one width)


def format_time(ms: int | None) -> str:
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")
