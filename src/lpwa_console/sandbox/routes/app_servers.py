"""`/subscriptions/mine/appServers` (Document 1 §2.5, §4.3).

Identifiers: the UID (SUBSCRIPTION servers only) or `id:` + ID (any scope). IDs may hold
slashes, sent percent-encoded (`id%3Aa%2Fb`): the identifier is read from the raw path, so an
encoded slash never splits it. OPERATOR-scope servers are readable, refused on write (403).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any
from urllib.parse import unquote

from fastapi import APIRouter, Query, Request, Response

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
from ..errors import BAD_PAGING, bad_request, forbidden, not_found, stale
from ..store import app_servers as store
from ..store.devices import now_ms
from ..store.frames import clock
from .devices import _check_domains

router = APIRouter(
    prefix="/subscriptions/mine/appServers",
    tags=["application servers"],
    dependencies=[ClientBodies],
)
MIN_PAGE, DEFAULT_PAGE, MAX_PAGE = 10, 100, 1000


def _visible(conn: sqlite3.Connection, account: Account) -> list[sqlite3.Row]:
    assert account.subscription_id is not None
    rows = store.rows(conn, account.subscription_id)
    if not account.restricted:
        return rows
    doms = store.domains(conn, [r["id"] for r in rows])
    return [r for r in rows if domain_matches(doms.get(r["id"], []), account.restrictions)]


def _ident(request: Request) -> str:
    """The identifier segment as sent (percent-decoded once, after splitting)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    after = raw.decode("latin-1").split("/appServers/", 1)[1]
    return unquote(after.split("/", 1)[0])


def _find(conn: sqlite3.Connection, account: Account, request: Request) -> sqlite3.Row:
    text = _ident(request)
    ident = parse_identifier(text)
    for row in _visible(conn, account):
        if ident.kind == "uid" and row["id"] == ident.uid and row["scope"] == "SUBSCRIPTION":
            return row
        if ident.kind == "id" and row["ref"] == ident.value:
            return row
    raise not_found(f"application server {text} not found")


def _writable(row: sqlite3.Row) -> None:
    if row["scope"] != "SUBSCRIPTION":
        raise forbidden(
            f"application server {row['ref']} has scope OPERATOR: it cannot be modified"
        )


def _full(conn: sqlite3.Connection, row_id: int, account: Account) -> dict[str, Any]:
    assert account.subscription_id is not None
    (row,) = store.rows(conn, account.subscription_id, [row_id])
    devices, groups = store.counts(conn, [row_id], account.restrictions)
    doms = store.domains(conn, [row_id])
    return store.brief(row, doms[row_id], devices.get(row_id, 0), groups.get(row_id, 0), full=True)


