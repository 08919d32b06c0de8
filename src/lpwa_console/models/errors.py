"""Turn any failure of a task into one sentence a user can read."""

from __future__ import annotations

import asyncio
import re

from pydantic import ValidationError

from ..api import (
    APIConnectionError,
    APIError,
    APIStatusError,
    AuthenticationError,
    FeatureNotOffered,
    PermissionDeniedError,
    TokenError,
)


class UserError(Exception):
    """A failure whose text is already a sentence for the user (no class name added)."""


class UserQuestion(UserError):
    """Not a failure: the task needs the user's answer first (e.g. a passphrase), and a
    dialog asks it. The task runner does not list it among the errors."""


def user_message(exc: BaseException) -> str:
    if isinstance(exc, UserError):
        return str(exc)
    if isinstance(exc, asyncio.TimeoutError):
        return "The server did not answer in time"
    if isinstance(exc, TokenError):
        return exc.message
    if isinstance(exc, AuthenticationError):
        return f"Not signed in: {exc.message}"
    if isinstance(exc, FeatureNotOffered):
        return exc.message[:1].upper() + exc.message[1:]
    if isinstance(exc, PermissionDeniedError):
        return f"Not allowed: {exc.message}"
    if isinstance(exc, APIStatusError):
        return field_in_words(exc.message) if exc.message else str(exc)
    if isinstance(exc, APIConnectionError):
        return f"Cannot reach the platform: {exc.message}"
    if isinstance(exc, APIError):
        return exc.message
    if isinstance(exc, ValidationError):
        return validation_summary(exc)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


# "model.softwareType: reboot needs...": a refusal that starts with the API path of a field
# inside an object (a lone name, "minLat: ...", is left: forms put it next to its field).
_FIELD_FIRST = re.compile(r"([a-z][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+): (.+)", re.S)


def field_in_words(message: str) -> str:
    """A refusal that starts with a field's API path, with the field's label instead
    ("Software: reboot needs..."): the user never sees a schema's paths."""
    from ..schema.labels import label_of  # the labels are read on a refusal, not at start

    found = _FIELD_FIRST.fullmatch(message)
    if found is None:
        return message
    path, rest = found.groups()
    return f"{label_of(path.rsplit('.', 1)[-1])}: {rest}"


def validation_summary(exc: ValidationError, limit: int = 3) -> str:
    """`field: reason` for the first few errors, not pydantic's multi-line dump."""
    parts = []
    for error in exc.errors()[:limit]:
        field = ".".join(str(p) for p in error["loc"])
        reason = str(error["msg"]).removeprefix("Value error, ")
        parts.append(f"{field}: {reason}" if field else reason)
    more = exc.error_count() - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")
