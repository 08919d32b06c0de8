"""The application scope (Document 1 §2.8, §4.5, §5): `/applications/{applicationUid}`, the
authentication of a subscription user, users by UID, platform ID or OpenID `sub`, their
contexts.

Identifiers: an application by UID or `id:` + ID, a user by UID, platform ID or `sub`. IDs
may hold slashes, sent percent-encoded: every identifier is read from the raw path, split
before decoding, so an encoded slash never splits one. Applications are the platform's
(any signed-in account reads them). A user reads itself; a subscription user with `x` reads
the users of its subscription; the operator reads everyone; any other user is "not found".
The deprecated trees (nodes, places, models, notifications) are not served.
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request

from ...schema.applications import Application, Authentication, User, UserContexts, UserIdentifier
from ...schema.common import parse_identifier
from .. import accounts
from ..accounts import Account
from ..auth import OPERATOR_ADMIN, AppServices, ClientBodies, CurrentAccount, SubscriptionMember
from ..errors import not_found
from ..store import applications as store
from ._router import RecordedRouter

router = RecordedRouter(
    prefix="/applications", tags=["application scope"], dependencies=[ClientBodies]
)
APP = "/{applicationUid:path}"


def _segments(request: Request, shape: tuple[str | None, ...]) -> list[str]:
    """The path's segments after `/applications/`, each percent-decoded after splitting;
    404 unless they have the route's `shape` (None: an identifier, else that literal)."""
    raw = request.scope.get("raw_path") or request.url.path.encode()
    after = raw.decode("latin-1").split("/applications/", 1)[-1]
    parts = [unquote(p) for p in after.split("/")]
    if len(parts) != len(shape) or any(
        want is not None and got != want for want, got in zip(shape, parts, strict=True)
    ):
        raise not_found(f"{'/'.join(parts)}: no such application resource")
    return parts


def _href(application: dict[str, Any]) -> str:
    return f"/applications/{application['UID']}"


def _application(conn: sqlite3.Connection, text: str) -> dict[str, Any]:
    ident = parse_identifier(text)
    found = None
    if ident.kind == "uid":
        found = store.find_application(conn, uid=ident.uid)
    elif text.startswith("id:"):
        found = store.find_application(conn, ref=text[len("id:") :])
    if found is None:
        raise not_found(f"application {text} not found")
    return found


def _opened(
    request: Request, svc: Any, shape: tuple[str | None, ...]
) -> tuple[sqlite3.Connection, dict[str, Any], list[str]]:
    """The connection, the application the path names (404 if none) and the path's
    segments after it, in the route's `shape` (`_segments`)."""
    app_text, *rest = _segments(request, (None, *shape))
    conn = svc.db.conn()
    return conn, _application(conn, app_text), rest


def _may_read(caller: Account, row: sqlite3.Row) -> bool:
    if row["account_id"] == caller.id or caller.can(OPERATOR_ADMIN):
        return True
    return (
        caller.subscription_id is not None
        and caller.can("x")
        and row["subscription_id"] == caller.subscription_id
    )


def _user(conn: sqlite3.Connection, caller: Account, text: str) -> sqlite3.Row:
    """The user a UID, platform ID or OpenID sub names, if the caller may read it."""
    ident = parse_identifier(text)
    row = store.find_user(conn, uid=ident.uid) if ident.kind == "uid" else None
    if row is None:
        row = store.find_user(conn, platform_id=text) or store.find_user(conn, oidc_sub=text)
    if row is None or not _may_read(caller, row):
        raise not_found(f"user {text} not found")
    return row


def _permissions(account: Account) -> dict[str, Any]:
    letters = [p for p in account.permissions if p in ("x", "a", "ra", "rc", "s1")]
    return {"permission": letters}


def _restrictions(account: Account) -> dict[str, Any] | None:
    if account.restrictions is None or not account.restrictions.and_:
        return None
    return account.restrictions.model_dump(by_alias=True)


@router.reads(f"{APP}/subscriptions/authenticate", Authentication)
def authenticate(request: Request, account: SubscriptionMember, svc: AppServices) -> dict[str, Any]:
    """The signed-in subscription user: its permissions and domain restrictions."""
    conn, _, _ = _opened(request, svc, ("subscriptions", "authenticate"))
    user = store.find_user(conn, account_id=account.id)
    return {
        "grantedPermissions": _permissions(account),
        "domainRestrictions": _restrictions(account),
        "userUid": user["uid"] if user is not None else None,
    }


@router.reads(f"{APP}/subscriptions/oidcUsers/{{oidcUserID:path}}", UserIdentifier)
def oidc_user(request: Request, account: CurrentAccount, svc: AppServices) -> dict[str, Any]:
    """Which user the OpenID `sub` of an ID token names."""
    conn, application, (_, _, sub) = _opened(request, svc, ("subscriptions", "oidcUsers", None))
    row = store.find_user(conn, oidc_sub=sub)
    if row is None or not _may_read(account, row):
        raise not_found(f"oidcUserID: no user has the OpenID sub {sub}")
    return {
        "UID": row["uid"],
        "platformID": row["platform_id"],
        "href": f"{_href(application)}/subscriptions/users/{row['uid']}",
    }


@router.reads(f"{APP}/subscriptions/users/{{userUid:path}}/contexts", UserContexts)
def user_contexts(request: Request, account: CurrentAccount, svc: AppServices) -> dict[str, Any]:
    """Where the user acts: its subscription (permissions and domain restrictions), the
    network partner it acts for, or the platform role of an account without either."""
    shape = ("subscriptions", "users", None, "contexts")
    conn, _, (_, _, user_text, _) = _opened(request, svc, shape)
    row = _user(conn, account, user_text)
    owner = accounts.by_id(conn, row["account_id"])
    if owner is None:
        raise not_found(f"user {user_text} not found")
    briefs: list[dict[str, Any]] = []
    sub = partner = None
    if owner.subscription_id is not None:
        sub = store.subscription(conn, owner.subscription_id)
    if owner.partner_uid is not None:
        partner = store.partner(conn, owner.partner_uid)
    for kind, found, href in (("SUBSCRIBER", sub, "/subscriptions/mine"),
                              ("PARTNER", partner, "/partners/mine")):  # fmt: skip
        if found is not None:
            briefs.append({
                "type": kind, "ID": found["ref"], "name": found["name"], "href": href,
                "grantedPermissions": _permissions(owner),
                "domainRestrictions": _restrictions(owner),
            })  # fmt: skip
    if not briefs:
        briefs.append({"type": owner.role.upper(), "name": owner.name, "grantedPermissions": {}})
    return {"briefs": {"brief": briefs}}


@router.reads(f"{APP}/subscriptions/users/{{userUid:path}}", User)
def get_user(request: Request, account: CurrentAccount, svc: AppServices) -> dict[str, Any]:
    """A user by UID, platform ID or OpenID sub."""
    conn, application, (_, _, user_text) = _opened(request, svc, ("subscriptions", "users", None))
    row = _user(conn, account, user_text)
    href = f"{_href(application)}/subscriptions/users/{quote(str(row['uid']))}"
    return store.user_answer(row) | {"href": href}


# Last: `{applicationUid:path}` alone would match every path above.
@router.reads(APP, Application)
def get_application(request: Request, account: CurrentAccount, svc: AppServices) -> dict[str, Any]:
    _, found, _ = _opened(request, svc, ())
    return found | {"href": _href(found)}