@router.get("", response_model=AppServerPage, response_model_exclude_none=True)
def list_app_servers(
    account: SubscriptionReader,
    svc: AppServices,
    scope: Annotated[list[AppServerScope] | None, Query()] = None,
    type: Annotated[list[AppServerType] | None, Query()] = None,
    query: str | None = None,
    name: str | None = None,
    ID: str | None = None,
    pageIndex: Annotated[int, Query(ge=1)] = 1,
    pageSize: int = DEFAULT_PAGE,
    sort: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    scopes = set(scope or ["SUBSCRIPTION"])
    rows = [r for r in _visible(conn, account) if r["scope"] in scopes]
    if type:
        rows = [r for r in rows if r["type"] in type and r["scope"] == "SUBSCRIPTION"]
    low = (query or "").lower()
    rows = [
        r for r in rows if r["name"].lower().startswith(low) or r["ref"].lower().startswith(low)
    ]
    rows = [r for r in rows if r["name"].lower().startswith((name or "").lower())]
    rows = [r for r in rows if r["ref"].startswith(ID or "")]
    ids = [r["id"] for r in rows]
    devices, groups = store.counts(conn, ids, account.restrictions)
    doms = store.domains(conn, ids)
    items = [
        store.brief(r, doms[r["id"]], devices.get(r["id"], 0), groups.get(r["id"], 0)) for r in rows
    ]
    if sort:
        criterion, _, order = sort.partition(",")
        if criterion not in APP_SERVER_SORT_CRITERIA or order.lower() not in ("", "asc", "desc"):
            raise bad_request(
                f"sort: expected <criterion>,<asc|desc> with a criterion among "
                f"{', '.join(APP_SERVER_SORT_CRITERIA)}",
                BAD_PAGING,
            )
        items.sort(key=lambda i: (i.get(criterion) or 0, i["ID"]) if criterion == "deviceCount"
                   else (str(i.get(criterion) or "").lower(), i["ID"]), reverse=order.lower() == "desc")  # fmt: skip
    size = min(max(pageSize, MIN_PAGE), MAX_PAGE)
    start = (pageIndex - 1) * size
    out: dict[str, Any] = {"briefs": items[start : start + size], "more": len(items) > start + size}
    if pageIndex == 1:
        out["count"] = len(items)
    return out


@router.post("", status_code=201, response_model=AppServer, response_model_exclude_none=True)
def create_app_server(
    body: AppServerCreate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sub = account.subscription_id
    assert sub is not None
    domains = _check_domains(account, body.domains)
    sec = body.downlinkSecurity
    with svc.db.write() as conn:
        sub_ref = conn.execute("SELECT ref FROM subscriptions WHERE id = ?", (sub,)).fetchone()[0]
        number = conn.execute("SELECT coalesce(max(id), 0) + 1 FROM app_servers").fetchone()[0]
        cur = conn.execute(
            "INSERT INTO app_servers (subscription_id, ref, name, type, content_type,"
            " destinations, custom_headers, flow_matcher_tags, security_status, security_as_id,"
            " security_key, security_max_deviation, last_update, who, health_state)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'INIT')",
            (
                sub, f"TWA_{sub_ref}.{number}.AS", body.name, body.type or "HTTP",
                body.contentType or "json",
                json.dumps([d.model_dump(exclude_none=True) for d in body.destinations or []]),
                json.dumps([h.model_dump() for h in body.customHttpHeaders or []]),
                json.dumps(body.flowMatcherTags or []),
                sec.status if sec else "NONE", sec.asID if sec else None,
                sec.downlinkAsKey if sec else None, sec.maxTimestampDeviation if sec else None,
                now_ms(), account.name,
            ),
        )  # fmt: skip
        row_id = int(cur.lastrowid or 0)
        store.set_domains(conn, sub, row_id, domains)
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


def _key(security: Any, row: Any) -> str | None:
    """The AS key to store: the one given, else the stored one while security stays on
    (only what is given changes; a key is never read back, so a form cannot resend it)."""
    given = security.downlinkAsKey is not None or security.status == "NONE"
    key: str | None = security.downlinkAsKey if given else row["security_key"]
    return key


@router.put("/{appServerUid:path}/security", response_model=SecurityAppServer,
            response_model_exclude_none=True)  # fmt: skip
def put_security(
    request: Request, body: SecurityAppServerUpdate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    sec = body.downlinkSecurity
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        _current(row, body.occContext)
        conn.execute(
            "UPDATE app_servers SET security_status = ?, security_as_id = ?, security_key = ?,"
            " security_max_deviation = ?, version = version + 1, last_update = ?, who = ?"
            " WHERE id = ?",
            (sec.status, sec.asID, _key(sec, row), sec.maxTimestampDeviation, now_ms(),
             account.name, row["id"]),
        )  # fmt: skip
        (row,) = store.rows(conn, row["subscription_id"], [row["id"]])
    return {"downlinkSecurity": store.security(row), "occContext": store.occ(row)}


@router.get("/{appServerUid:path}/iotFlowConnector/metrics",
            response_model=AppServerIotFlowConnectorMetrics)  # fmt: skip
def flow_metrics(request: Request, account: SubscriptionReader, svc: AppServices) -> dict[str, Any]:
    conn = svc.db.conn()
    row = _find(conn, account, request)
    return store.metrics(conn, row["id"], clock(conn, now_ms()))


@router.get("/{appServerUid:path}", response_model=AppServer, response_model_exclude_none=True)
def get_app_server(
    request: Request, account: SubscriptionReader, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    row = _find(conn, account, request)
    return _full(conn, row["id"], account)


@router.put("/{appServerUid:path}", response_model=AppServer, response_model_exclude_none=True)
def update_app_server(
    request: Request, body: AppServerUpdate, account: SubscriptionWriter, svc: AppServices
) -> dict[str, Any]:
    given = body.model_fields_set
    domains = _check_domains(account, body.domains) if "domains" in given else None
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        _current(row, body.occContext)
        try:
            body._check_destinations(row["type"])
        except ValueError as exc:
            raise bad_request(str(exc)) from None
        values: dict[str, Any] = {}
        if "name" in given and body.name:
            values["name"] = body.name
        if "contentType" in given and body.contentType:
            values["content_type"] = body.contentType
        if "destinations" in given:
            values["destinations"] = json.dumps(
                [d.model_dump(exclude_none=True) for d in body.destinations or []]
            )
        if "customHttpHeaders" in given:
            values["custom_headers"] = json.dumps(
                [h.model_dump() for h in body.customHttpHeaders or []]
            )
        if "flowMatcherTags" in given:
            values["flow_matcher_tags"] = json.dumps(body.flowMatcherTags or [])
        if "downlinkSecurity" in given and body.downlinkSecurity is not None:
            sec = body.downlinkSecurity
            key = _key(sec, row)
            if sec.status != "NONE" and not (sec.asID and key):
                raise bad_request(
                    "downlinkSecurity: DOWNLINK_AS_KEY needs asID and downlinkAsKey"
                    " (a key already stored is kept when none is given)"
                )
            values |= {"security_status": sec.status, "security_as_id": sec.asID,
                       "security_key": key,
                       "security_max_deviation": sec.maxTimestampDeviation}  # fmt: skip
        values |= {"last_update": now_ms(), "who": account.name}
        sets = ", ".join(f"{c} = ?" for c in values)
        conn.execute(
            f"UPDATE app_servers SET {sets}, version = version + 1 WHERE id = ?",
            [*values.values(), row["id"]],
        )
        if domains is not None:
            store.set_domains(conn, row["subscription_id"], row["id"], domains)
    return _full(svc.db.conn(), row["id"], account)


@router.delete("/{appServerUid:path}", status_code=204)
def delete_app_server(request: Request, account: SubscriptionWriter, svc: AppServices) -> Response:
    with svc.db.write() as conn:
        row = _find(conn, account, request)
        _writable(row)
        conn.execute("DELETE FROM app_servers WHERE id = ?", (row["id"],))
    return Response(status_code=204)
