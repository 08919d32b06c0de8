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


SERVERS = f"{API}/subscriptions/mine/appServers"
CONTEXTS = f"{API}/subscriptions/mine/cellularNetworkContexts"


def test_restricted_account_cannot_delete_a_server_used_outside_its_domains(sb: Sandbox) -> None:
    metering = "id%3Aas-metering"
    everyone = sb.get(f"{SERVERS}/{metering}").json()["deviceCount"]
    mine = sb.get(f"{SERVERS}/{metering}", RESTRICTED).json()["deviceCount"]
    assert 0 < mine < everyone  # shared: some of its devices are outside France
    refused = sb.client.delete(f"{SERVERS}/{metering}", headers=sb.headers(RESTRICTED))
    assert refused.status_code == 400, refused.text
    assert "outside your domains" in refused.json()["message"]
    assert str(everyone) not in refused.json()["message"]  # no count of unseen devices
    assert sb.get(f"{SERVERS}/{metering}").status_code == 200
    deleted = sb.client.delete(f"{SERVERS}/{metering}", headers=sb.headers())
    assert deleted.status_code == 204, deleted.text


def test_in_use_messages_count_only_what_the_caller_sees(sb: Sandbox) -> None:
    contexts = [c["ID"] for c in sb.get(CONTEXTS).json()["briefs"]]
    usage = {
        ref: (
            len(sb.all_devices(RESTRICTED, networkContextID=ref)),
            len(sb.all_devices(networkContextID=ref)),
        )
        for ref in contexts
    }
    ref, (mine, everyone) = next((r, u) for r, u in usage.items() if u[0] < u[1])
    refused = sb.client.delete(f"{CONTEXTS}/{ref}", headers=sb.headers(RESTRICTED))
    assert refused.status_code == 400, refused.text
    message = refused.json()["message"]
    assert "outside your domains" in message and f"by {everyone} " not in message
    assert (f"{mine} device" in message) == (mine > 0)
    unrestricted = sb.client.delete(f"{CONTEXTS}/{ref}", headers=sb.headers()).json()["message"]
    assert f"still used by {everyone} device" in unrestricted
