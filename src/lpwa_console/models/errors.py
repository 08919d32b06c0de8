"""Turn any failure of a task into one sentence a user can read."""

from __future__ import annotations

import asyncio

from pydantic import ValidationError

from ..api import (
    APIConnectionError,
    APIError,
    APIStatusError,
    AuthenticationError,
    PermissionDeniedError,
    TokenError,
)


class UserError(Exception):
    """A failure whose text is already a sentence for the user (no class name added)."""


def user_message(exc: BaseException) -> str:
    if isinstance(exc, UserError):
        return str(exc)
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
    if isinstance(exc, ValidationError):
        return validation_summary(exc)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """`field: reason` for the first few errors, not pydantic's multi-line dump."""
    parts = []
    for error in exc.errors()[:limit]:
        field = ".".join(str(p) for p in error["loc"])
        reason = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{field}: {reason}" if field else reason)
    more = exc.error_count() - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")
