"""The served OpenAPI document says what the sandbox really answers.

FastAPI documents a 422 of its own shape; the sandbox answers 400 `{code, message}` instead
(errors.py), and 401/403/404 wherever authentication, rights or a path identifier are
involved. The generated document is completed once, from the routes themselves, so a new
route is documented the same way without writing it down:

- every error status a route can send, with the platform's error body (`Error`);
- the input bounds of params.py on every query and path parameter;
- a path parameter for every `{name}` of a path whose route reads it from the raw path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from ..schema.common import ErrorBody
from .auth import current_account
from .params import INT64_MAX, INT64_MIN, MAX_TEXT, MAX_VALUES
from .route_table import effective_routes, endpoint_route

ERROR = "Error"
_ERROR_REF = {"$ref": f"#/components/schemas/{ERROR}"}
_PATH_NAME = re.compile(r"\{([^}:]+)(?::[^}]*)?\}")

# What each error status means, for every route that can send it.
_MEANINGS = {
    400: "The request is invalid (a parameter, the body, a reference, paging or sorting)",
    401: "No bearer token, or an unknown or expired one",
    403: "The account lacks the subscription, permission or domain this needs",
    404: "No such resource, or not visible to the caller",
    405: "Method not allowed",
    406: "None of the representations the Accept header allows",
    409: "Conflicts with the current state (a duplicate, or a stale occContext.version)",
    413: "The request body is too large",
}


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _statuses(route: APIRoute, path: str) -> list[int]:
    """The error statuses `route` (at `path`) can answer, besides those it declares."""
    out = [400]  # any route: bounded_request refuses oversized or out-of-range input
    if current_account in set(_calls(route.dependant)):
        out += [401, 403]
    if _PATH_NAME.search(path):
        out.append(404)
    if route.body_field is not None or (route.openapi_extra or {}).get("requestBody"):
        out.append(413)  # json_body.BoundedRoute's cap, or an upload's (routes/_upload.py)
    return out


def _bound(schema: dict[str, Any]) -> None:
    """Write params.py's bounds into one parameter schema (and its anyOf branches)."""
    for branch in schema.get("anyOf", ()):
        _bound(branch)
    kind = schema.get("type")
    if kind == "array":
        schema["maxItems"] = min(schema.get("maxItems", MAX_VALUES), MAX_VALUES)
        if isinstance(schema.get("items"), dict):
            _bound(schema["items"])
    elif kind == "string" and "enum" not in schema:
        schema["maxLength"] = min(schema.get("maxLength", MAX_TEXT), MAX_TEXT)
    elif kind == "integer":
        schema["maximum"] = min(schema.get("maximum", INT64_MAX), INT64_MAX)
        schema["minimum"] = max(schema.get("minimum", INT64_MIN), INT64_MIN)


def _error_response(status: int, declared: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(declared or {})
    out.setdefault("description", _MEANINGS.get(status, "Error"))
    if not out.get("content"):
        out["content"] = {"application/json": {"schema": _ERROR_REF}}
    return out


def complete(document: dict[str, Any], routes: list[Any]) -> dict[str, Any]:
    """`document` (as FastAPI generated it for `routes`) made truthful; changed in place."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    schemas[ERROR] = ErrorBody.model_json_schema() | {"title": ERROR}
    for route in effective_routes(routes):
        declared = endpoint_route(route)
        if not isinstance(declared, APIRoute) or not declared.include_in_schema:
            continue
        path = document["paths"].get(route.path_format)
        if path is None:
            continue
        for method in route.methods or ():
            operation = path.get(method.lower())
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            responses.pop("422", None)
            for status in _statuses(declared, route.path_format):
                responses[str(status)] = _error_response(status, responses.get(str(status)))
            for status, declared in list(responses.items()):
                if status.isdigit() and int(status) >= 400:
                    responses[status] = _error_response(int(status), declared)
            parameters = operation.setdefault("parameters", [])
            named = {p["name"] for p in parameters if p.get("in") == "path"}
            for name in _PATH_NAME.findall(route.path_format):
                if name not in named:
                    parameters.append(
                        {
                            "name": name,
                            "in": "path",
                            "required": True,
                            "description": "The identifier, percent-encoded",
                            "schema": {"type": "string"},
                        }
                    )
            for parameter in parameters:
                if parameter.get("in") in ("query", "path") and "schema" in parameter:
                    _bound(parameter["schema"])
            if not parameters:
                del operation["parameters"]
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    return document


def install_openapi(app: FastAPI) -> None:
    """Serve the completed document at `/openapi.json` (built on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            app.openapi_schema = complete(document, app.routes)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
