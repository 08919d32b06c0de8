"""JSON request bodies: read once, bounded, and strict, before FastAPI sees them.

`BoundedRoute` (the app's route class) reads the body of a route that declares one itself
(any type: FastAPI would read it whole), and parses it as JSON whatever the Content-Type's
case (`Application/JSON`): FastAPI parses exactly those bodies (no type, or
application/json and application/*+json, compared as email headers are), so the same test
decides here. The body is refused with 413 past MAX_JSON_BYTES (a Content-Length over it
without reading a byte), parsed once, and refused with 400 naming the field when it holds
`NaN`, `Infinity` or a number beyond a double (`1e999`: Python reads them as floats that
JSON cannot write back, the sandbox stored them as null) or an integer beyond 64 bits
(SQLite's INTEGER). The parsed document is handed to FastAPI as Starlette's cached
`Request.json()`, so a 20 MB body is not parsed twice.
"""

from __future__ import annotations

import email.message
import json
import math
import re
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from .errors import bad_request, too_large
from .params import INT64_MAX, in_int64

# The biggest body a client needs is a few thousand references (bulk commands, tags): 4 MB
# is far above that and keeps a parsed body's memory (about 10x its size) bounded.
MAX_JSON_BYTES = 4 * 1024 * 1024
# An integer out of range has a run of 19+ digits: only then is the document walked for it.
_LONG_DIGITS = re.compile(rb"\d{19,}")


class _NotFinite:
    """What `NaN`, `Infinity` or `1e999` parse to, found by the walk that names the field."""

    def __init__(self, text: str) -> None:
        self.text = text


def is_json(content_type: str | None) -> bool:
    """Whether FastAPI reads a body of this Content-Type as JSON (fastapi/routing.py)."""
    if not content_type:
        return True
    message = email.message.Message()
    message["content-type"] = content_type
    if message.get_content_maintype() != "application":
        return False
    subtype = message.get_content_subtype()
    return subtype == "json" or subtype.endswith("+json")


def _first_bad(document: Any) -> tuple[str, str] | None:
    """(JSON path, what is wrong) for the first value the store cannot keep, walked without
    recursion (nesting depth is the client's choice)."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        name = where or "body"
        if isinstance(value, _NotFinite):
            return name, f"{value.text} is not a finite number"
        if isinstance(value, int) and not isinstance(value, bool):
            if not in_int64(value):
                return name, f"a number is out of range (at most {INT64_MAX})"
            continue
        items: Any = ()
        if isinstance(value, dict):
            items = value.items()
        elif isinstance(value, list):
            items = enumerate(value)
        children = [(f"{where}.{k}" if where else str(k), v) for k, v in items]
        stack.extend(reversed(children))
    return None


async def _capped_body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    limit = f"body: at most {MAX_JSON_BYTES // (1024 * 1024)} MB of JSON per request"
    if declared.isdigit() and int(declared) > MAX_JSON_BYTES:
        raise too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_JSON_BYTES:
            raise too_large(limit)
        chunks.append(chunk)
    body = b"".join(chunks)
    request._body = body  # Starlette's cache: FastAPI reads it there
    return body


def parse_strict(body: bytes) -> Any:
    """The document, or a 400 naming the first field the store cannot keep. Raises
    ValueError (json.JSONDecodeError) on text that is not JSON."""
    flagged = False

    def not_finite(text: str) -> _NotFinite:
        nonlocal flagged
        flagged = True
        return _NotFinite(text)

    def number(text: str) -> float | _NotFinite:
        value = float(text)
        return value if math.isfinite(value) else not_finite(text)

    try:
        document = json.loads(body, parse_constant=not_finite, parse_float=number)
    except RecursionError:
        raise bad_request("body: nested too deeply") from None
    if flagged or _LONG_DIGITS.search(body):
        bad = _first_bad(document)
        if bad is not None:
            raise bad_request(f"{bad[0]}: {bad[1]}")
    return document


class BoundedRoute(APIRoute):
    """An APIRoute whose JSON body is read and checked here, once (see the module)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler  # a route that reads its own body (the imports) keeps its limits

        async def bounded(request: Request) -> Response:
            # Whatever its type: FastAPI would read any body of this route whole.
            body = await _capped_body(request)
            if body and is_json(request.headers.get("content-type")):
                try:
                    document = parse_strict(body)
                except ValueError:
                    pass  # not JSON: FastAPI's own parse answers it
                else:
                    request._json = document  # read by FastAPI as request.json()
            return await handler(request)

        return bounded
