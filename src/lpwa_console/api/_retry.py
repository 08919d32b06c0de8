"""When to try a request again and how long to wait first: shared by requests and the token."""

from __future__ import annotations

import email.utils
import random
import time

import httpx

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 60.0


def retry_after(response: httpx.Response) -> float | None:
    """Seconds the server asked us to wait (Retry-After as seconds or an HTTP date)."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return min(MAX_RETRY_AFTER_S, max(0.0, float(value)))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return min(MAX_RETRY_AFTER_S, max(0.0, when.timestamp() - time.time()))


def backoff_delay(attempt: int, base_s: float, response: httpx.Response | None) -> float:
    """The server's Retry-After if it gave one, else jittered exponential backoff."""
    delay = retry_after(response) if response is not None else None
    if delay is None:
        delay = min(8.0, base_s * (2**attempt)) * (0.75 + random.random() / 2)
    return delay
