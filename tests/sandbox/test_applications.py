"""The application scope over HTTP (Document 1 §4.5, §5): an application by UID or `id:` + an
ID holding a slash (percent-encoded), the authentication of subscription users, users by UID,
platform ID and OpenID sub, their contexts, and who may read whom."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from lpwa_console.schema.applications import (
    CONSOLE_APPLICATION_ID,
    Application,
    Authentication,
    User,
    UserContexts,
    UserIdentifier,
)

from .conftest import API, Sandbox

CONSOLE = f"{API}/applications/{quote('id:' + CONSOLE_APPLICATION_ID, safe='')}"


def _ok(response: Any) -> Any:
    assert response.status_code == 200, response.text
    return response.json()


def _me(sb: Sandbox, role: str) -> User:
    auth = Authentication.model_validate(_ok(sb.get(f"{CONSOLE}/subscriptions/authenticate", role)))
    assert auth.userUid is not None
    return User.model_validate(_ok(sb.get(f"{CONSOLE}/subscriptions/users/{auth.userUid}", role)))


def test_application_by_encoded_id_and_by_uid(sb: Sandbox) -> None:
    assert "%2F" in CONSOLE and "%3A" in CONSOLE
    app = Application.model_validate(_ok(sb.get(CONSOLE)))
    assert app.ID == CONSOLE_APPLICATION_ID and app.name and app.UID
    by_uid = Application.model_validate(_ok(sb.get(f"{API}/applications/{app.UID}")))
    assert by_uid.ID == app.ID and app.href == f"/applications/{app.UID}"
    # Every role reads the platform's applications; the portal is another one.
    portal = sb.get(f"{API}/applications/id%3Aacme%2Fmetering-portal", "operator")
    assert _ok(portal)["name"] == "Metering portal"
    # A slash sent as a slash splits the path: that names nothing.
    assert sb.get(f"{API}/applications/id:lpwa/console").status_code == 404
    for missing in ("id%3Anope", "999999", "lpwa%2Fconsole"):
        response = sb.get(f"{API}/applications/{missing}")
        assert response.status_code == 404 and response.json()["code"]
    assert sb.client.get(CONSOLE).status_code == 401


def test_authenticate_says_permissions_and_restrictions(sb: Sandbox) -> None:
    admin = _ok(sb.get(f"{CONSOLE}/subscriptions/authenticate"))
    assert sorted(admin["grantedPermissions"]["permission"]) == ["a", "ra", "rc", "s1", "x"]
    assert "domainRestrictions" not in admin
    france = _ok(sb.get(f"{CONSOLE}/subscriptions/authenticate", "subscriber-restricted"))
    assert sorted(france["grantedPermissions"]["permission"]) == ["a", "x"]
    assert france["domainRestrictions"]["and"] == [
        {"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}
    ]
    viewer = _ok(sb.get(f"{CONSOLE}/subscriptions/authenticate", "subscriber-viewer"))
    assert viewer["grantedPermissions"]["permission"] == ["x"]
    # Subscription users only; an unknown application is not found.
    assert sb.get(f"{CONSOLE}/subscriptions/authenticate", "operator").status_code == 403
    missing = f"{API}/applications/id%3Anope/subscriptions/authenticate"
    assert sb.get(missing).status_code == 404


def test_user_by_uid_platform_id_and_oidc_sub(sb: Sandbox) -> None:
    me = _me(sb, "subscriber")
    assert me.platformID and me.oidcSub and me.subscriptionID == "100"
    assert me.role == "subscriber" and me.email and me.name
    users = f"{CONSOLE}/subscriptions/users"
    for ref in (str(me.UID), me.platformID, me.oidcSub):
        assert _ok(sb.get(f"{users}/{quote(ref, safe='')}"))["UID"] == me.UID
    found = UserIdentifier.model_validate(
        _ok(sb.get(f"{CONSOLE}/subscriptions/oidcUsers/{quote(me.oidcSub, safe='')}"))
    )
    assert (found.UID, found.platformID) == (me.UID, me.platformID)
    assert found.href == f"{_ok(sb.get(CONSOLE))['href']}/subscriptions/users/{me.UID}"
    assert sb.get(f"{CONSOLE}/subscriptions/oidcUsers/not-a-sub").status_code == 404
    assert sb.get(f"{users}/usr-nobody").status_code == 404


def test_who_may_read_whom(sb: Sandbox) -> None:
    admin, viewer = _me(sb, "subscriber"), _me(sb, "subscriber-viewer")
    users = f"{CONSOLE}/subscriptions/users"
    # A subscription user with x reads the users of its subscription.
    assert _ok(sb.get(f"{users}/{admin.UID}", "subscriber-viewer"))["UID"] == admin.UID
    # The operator reads everyone; a partner only itself.
    assert _ok(sb.get(f"{users}/{viewer.platformID}", "operator"))["UID"] == viewer.UID
    assert sb.get(f"{users}/{admin.UID}", "partner").status_code == 404
    assert sb.get(f"{users}/{admin.UID}/contexts", "supplier").status_code == 404
    sub = quote(admin.oidcSub or "", safe="")
    assert sb.get(f"{CONSOLE}/subscriptions/oidcUsers/{sub}", "partner").status_code == 404


def test_contexts(sb: Sandbox) -> None:
    france = _me(sb, "subscriber-restricted")
    users = f"{CONSOLE}/subscriptions/users"
    body = _ok(sb.get(f"{users}/{france.UID}/contexts", "subscriber-restricted"))
    assert isinstance(body["briefs"]["brief"], list)
    contexts = UserContexts.model_validate(body).items
    # Its subscription, and the network partner the subscription is (its stations).
    assert [c.type for c in contexts] == ["SUBSCRIBER", "PARTNER"]
    assert contexts[0].ID == "100" and contexts[0].name == "Acme Utilities"
    assert sorted(contexts[0].grantedPermissions.permission) == ["a", "x"]
    assert contexts[0].domainRestrictions is not None
    assert contexts[0].domainRestrictions.and_[0].name == "France/"
    # A platform-level user acts in its role, with no subscription permission.
    operator = _ok(sb.get(f"{users}/{_me_operator(sb)}/contexts", "operator"))["briefs"]["brief"]
    assert operator[0]["type"] == "OPERATOR" and operator[0]["grantedPermissions"] == {
        "permission": []
    }
    partner = _ok(sb.get(f"{users}/{_uid_of(sb, 'partner')}/contexts", "operator"))
    assert [c["type"] for c in partner["briefs"]["brief"]] == ["PARTNER"]


def _uid_of(sb: Sandbox, role: str) -> int:
    """A platform-level account's user (no authenticate: not a subscription user)."""
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    row = conn.execute(
        "SELECT u.uid FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.role = ?",
        (role,),
    ).fetchone()
    return int(row[0])


def _me_operator(sb: Sandbox) -> int:
    return _uid_of(sb, "operator")
