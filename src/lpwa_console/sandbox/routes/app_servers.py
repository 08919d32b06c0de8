"""`/subscriptions/mine/appServers` (Document 1 §2.5, §4.3).

Identifiers: the UID (SUBSCRIPTION servers only) or `id:` + ID (any scope). IDs may hold
slashes, sent percent-encoded (`id%3Aa%2Fb`): the identifier is read from the raw path, so an
encoded slash never splits it. OPERATOR-scope servers are readable, refused on write (403).
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any
from urllib.parse import unquote

from fastapi import Query, Request, Response

from ...schema.app_servers import (
    APP_SERVER_SORT_CRITERIA,
    AppServer,
    AppServerCreate,
    AppServerIotFlowConnectorMetrics,
    AppServerPage,
    AppServerScope,
    AppServerType,
    AppServerUpdate,
    OccVersion,
    SecurityAppServer,
    SecurityAppServerUpdate,
)
from ...schema.common import parse_identifier
from ...schema.domains import domain_matches
from ..accounts import Account
from ..auth import AppServices, ClientBodies, SubscriptionReader, SubscriptionWriter
from ..errors import bad_request, forbidden, not_found, stale
from ..store import app_servers as store
from ..store.clock import network_now, now_ms
from ._common import PageParams, check_domains, check_kept_inside, list_answer, parse_sort
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/subscriptions/mine/appServers",
    tags=["application servers"],
    dependencies=[ClientBodies],
)
STALE_RESPONSE: dict[int | str, dict[str, Any]] = {
    409: {"description": "occContext.version is not the current one"}
}


def _ident(request: Request) -> str:
    """The identifier segment as sent (percent-decoded once, after splitting)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    after = raw.decode("latin-1").split("/appServers/", 1)[1]
    return unquote(after.split("/", 1)[0])


def _find(conn: sqlite3.Connection, account: Account, request: Request) -> sqlite3.Row:
    """The server the path names (UID or `id:` + ID), or 404 when absent or outside the
    caller's domains."""
    assert account.subscription_id is not None
    text = _ident(request)
    ident = parse_identifier(text)
    row = None
    if ident.kind == "uid":
        row = store.find(conn, account.subscription_id, uid=ident.uid)
    elif ident.kind == "id":
        row = store.find(conn, account.subscription_id, ref=ident.value)
    if row is None or not domain_matches(
        store.domains(conn, [row["id"]]).get(row["id"], []), account.restrictions
    ):
        raise not_found(f"application server {text} not found")
    return row


def _writable(row: sqlite3.Row) -> None:
    if row["scope"] != "SUBSCRIPTION":
        raise forbidden(
            f"application server {row['ref']} has scope OPERATOR: it cannot be modified"
        )


def _full(conn: sqlite3.Connection, row_id: int, account: Account) -> dict[str, Any]:
    assert account.subscription_id is not None
    rows = store.rows(conn, account.subscription_id, [row_id])
    return store.briefs(conn, rows, account.restrictions, full=True)[0]


