"""The 400 the HTTP server itself sends has the platform's error body too.

A request the server cannot parse (a URL longer than its parser takes, a malformed request
line) never reaches the app: uvicorn answers it with a plain-text 400 "Invalid HTTP request
received." from its protocol class. `json_error_protocol()` is that class (httptools' when
installed, as uvicorn's "auto" chooses, else h11's) answering `{code, message}` instead, so
every error body a client reads has one shape.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from .errors import INVALID

MESSAGE = (
    "request: not a readable HTTP request (a URL or header longer than the server takes,"
    " or a malformed request line)"
)


def error_bytes(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """A whole `400 {code, message}` response that closes the connection."""
    body = json.dumps({"code": INVALID, "message": MESSAGE}).encode()
    head = [b"HTTP/1.1 400 Bad Request\r\n"]
    head += [name + b": " + value + b"\r\n" for name, value in default_headers]
    head += [
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + body


def json_error_protocol() -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol class with a JSON 400 (for `uvicorn.Config(http=...)`)."""
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # no httptools: uvicorn's "auto" takes h11
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class JsonErrorProtocol(base):  # type: ignore[misc]
        def send_400_response(self, msg: str) -> None:
            self.transport.write(error_bytes(list(self.server_state.default_headers)))
            self.transport.close()

    return JsonErrorProtocol
