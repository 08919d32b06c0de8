"""Bounds every request input obeys, checked once for all routes (current and future).

The sandbox stores numbers as SQLite INTEGER (64-bit) and builds SQL from filters, so a
number of 2^63 or more, a thousand repeated filter values or a 50,000-character prefix would
reach SQLite and fail there. `bounded_request` is an app-wide dependency that refuses them
first with a 400 naming the parameter; `openapi.py` writes the same bounds into the served
schema, so a client can see them.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

from fastapi import Depends, Query, Request
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError

from .errors import bad_request

if TYPE_CHECKING:
    from fastapi._compat import ModelField

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
# Repeated values of one query parameter (tag=a&tag=b...): a UI filter holds a handful.
MAX_VALUES = 100
# Characters of one query or path value: longer than any name, tag, ID or cursor we store.
MAX_TEXT = 1024

# The platform's pageIndex is an int32 (its reference schema).
MAX_PAGE_INDEX = 2**31 - 1

PageIndex = Annotated[
    int, Query(ge=1, le=MAX_PAGE_INDEX, description="The page to return, 1 for the first")
]

# `force` of the key manager's PUTs (Document 1 §4.4): deprecated, accepted and ignored.
DeprecatedForce = Annotated[
    bool | None, Query(deprecated=True, description="Deprecated (§4.4): accepted and ignored")
]

_INSTANT = TypeAdapter(datetime)


def in_int64(value: int) -> bool:
    return INT64_MIN <= value <= INT64_MAX


def _holds(annotation: Any, kind: type) -> bool:
    """Whether a parameter's type is `kind` or holds one (int | None, list[int]...); exact,
    so bool is not an int."""
    return annotation is kind or any(_holds(a, kind) for a in get_args(annotation))


def _params(dependant: Dependant) -> Iterator[ModelField]:
    """The query and path parameters of a route's dependant and all its sub-dependencies."""
    yield from dependant.query_params
    yield from dependant.path_params
    for sub in dependant.dependencies:
        yield from _params(sub)


def _names(route: APIRoute, kind: type) -> set[str]:
    """The route's query and path parameters whose values are of `kind` (cached per route)."""
    cache: dict[type, set[str]] = route.__dict__.setdefault("_lpwa_typed_params", {})
    if kind not in cache:
        cache[kind] = {
            f.alias for f in _params(route.dependant) if _holds(f.field_info.annotation, kind)
        }
    return cache[kind]


def _many(annotation: Any) -> bool:
    """Whether a parameter's type takes several values (list[str] | None...)."""
    if get_origin(annotation) in (list, tuple, set, frozenset):
        return True
    return any(_many(a) for a in get_args(annotation))


def _query_fields(dependant: Dependant) -> Iterator[ModelField]:
    yield from dependant.query_params
    for sub in dependant.dependencies:
        yield from _query_fields(sub)


def _single_names(route: APIRoute) -> frozenset[str]:
    """The route's query parameters that take one value (cached per route)."""
    cached: frozenset[str] | None = route.__dict__.get("_lpwa_single_params")
    if cached is None:
        cached = frozenset(
            f.alias for f in _query_fields(route.dependant) if not _many(f.field_info.annotation)
        )
        route.__dict__["_lpwa_single_params"] = cached
    return cached


def _check_instant(name: str, text: str) -> None:
    try:
        value = _INSTANT.validate_python(text)
    except ValidationError:
        return  # not a date: the parameter's own validation says so
    try:
        value.timestamp()  # a naive one is local time: year 1 or 9999 may not convert
    except (ValueError, OverflowError, OSError):
        raise bad_request(
            f"{name}: {text} is out of the range of dates this server handles"
        ) from None


def _check_int(name: str, text: str) -> None:
    try:
        value = int(text)
    except ValueError:
        return  # not a number: the parameter's own validation says so
    if not in_int64(value):
        raise bad_request(f"{name}: {text} is out of range (at most {INT64_MAX})")


async def bounded_request(request: Request) -> None:
    """Refuse (400) what would overflow the store: too many repeated values, too long a
    text, or an integer beyond 64 bits in the query or the path; and a one-value query
    parameter given more than once (a JSON body is checked
    as it is read: json_body.BoundedRoute)."""
    counts: dict[str, int] = {}
    for name, value in request.query_params.multi_items():
        counts[name] = counts.get(name, 0) + 1
        if counts[name] > MAX_VALUES:
            total = len(request.query_params.getlist(name))
            raise bad_request(f"{name}: at most {MAX_VALUES} values are accepted (got {total})")
        if len(value) > MAX_TEXT:
            raise bad_request(
                f"{name}: at most {MAX_TEXT} characters are accepted (got {len(value)})"
            )
    for name, value in request.path_params.items():
        if isinstance(value, str) and len(value) > MAX_TEXT:
            raise bad_request(
                f"{name}: at most {MAX_TEXT} characters are accepted (got {len(value)})"
            )
    route = request.scope.get("route")
    if isinstance(route, APIRoute):
        # A filter of one value given twice (state=A&state=B) is refused, never cut to one.
        for name in _single_names(route):
            if counts.get(name, 0) > 1:
                raise bad_request(
                    f"{name}: one value is accepted (got {counts[name]}); only filters that"
                    " take several values may be repeated"
                )
        for kind, check in ((int, _check_int), (datetime, _check_instant)):
            for name in _names(route, kind):
                for text in request.query_params.getlist(name):
                    check(name, text)
                if isinstance(path_value := request.path_params.get(name), str):
                    check(name, path_value)


BoundedRequest = Depends(bounded_request)