@router.get("", response_model=AppServerPage, response_model_exclude_none=True)
def list_app_servers(
    account: SubscriptionReader,
    svc: AppServices,
    paging: PageParams,
    scope: Annotated[list[AppServerScope] | None, Query()] = None,
    type: Annotated[list[AppServerType] | None, Query()] = None,
    query: str | None = None,
    name: str | None = None,
    ID: str | None = None,
    sort: str | None = None,
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    criterion, descending = parse_sort(sort, APP_SERVER_SORT_CRITERIA, ("", False))
    q = store.AppServerQuery(
        scopes=sorted(set(scope or ["SUBSCRIPTION"])), types=type or (), query=query,
        name=name, ID=ID,
    )  # fmt: skip
    conn = svc.db.conn()
    w = store.where(sub, q, account.restrictions)
    rows, more = store.page(
        conn, sub, w, sort=criterion or None, descending=descending, offset=paging.offset,
        limit=paging.size, restrictions=account.restrictions,
    )  # fmt: skip
    items = store.briefs(conn, rows, account.restrictions)
    return list_answer(items, more, first=paging.first, count=lambda: store.count(conn, w))


@router.post("", status_code=201, response_model=AppServer, response_model_exclude_none=True)
def create_app_server(
    body: AppServerCreate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    domains = check_domains(account, body.domains)
    with svc.db.write() as conn:
        row_id = store.create(conn, sub, body, domains=domains, now=now_ms(), who=account.name)
    return _full(svc.db.conn(), row_id, account)


@router.get("/{appServerUid:path}/security", response_model=SecurityAppServer,
            response_model_exclude_none=True)  # fmt: skip
def get_security(request: Request, account: SubscriptionReader, svc: AppServices) -> dict[str, Any]:
    row = _find(svc.db.conn(), account, request)
    if row["scope"] != "SUBSCRIPTION":
        return {"downlinkSecurity": {"status": "NONE"}}
    return {"downlinkSecurity": store.security(row), "occContext": store.occ(row)}


def _current(row: Any, occ: OccVersion | None) -> None:
    """An update made on a stale copy is refused (optimistic concurrency, occContext)."""
    if occ is not None and occ.version != row["version"]:
        raise stale(occ.version, row["version"])


@router.put("/{appServerUid:path}/security", response_model=SecurityAppServer,
            response_model_exclude_none=True, responses=STALE_RESPONSE)  # fmt: skip
def put_security(
    request: Request, body: SecurityAppServerUpdate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sec = body.downlinkSecurity
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        _current(row, body.occContext)
        store.set_security(conn, row, sec, now=now_ms(), who=account.name)
        (row,) = store.rows(conn, row["subscription_id"], [row["id"]])
    return {"downlinkSecurity": store.security(row), "occContext": store.occ(row)}


@router.get("/{appServerUid:path}/iotFlowConnector/metrics",
            response_model=AppServerIotFlowConnectorMetrics)  # fmt: skip
def flow_metrics(request: Request, account: SubscriptionReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    row = _find(conn, account, request)
    return store.metrics(conn, row["id"], network_now(conn))


@router.get("/{appServerUid:path}", response_model=AppServer, response_model_exclude_none=True)
def get_app_server(
    request: Request, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    row = _find(conn, account, request)
    return _full(conn, row["id"], account)


@router.put("/{appServerUid:path}", response_model=AppServer, response_model_exclude_none=True,
            responses=STALE_RESPONSE)  # fmt: skip
def update_app_server(
    request: Request, body: AppServerUpdate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    given = body.model_fields_set
    domains = check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        if domains is not None:
            before = store.domains(conn, [row["id"]]).get(row["id"], [])
            check_kept_inside(account, before, domains)
        _current(row, body.occContext)
        try:
            body._check_destinations(row["type"])
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        sec = body.downlinkSecurity if "downlinkSecurity" in given else None
        if sec is not None and sec.status != "NONE" and not (sec.asID and store.kept_key(sec, row)):
            raise bad_request(
                "downlinkSecurity: DOWNLINK_AS_KEY needs asID and downlinkAsKey"
                " (a key already stored is kept when none is given)"
            )
        store.update(conn, row, body, domains=domains, now=now_ms(), who=account.name)
    return _full(svc.db.conn(), row["id"], account)


@router.delete("/{appServerUid:path}", status_code=204)
def delete_app_server(request: Request, account: SubscriptionWriter, svc: AppServices) -> Response:
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        # A shared server also serves devices the caller cannot see: not the caller's to
        # remove (their owners would lose their routes without a word).
        if store.devices_outside(conn, row["id"], account.restrictions):
            raise bad_request(
                "appServerUid: still used by devices outside your domains; an account"
                " without domain restrictions can delete it"
            )
        store.delete(conn, row["id"])
    return Response(status_code=204)
