"""Turn any failure of a task into one sentence a user can read."""

from __future__ import annotations

import asyncio

from ..api import (
    APIConnectionError,
    APIError,
    APIStatusError,
    AuthenticationError,
    PermissionDeniedError,
    TokenError,
)


def user_message(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "The server did not answer in time"
    if isinstance(exc, TokenError):
        return exc.message
    if isinstance(exc, AuthenticationError):
        return f"Not signed in: {exc.message}"
    if isinstance(exc, PermissionDeniedError):
        return f"Not allowed: {exc.message}"
    if isinstance(exc, APIStatusError):
        return exc.message or str(exc)
    if isinstance(exc, APIConnectionError):
        return f"Cannot reach the platform: {exc.message}"
    if isinstance(exc, APIError):
        return exc.message
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"
