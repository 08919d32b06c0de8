"""OAuth2 client credentials token endpoint (the real platform's Keycloak path)."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from .. import accounts
from ..auth import AppServices
from ._upload import read_at_most

_FORM_SCHEMA = {
    "requestBody": {
        "required": True,
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {
                    "type": "object",
                    "required": ["grant_type", "client_id", "client_secret"],
                    "properties": {
                        "grant_type": {"type": "string", "enum": ["client_credentials"]},
                        "client_id": {"type": "string"},
                        "client_secret": {"type": "string"},
                    },
                }
            }
        },
    }
}


_OAUTH_ERROR = {
    "type": "object",
    "required": ["error"],
    "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}},
}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "A bearer token",
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["access_token", "token_type", "expires_in"],
                    "properties": {
                        "access_token": {"type": "string"},
                        "token_type": {"type": "string"},
                        "expires_in": {"type": "integer"},
                        "scope": {"type": "string"},
                    },
                }
            }
        },
    },
    400: {
        "description": "unsupported_grant_type (or an oversized request, as `{code, message}`)",
        "content": {
            "application/json": {
                "schema": {"anyOf": [_OAUTH_ERROR, {"$ref": "#/components/schemas/Error"}]}
            }
        },
    },
    401: {
        "description": "invalid_client: unknown client_id or wrong client_secret",
        "content": {"application/json": {"schema": _OAUTH_ERROR}},
    },
}


def _oauth_error(status: int, error: str, description: str) -> JSONResponse:
    return JSONResponse(
        {"error": error, "error_description": description},
        status_code=status,
        headers={"Cache-Control": "no-store"},
    )


def _basic(request: Request) -> tuple[str, str] | None:
    """Credentials may also come as HTTP Basic (client_secret_basic)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, _, secret = base64.b64decode(value).decode().partition(":")
    except ValueError:
        return None
    return client_id, secret


# A client-credentials form is a few hundred bytes; anyone may call this endpoint, so what
# it reads is bounded before any account is known.
MAX_FORM_BYTES = 16 * 1024


async def issue_token(request: Request, svc: AppServices) -> JSONResponse:
    # Parsed by hand: FastAPI's Form() would need python-multipart for a urlencoded body.
    body = await read_at_most(request, MAX_FORM_BYTES)
    if body is None:
        return _oauth_error(413, "invalid_request", f"at most {MAX_FORM_BYTES // 1024} KB of form")
    form = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
    if form.get("grant_type") != "client_credentials":
        return _oauth_error(400, "unsupported_grant_type", "grant_type must be client_credentials")
    client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
    if not client_id and (basic := _basic(request)):
        client_id, secret = basic
    account = None
    if client_id:
        account = await run_in_threadpool(
            lambda: accounts.by_credentials(svc.db.conn(), client_id, secret)
        )
    if account is None:
        return _oauth_error(401, "invalid_client", "unknown client_id or wrong client_secret")
    token = await run_in_threadpool(svc.tokens.issue, account)
    return JSONResponse(
        {
            "access_token": token,
            "token_type": "Bearer",
            "expires_in": svc.tokens.lifetime_s,
            "scope": " ".join(account.permissions),
        },
        headers={"Cache-Control": "no-store"},
    )


def install(router_path: str) -> APIRouter:
    out = APIRouter(tags=["authentication"])
    out.add_api_route(
        router_path,
        issue_token,
        methods=["POST"],
        summary="OAuth2 client credentials token",
        openapi_extra=_FORM_SCHEMA,
        response_class=JSONResponse,
        responses=_RESPONSES,
    )
    return out
