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

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

log = logging.getLogger("lpwa_console.sandbox")

INVALID = 40000
UNKNOWN_REFERENCE = 40001
BAD_PAGING = 40002
NO_TOKEN = 40100
BAD_TOKEN = 40101
NO_SUBSCRIPTION = 40300
NO_PERMISSION = 40301
OUT_OF_DOMAIN = 40302
NOT_FOUND = 40400
NO_ROUTE = 40401
METHOD_NOT_ALLOWED = 40500
NOT_ACCEPTABLE = 40600
DUPLICATE = 40900
STALE = 40901
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


def not_found(message: str) -> ApiError:
    return ApiError(404, NOT_FOUND, message)


def _body(
    status: int, code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


# Locations that say where a value came from rather than which field it is.
_SOURCES = {"body", "query", "path", "header", "cookie"}


def validation_message(errors: list[dict[str, object]]) -> str:
    """`field: reason` per error, joined by '; ' (pydantic's 'Value error, ' prefix dropped)."""
    parts: list[str] = []
    for error in errors:
        raw_loc = error.get("loc") or ()
        loc = [str(p) for p in raw_loc] if isinstance(raw_loc, list | tuple) else []
        source = loc[0] if loc and loc[0] in _SOURCES else None
        field = ".".join(loc[1:] if source else loc) or (source or "request")
        reason = str(error.get("msg", "invalid"))
        reason = reason.removeprefix("Value error, ").removeprefix("Assertion failed, ")
        part = f"{field}: {reason}"
        if part not in parts:
            parts.append(part)
    return "; ".join(parts) or "invalid request"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return _body(exc.status, exc.code, exc.message, headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _body(400, INVALID, validation_message(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: NO_ROUTE, 405: METHOD_NOT_ALLOWED}.get(exc.status_code, exc.status_code * 100)
        return _body(exc.status_code, code, str(exc.detail))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return _body(500, INTERNAL, "internal error; see the sandbox log")
