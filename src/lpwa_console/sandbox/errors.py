"""Errors as the platform's body `{code, message}`, with stable codes.

| code  | status | meaning                                                     |
|-------|--------|-------------------------------------------------------------|
| 40000 | 400    | invalid request (body, query or path); message names fields |
| 40001 | 400    | unknown reference (model, application server, key, profile) |
| 40002 | 400    | bad cursor (pageAfter) or sort                              |
| 40100 | 401    | no bearer token                                             |
| 40101 | 401    | unknown or expired bearer token                             |
| 40300 | 403    | the account has no subscription                             |
| 40301 | 403    | a permission or access right is missing                     |
| 40302 | 403    | the resource would fall outside the domain restrictions     |
| 40303 | 403    | a network partner's granted base stations are all used      |
| 40400 | 404    | no such resource (or not visible to the caller)             |
| 40401 | 404    | no such path                                                |
| 40500 | 405    | method not allowed                                          |
| 40600 | 406    | none of the representations the Accept header allows        |
| 40900 | 409    | duplicate (EUI already in the subscription)                 |
| 40901 | 409    | stale occContext.version: someone changed the resource      |
| 50000 | 500    | internal error (details in the sandbox log, never the body) |

The token endpoint answers OAuth2 errors instead: `{error, error_description}`.
"""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Collection, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .route_table import effective_routes

log = logging.getLogger("lpwa_console.sandbox")

INVALID = 40000
UNKNOWN_REFERENCE = 40001
BAD_PAGING = 40002
NO_TOKEN = 40100
BAD_TOKEN = 40101
NO_SUBSCRIPTION = 40300
NO_PERMISSION = 40301
OUT_OF_DOMAIN = 40302
GRANT_REACHED = 40303
NOT_FOUND = 40400
NO_ROUTE = 40401
METHOD_NOT_ALLOWED = 40500
NOT_ACCEPTABLE = 40600
DUPLICATE = 40900
STALE = 40901
TOO_LARGE = 41300
INTERNAL = 50000


class ApiError(Exception):
    """Raised anywhere in a request; becomes `{code, message}` with `status`."""

    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def bad_request(message: str, code: int = INVALID) -> ApiError:
    return ApiError(400, code, message)


def forbidden(message: str, code: int = NO_PERMISSION) -> ApiError:
    return ApiError(403, code, message)


def stale(version: int, current: int) -> ApiError:
    return ApiError(
        409,
        STALE,
        f"occContext.version: {version} is not the current version {current}"
        " (someone else changed it); read it again",
    )


def too_large(message: str) -> ApiError:
    return ApiError(413, TOO_LARGE, message)


def not_found(message: str) -> ApiError:
    return ApiError(404, NOT_FOUND, message)


# Hexadecimal identifiers: the platform upper-cases them, so any case names the same one.
_ANY_CASE = frozenset({"EUI", "nwAddress"})
# A station's fixed fields, compared regardless of case.
STATION_ANY_CASE = frozenset({"lrrID", "lrrUUID", "model"})


def refuse_changed(
    current: Mapping[str, Any],
    sent: Mapping[str, Any],
    *,
    any_case: Collection[str] = _ANY_CASE,
    null_keeps: bool = False,
) -> None:
    """400 naming each field set at creation that an update would change (`sent`: a request
    model's `fixed_values()`; `current`: the resource as answered). The same value, as a client
    reading and writing back a whole resource sends, is fine: strings are compared without
    their outer spaces (and case, for `any_case` names), a reference (`{"ID": ...}`) by its ID.
    `null_keeps`: a null sent keeps the value (the operator's catalogs and HSM groups)."""

    def norm(name: str, value: Any) -> Any:
        if isinstance(value, Mapping):
            value = value.get("ID")
        if not isinstance(value, str):
            return value
        return value.strip().upper() if name in any_case else value.strip()

    def shown(name: str) -> Any:
        value = current.get(name)
        return value.get("ID") if isinstance(value, Mapping) else value

    changed = [
        f"{name}: cannot change after creation (it is {shown(name)})"
        for name, value in sent.items()
        if not (value is None and null_keeps) and norm(name, value) != norm(name, current.get(name))
    ]
    if changed:
        raise bad_request("; ".join(changed))


