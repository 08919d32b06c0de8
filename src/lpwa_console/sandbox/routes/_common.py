"""What the route modules share, so that no route module imports another: paging and its
answer, the sort parser, cursors, domain checks, references to application servers, and
"the resource behind this identifier, or 404" for devices and multicast groups.

Paging follows the platform: `pageIndex` from 1, `pageSize` 100 by default clamped to
10..1000, `more` on every page and `count` with the first page only; a cursor (`pageAfter`)
is base64 of the sort key of the last row (its padding makes it end in `=`).
"""

from __future__ import annotations

import base64
import json
import sqlite3
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError

from ...schema.common import parse_identifier
from ...schema.domains import Domain, DomainRestrictions, domain_matches, leaves_domains
from ..accounts import Account
from ..auth import Services
from ..errors import (
    BAD_PAGING,
    OUT_OF_DOMAIN,
    UNKNOWN_REFERENCE,
    bad_request,
    forbidden,
    not_found,
    refuse_changed,
)
from ..params import PageIndex
from ..store import devices as device_store
from ..store import domains as domain_store
from ..store.domains import APP_SERVER_DOMAINS

MIN_PAGE, DEFAULT_PAGE, MAX_PAGE = 10, 100, 1000


# --- paging -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Paging:
    """`pageIndex` (from 1) and `pageSize` (clamped) of a list request."""

    index: int
    size: int

    @property
    def offset(self) -> int:
        return (self.index - 1) * self.size

    @property
    def first(self) -> bool:
        return self.index == 1

    def of_rows(self, rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
        """This page of a list held whole (a handful of rows, not from SQL): (items, more)."""
        end = self.offset + self.size
        return list(rows[self.offset : end]), len(rows) > end

    def answer(
        self, page: tuple[list[dict[str, Any]], bool], count: Callable[[], int]
    ) -> dict[str, Any]:
        """`list_answer` of a page the store read at (offset, size): `page` is (items, more)."""
        items, more = page
        return list_answer(items, more, first=self.first, count=count)

    def of(
        self,
        page: Callable[..., tuple[list[dict[str, Any]], bool]],
        count: Callable[..., int],
        *args: Any,
    ) -> dict[str, Any]:
        """The answer of a store's `page(*args, offset, size)` and `count(*args)`."""
        return self.answer(page(*args, self.offset, self.size), lambda: count(*args))


def paging(pageIndex: PageIndex = 1, pageSize: int = DEFAULT_PAGE) -> Paging:
    return Paging(pageIndex, min(max(pageSize, MIN_PAGE), MAX_PAGE))


PageParams = Annotated[Paging, Depends(paging)]


def list_answer(
    items: list[dict[str, Any]], more: bool, *, first: bool, count: Callable[[], int]
) -> dict[str, Any]:
    """`{briefs, more}`, plus `count` on a first page (a short first page is its own
    count, so `count()` runs only when the first page is full)."""
    out: dict[str, Any] = {"briefs": items, "more": more}
    if first:
        out["count"] = count() if more else len(items)
    return out


def wire_json(content: dict[str, Any]) -> Response:
    """An answer from dicts the store made wire-shaped already (no null members: what
    `response_model_exclude_none` would leave), without FastAPI's response validation and
    serialization: a third of a device page's CPU, and at 20 clients the server is CPU
    bound. The route keeps its `response_model` for the OpenAPI document, and
    `tests/sandbox/test_wire_json.py` holds these answers equal to the validated ones."""
    body = json.dumps(content, separators=(",", ":"), ensure_ascii=False)
    return Response(body.encode(), media_type="application/json")


# --- path identifiers -------------------------------------------------------------------------


@dataclass(frozen=True)
class PathScope:
    """A route's path identifier as the client wrote it, with the services to find it with:
    a dependency builds it, the route finds it in its own connection (`conn()`, or `write()`
    for a transaction), so a bad query or body answers 422 before the identifier's 404."""

    text: str
    svc: Services

    def conn(self) -> sqlite3.Connection:
        return self.svc.db.conn()

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.svc.db.write()


# --- filters ----------------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


def query_model(model: type[M], values: dict[str, Any]) -> M:
    """A list's filters as their schema model (the client sends the same model's
    `to_params()`), from the query parameters a route's filter dependency declares: those
    not given (None) left out, the model's refusals answered as the query's (422)."""
    try:
        return model(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e) | {"loc": ("query", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


# --- sorting and cursors ----------------------------------------------------------------------


def parse_sort(
    text: str | None, criteria: Sequence[str], default: tuple[str, bool]
) -> tuple[str, bool]:
    """`<criterion>[,asc|desc]` -> (criterion, descending); `default` when not given."""
    if not text:
        return default
    criterion, _, order = text.partition(",")
    order = order.strip().lower() or "asc"
    if criterion not in criteria or order not in ("asc", "desc"):
        raise bad_request(
            f"sort: expected <criterion>,<asc|desc> with a criterion among {', '.join(criteria)}",
            BAD_PAGING,
        )
    return criterion, order == "desc"


def encode_cursor(key: str) -> str:
    return base64.b64encode(key.encode()).decode()


def decode_cursor(cursor: str) -> str:
    """The sort key a `pageAfter` cursor carries; 400 when it is not one of ours."""
    try:
        # A client that forgot to encode '+' sends a space.
        return base64.b64decode(cursor.replace(" ", "+"), validate=True).decode()
    except ValueError:  # binascii.Error, UnicodeDecodeError, non-ASCII text
        raise bad_request("pageAfter: not a cursor this server issued", BAD_PAGING) from None


def add_next_cursor(out: dict[str, Any], items: list[dict[str, Any]], more: bool, key: str) -> None:
    """Give a page sorted by the cursor's criterion its `cursors.last` (the last item's
    `key`, encoded) when more items follow: the `pageAfter` of the next page."""
    if more and items:
        out["cursors"] = {"last": encode_cursor(items[-1][key])}


# --- domains and references -------------------------------------------------------------------


def check_domains(account: Account, domains: list[Domain] | None) -> list[tuple[str, str]]:
    """(group, name) pairs of `domains`; 403 when the caller's restrictions exclude them."""
    pairs = [(d.group.name, d.name) for d in domains or []]
    if not domain_matches(pairs, account.restrictions):
        raise forbidden("domains: outside the domains you are restricted to", OUT_OF_DOMAIN)
    return pairs


def check_kept_inside(
    account: Account | DomainRestrictions | None,
    before: list[tuple[str, str]],
    after: list[tuple[str, str]],
    *,
    field: str = "domains",
) -> None:
    """403 when a change of an item's domains would take it out of the caller's domains
    (`schema.domains.leaves_domains`: cross-domain included)."""
    restrictions = account.restrictions if isinstance(account, Account) else account
    if leaves_domains(before, after, restrictions):
        what = "no domain makes it cross-domain" if not after else "outside your domains"
        raise forbidden(
            f"{field}: a restricted account keeps its items inside its own domains ({what})",
            OUT_OF_DOMAIN,
        )


def current_for_update(
    conn: sqlite3.Connection,
    uid: int,
    account: Account | DomainRestrictions | None,
    domains: list[tuple[str, str]] | None,
    domains_of: Callable[[sqlite3.Connection, int], list[tuple[str, str]]],
    read: Callable[[sqlite3.Connection, int], dict[str, Any]],
    fixed: Mapping[str, Any],
    *,
    any_case: Collection[str] | None = None,
) -> dict[str, Any]:
    """The item `uid` as read before an update, once the update's first checks pass in the
    order every domain-restricted item makes them: its new `domains` (None: unchanged) keep
    it inside the caller's (403, `check_kept_inside`), then it changes no field fixed at
    creation (400, `refuse_changed` of `fixed`, the body's `fixed_values()`)."""
    if domains is not None:
        check_kept_inside(account, domains_of(conn, uid), domains)
    current = read(conn, uid)
    if any_case is None:
        refuse_changed(current, fixed)
    else:
        refuse_changed(current, fixed, any_case=any_case)
    return current


def app_server_ids(
    conn: sqlite3.Connection,
    sub: int,
    refs: list[str],
    account: Account | None = None,
    current: dict[str, Any] | None = None,
) -> list[int]:
    """Row ids of the application servers `refs`; 400 naming the first unknown one. For a
    restricted `account` a server outside its domains is as unknown (it reads 404): routing
    an item's traffic there would reach past its domains. One already linked to the item
    (`current`, the item as read, which lists it) may be sent back as it was read."""
    restrictions = account.restrictions if account is not None else None
    linked = {s.get("ID") for s in (current or {}).get("appServers") or []}
    ids = []
    for ref in refs:
        found = device_store.ref_id(conn, "app_servers", sub, ref)
        if found is not None and ref not in linked:
            reach = domain_store.within_reach(conn, APP_SERVER_DOMAINS, found, restrictions)
            found = found if reach else None
        if found is None:
            raise bad_request(f"appServers: unknown application server {ref}", UNKNOWN_REFERENCE)
        ids.append(found)
    return ids


# --- one device or multicast group ------------------------------------------------------------


class _OwnerStore(Protocol):
    """A store module of devices or multicast groups: found by UID or EUI, with domains."""

    def find_uid(
        self, conn: sqlite3.Connection, subscription_id: int, /, *,
        uid: int | None = None, eui: str | None = None,
    ) -> int | None: ...  # fmt: skip

    def domains_of(self, conn: sqlite3.Connection, uid: int, /) -> list[tuple[str, str]]: ...


def _visible_uid(
    conn: sqlite3.Connection, account: Account, text: str, store: _OwnerStore, what: str
) -> int:
    """The UID behind `text` (UID or e + EUI), or 404 when absent or out of domains."""
    assert account.subscription_id is not None
    ident = parse_identifier(text, allow_eui=True)
    uid = None
    if ident.kind == "uid":
        uid = store.find_uid(conn, account.subscription_id, uid=ident.uid)
    elif ident.kind == "eui":
        uid = store.find_uid(conn, account.subscription_id, eui=ident.value)
    if uid is None or not domain_matches(store.domains_of(conn, uid), account.restrictions):
        raise not_found(f"{what} {text} not found")
    return uid


def visible_device_uid(conn: sqlite3.Connection, account: Account, device_uid: str) -> int:
    """The UID behind `deviceUid` (UID or e + EUI), or 404 when absent or out of domains."""
    return _visible_uid(conn, account, device_uid, device_store, "device")


def visible_group_uid(conn: sqlite3.Connection, account: Account, group_uid: str) -> int:
    """The UID behind `multicastGroupUid` (UID or e + EUI), or 404 when absent or out of
    domains."""
    from ..store import multicast as group_store  # not imported at start (issue 8)

    return _visible_uid(conn, account, group_uid, group_store, "multicast group")


# A clusters request's bounding box (devices, stations): each bound's range, then the order.
Latitude = Annotated[float, Query(ge=-90, le=90)]
Longitude = Annotated[float, Query(ge=-180, le=180)]


def box_bounds(
    min_lat: float, min_lon: float, max_lat: float, max_lon: float
) -> tuple[float, float, float, float]:
    """(minLat, minLon, maxLat, maxLon); 400 unless each min <= its max."""
    if min_lat > max_lat or min_lon > max_lon:
        raise bad_request("minLat: the bounding box needs minLat <= maxLat and minLon <= maxLon")
    return (min_lat, min_lon, max_lat, max_lon)
