"""Reading a list page of 1,000 items (about 1 MB of JSON) in small steps. `json.loads` or a
pydantic validation of the whole page is one C call of 20-50 ms that holds the GIL: the UI
thread, though idle, cannot run meanwhile (a stall). Decoding the `briefs` array one item at
a time lets the interpreter switch threads between items; the UI thread waits a few ms at
worst. The envelope's other fields (count, more, cursors) are decoded as they come."""

from __future__ import annotations

import json
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = " \t\n\r"


def _skip(text: str, at: int, allowed: str = "") -> int:
    while at < len(text) and (text[at] in _SPACE or text[at] in allowed):
        at += 1
    return at


def read_page(content: bytes) -> dict[str, Any]:
    """The page as `json.loads` would give it, decoded item by item."""
    text = content.decode("utf-8")
    at = _skip(text, 0)
    if not text.startswith("{", at):
        value: dict[str, Any] = json.loads(text)
        return value
    page: dict[str, Any] = {}
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "}":
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at, ":")
        if key == "briefs" and text.startswith("[", at):
            items: list[Any] = []
            at = _skip(text, at + 1)
            while text[at] != "]":
                item, at = _DECODER.raw_decode(text, at)
                items.append(item)
                at = _skip(text, at, ",")
            page[key] = items
            at += 1
        else:
            page[key], at = _DECODER.raw_decode(text, at)
        at = _skip(text, at, ",")
    return page