def _body(
    status: int, code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


# Locations that say where a value came from rather than which field it is.
_SOURCES = {"body", "query", "path", "header", "cookie"}
# Steps of an error's location that name a pydantic type tried (`str`, `list[function-after[
# ...]]`, `tagged-union[...]`), not a field: the reader knows the field, not the type.
_TYPE_STEP = re.compile(
    r"\[|^(str|int|float|bool|none|bytes|list|dict|set|tuple|decimal|date|datetime|time"
    r"|timedelta|uuid|url|json|constrained-\w+)$"
)


def _field(loc: list[object]) -> str:
    steps = [str(p) for p in loc]
    source = steps[0] if steps and steps[0] in _SOURCES else None
    named = [p for p in (steps[1:] if source else steps) if not _TYPE_STEP.search(p)]
    return ".".join(named) or ("request body" if source == "body" else source or "request")


def _reason(error: dict[str, object]) -> str:
    kind = error.get("type")
    if kind == "json_invalid":
        ctx = error.get("ctx")
        detail = ctx.get("error") if isinstance(ctx, dict) else None
        return "not valid JSON" + (f" ({detail})" if detail else "")
    if kind == "missing":
        return "required"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "should be a JSON object"
    if kind == "extra_forbidden":
        return "unknown field: not part of this request (check its spelling)"
    if kind == "string_pattern_mismatch":  # the pattern itself says nothing to a reader
        return "has characters or a form that is not allowed here"
    reason = str(error.get("msg", "invalid"))
    reason = reason.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return reason.replace("Input should be", "should be")


_NAMED_REASON = re.compile(r"[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*: ")


def validation_message(errors: list[dict[str, object]]) -> str:
    """`field: reason` per error, joined by '; ', in plain words: pydantic's type names and
    'Value error, ' prefixes dropped, a JSON syntax error said as such."""
    parts: list[str] = []
    for error in errors:
        loc = list(error.get("loc", ()) or ())  # type: ignore[call-overload]
        field = "request body" if error.get("type") == "json_invalid" else _field(loc)
        reason = _reason(error)
        # A rule over several fields names its field itself ("nwkKey: required ..."): that
        # name, not "request body", starts the message.
        named = field == "request body" and _NAMED_REASON.match(reason)
        part = reason if named else f"{field}: {reason}"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts) or "invalid request"


# SQLite refuses these by the size of what it was given (filters built from the request),
# so they are the client's doing: 400, not 500.
_TOO_BIG = (
    "expression tree is too large",
    "like or glob pattern too complex",
    "too many sql variables",
    "too many terms",
    "parser stack overflow",
    "string or blob too big",
)
_INT64_MAX = 2**63 - 1


def _allowed_methods(request: Request) -> list[str]:
    """Every method some route serves at this path (Starlette's 405 names one route's)."""
    methods: set[str] = set()
    for route in effective_routes(request.app.routes):
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return sorted(methods)


class KeepConnectionOnCrash:
    """Answers an unexpected exception with 500 `{code, message}` and does not re-raise it.

    Starlette's outermost ServerErrorMiddleware re-raises after answering, and the server
    then drops the kept-alive connection: the client's next request fails with a reset. This
    sits inside it, so a bug costs one request, never the connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            log.error("%s %s failed", scope.get("method"), scope.get("path"), exc_info=exc)
            if started:  # too late for an error body: let the server close the connection
                raise
            await _body(500, INTERNAL, "internal error; see the sandbox log")(scope, receive, send)


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _body(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _body(400, INVALID, validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: NO_ROUTE, 405: METHOD_NOT_ALLOWED}.get(exc.status_code, exc.status_code * 100)
        headers = dict(exc.headers or {})
        message = str(exc.detail)
        if exc.status_code == 405:
            allowed = _allowed_methods(request)
            headers["Allow"] = ", ".join(allowed)
            message = f"{request.method} is not allowed here; allowed: {', '.join(allowed)}"
        elif exc.status_code == 404:
            message = f"no such path: {request.url.path}"
        elif exc.status_code == 400 and message == "There was an error parsing the body":
            message = "request body: could not be read (not JSON, or a number JSON cannot hold)"
        return _body(exc.status_code, code, message, headers or None)

    @app.exception_handler(OverflowError)
    async def _overflow(request: Request, exc: OverflowError) -> JSONResponse:
        # Inputs are bounded up front (params.py); this names what slipped through.
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return _body(
            400, INVALID, f"a number or identifier in the request is out of range"
            f" (at most {_INT64_MAX})",
        )  # fmt: skip

    @app.exception_handler(sqlite3.OperationalError)
    async def _sqlite(request: Request, exc: sqlite3.OperationalError) -> JSONResponse:
        if not any(text in str(exc).lower() for text in _TOO_BIG):
            raise exc
        log.warning("%s %s: %s", request.method, request.url.path, exc)
        return _body(
            400, INVALID, "the request's filters are too large: send fewer or shorter values"
        )

    app.add_middleware(KeepConnectionOnCrash)
