"""Access rules that reach past a domain-restricted account's own devices (issue 7 §6)."""

from __future__ import annotations

from .conftest import API, DEVICES, Sandbox

SUBSCRIPTION = f"{API}/subscriptions/mine"
RESTRICTED = "subscriber-restricted"


def test_restricted_account_cannot_change_subscription_settings(sb: Sandbox) -> None:
    before = sb.get(SUBSCRIPTION).json()
    for body in (
        {"showTagSuggestionsWhenDomainRestrictions": True},
        {"name": "renamed by a restricted account"},
    ):
        refused = sb.put(SUBSCRIPTION, RESTRICTED, json=body)
        assert refused.status_code == 403, refused.text
        assert "domain restrictions" in refused.json()["message"]
    assert sb.get(SUBSCRIPTION).json() == before
    # The unrestricted account still can.
    allowed = sb.put(SUBSCRIPTION, json={"showTagSuggestionsWhenDomainRestrictions": True})
    assert allowed.status_code == 200, allowed.text


def _outside_eui(sb: Sandbox) -> str:
    visible = {d["EUI"] for d in sb.all_devices(RESTRICTED)}
    return next(d["EUI"] for d in sb.all_devices() if d["EUI"] not in visible)


def test_tag_that_reaches_no_visible_device_creates_no_tag(sb: Sandbox) -> None:
    outside = _outside_eui(sb)
    response = sb.post(
        f"{DEVICES}/tags", RESTRICTED, json={"name": "ghost-tag", "devEUIs": [outside]}
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"count": 0}
    suggestions = sb.get(f"{DEVICES}/tags/suggestions", params={"query": "ghost"}).json()
    assert suggestions["briefs"] == []
    assert sb.all_devices(tag="ghost-tag") == []


def test_tag_that_reaches_a_visible_device_creates_the_tag(sb: Sandbox) -> None:
    visible = sb.all_devices(RESTRICTED)[0]["EUI"]
    response = sb.post(
        f"{DEVICES}/tags", RESTRICTED, json={"name": "site-visit", "devEUIs": [visible]}
    )
    assert response.json() == {"count": 1}
    suggestions = sb.get(f"{DEVICES}/tags/suggestions", params={"query": "site-v"}).json()
    assert [b["name"] for b in suggestions["briefs"]] == ["site-visit"]
