from __future__ import annotations

import time
from pathlib import Path

import pytest

from .conftest import API, DEVICES, TOKEN, Sandbox, make_sandbox


def test_token_endpoint_answers_a_bearer_token(sb: Sandbox) -> None:
    account = sb.accounts["subscriber"]
    response = sb.client.post(
        TOKEN,
        data={
            "grant_type": "client_credentials",
            "client_id": account["client_id"],
            "client_secret": account["client_secret"],
        },
    )
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "Bearer"
    assert body["expires_in"] == 3600
    assert len(body["access_token"]) >= 32


def test_bad_credentials_are_invalid_client(sb: Sandbox) -> None:
    response = sb.client.post(
        TOKEN,
        data={"grant_type": "client_credentials", "client_id": "subscriber", "client_secret": "no"},
    )
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert response.json()["error_description"]


def test_other_grant_types_are_refused(sb: Sandbox) -> None:
    response = sb.client.post(TOKEN, data={"grant_type": "password"})
    assert response.status_code == 400
    assert response.json()["error"] == "unsupported_grant_type"


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer not-a-token", "Basic abc"])
def test_missing_or_unknown_token_is_401_with_code_and_message(
    sb: Sandbox, header: str | None
) -> None:
    headers = {"Authorization": header} if header else {}
    response = sb.client.get(f"{API}/subscriptions/mine", headers=headers)
    assert response.status_code == 401
    body = response.json()
    assert set(body) == {"code", "message"}
    assert body["code"] in (40100, 40101)


def test_expired_token_is_401(tmp_path: Path) -> None:
    # 3 s: long enough for the first request to land in time on a loaded machine.
    for sandbox in make_sandbox(tmp_path / "s.db", demo_devices=0, token_lifetime_s=3):
        headers = sandbox.headers()
        assert sandbox.client.get(f"{API}/subscriptions/mine", headers=headers).status_code == 200
        time.sleep(3.1)
        response = sandbox.client.get(f"{API}/subscriptions/mine", headers=headers)
        assert response.status_code == 401
        assert response.json()["code"] == 40101


def test_tokens_survive_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    for sandbox in make_sandbox(path, demo_devices=0):
        headers = sandbox.headers()
    for sandbox in make_sandbox(path, demo_devices=0):
        assert sandbox.client.get(f"{API}/subscriptions/mine", headers=headers).status_code == 200


@pytest.mark.parametrize("role", ["operator", "supplier", "partner"])
def test_roles_without_subscription_get_403(sb: Sandbox, role: str) -> None:
    for path in (f"{API}/subscriptions/mine", DEVICES):
        response = sb.get(path, role)
        assert response.status_code == 403
        assert response.json()["code"] == 40300


def test_viewer_reads_but_cannot_write(sb: Sandbox) -> None:
    assert sb.get(DEVICES, "subscriber-viewer").status_code == 200
    assert sb.get(f"{API}/subscriptions/mine", "subscriber-viewer").status_code == 200
    writes = [
        sb.post(DEVICES, "subscriber-viewer", json={"EUI": "0011223344556677"}),
        sb.put(f"{DEVICES}/1", "subscriber-viewer", json={"name": "x"}),
        sb.post(f"{DEVICES}/tags", "subscriber-viewer", json={"name": "t", "devEUIs": ["00"]}),
        sb.put(
            f"{API}/subscriptions/mine",
            "subscriber-viewer",
            json={"showTagSuggestionsWhenDomainRestrictions": False},
        ),
    ]
    for response in writes:
        assert response.status_code == 403, response.text
        assert response.json()["code"] == 40301


def test_subscription_mine_is_resolved_from_the_token(sb: Sandbox) -> None:
    full = sb.get(f"{API}/subscriptions/mine").json()
    assert full["options"]["hsm"] in ("ACTIVATED", "DEACTIVATED")
    assert full["subscription"]["grantedPermissions"] == ["x", "a", "ra", "rc", "s1"]
    assert "domainRestrictions" not in full["subscription"]
    restricted = sb.get(f"{API}/subscriptions/mine", "subscriber-restricted").json()
    assert restricted["subscription"]["grantedPermissions"] == ["x", "a"]
    items = restricted["subscription"]["domainRestrictions"]["and"]
    assert items == [{"type": "PREFIX", "name": "France/", "group": {"name": "Site"}}]


def test_subscription_update(sb: Sandbox) -> None:
    response = sb.put(
        f"{API}/subscriptions/mine",
        json={"options": {"hsm": "ACTIVATED"}, "showTagSuggestionsWhenDomainRestrictions": False},
    )
    assert response.status_code == 200, response.text
    assert response.json()["options"]["hsm"] == "ACTIVATED"
    again = sb.get(f"{API}/subscriptions/mine").json()
    assert again["showTagSuggestionsWhenDomainRestrictions"] is False
    bad = sb.put(f"{API}/subscriptions/mine", json={"options": {"hsm": "MAYBE"}})
    assert bad.status_code == 400
    assert bad.json()["message"].startswith("options.hsm:")
    # The removed validation options are still accepted (and change nothing).
    old = {"options": {"devAddrValidation": "ADM-VC", "devEUIValidation": "DEACTIVATED"}}
    accepted = sb.put(f"{API}/subscriptions/mine", json=old)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["options"]["hsm"] == "ACTIVATED"


def test_openapi_is_served_and_marks_the_deprecated_route(sb: Sandbox) -> None:
    spec = sb.client.get("/openapi.json").json()
    tags_route = spec["paths"][f"{API}/subscriptions/mine/devices/{{deviceUid}}/tags"]["get"]
    assert tags_route["deprecated"] is True
    assert TOKEN in spec["paths"]


def test_unknown_path_is_404_json(sb: Sandbox) -> None:
    response = sb.get(f"{API}/nothing/here")
    assert response.status_code == 404
    assert set(response.json()) == {"code", "message"}
