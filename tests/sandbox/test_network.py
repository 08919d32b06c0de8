from __future__ import annotations

from lpwa_console.schema.network import (
    AsTransportKeyPage,
    CellularNetworkContext,
    CellularNetworkContextPage,
    HsmGroupPage,
    NetworkSubscription,
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
)

from .conftest import API, Sandbox

MINE = f"{API}/subscriptions/mine"


def test_network_contexts_crud(sb: Sandbox) -> None:
    page = CellularNetworkContextPage.model_validate(
        sb.get(f"{MINE}/cellularNetworkContexts").json()
    )
    assert page.count == 4 and {c.ID for c in page.briefs} >= {"nc-orange-fr", "nc-kpn-nl"}
    body = {"ID": "nc-test", "name": "Test APN", "apn": "iot.test.example", "plmnID": "20801",
            "ipVersion": "IPV4"}  # fmt: skip
    created = sb.post(f"{MINE}/cellularNetworkContexts", json=body)
    assert created.status_code == 201, created.text
    assert CellularNetworkContext.model_validate(created.json()).apn == "iot.test.example"
    assert sb.post(f"{MINE}/cellularNetworkContexts", json=body).status_code == 409
    bad = sb.post(f"{MINE}/cellularNetworkContexts", json=dict(body, ID="nc-x", plmnID="12"))
    assert bad.status_code == 400
    path = f"{MINE}/cellularNetworkContexts/nc-test"
    updated = sb.put(path, json={"name": "Renamed", "description": "for tests"})
    assert updated.status_code == 200 and updated.json()["name"] == "Renamed"
    assert updated.json()["apn"] == "iot.test.example"
    assert sb.put(path, "subscriber-viewer", json={"name": "x"}).status_code == 403
    assert sb.client.delete(path, headers=sb.headers()).status_code == 204
    assert sb.get(path).status_code == 404
    in_use = sb.client.delete(f"{MINE}/cellularNetworkContexts/nc-orange-fr", headers=sb.headers())
    assert in_use.status_code == 400


def test_as_transport_keys_crud(sb: Sandbox) -> None:
    page = AsTransportKeyPage.model_validate(sb.get(f"{MINE}/asTransportKeys").json())
    assert {k.ID for k in page.briefs} == {"atk-default", "atk-metering-2024"}
    created = sb.post(f"{MINE}/asTransportKeys", json={"ID": "atk-new", "name": "New key"})
    assert created.status_code == 201 and created.json()["href"].endswith("/atk-new")
    assert (
        sb.post(f"{MINE}/asTransportKeys", json={"ID": "atk-new", "name": "x"}).status_code == 409
    )
    assert (
        sb.put(f"{MINE}/asTransportKeys/atk-new", json={"name": "Renamed"}).json()["name"]
        == "Renamed"
    )
    assert sb.get(f"{MINE}/asTransportKeys/atk-new").json()["name"] == "Renamed"
    assert (
        sb.client.delete(f"{MINE}/asTransportKeys/atk-new", headers=sb.headers()).status_code == 204
    )
    used = sb.client.delete(f"{MINE}/asTransportKeys/atk-metering-2024", headers=sb.headers())
    assert used.status_code == 400
    assert sb.get(f"{MINE}/asTransportKeys/nope").status_code == 404


def test_hsm_groups_and_exchange_key(sb: Sandbox) -> None:
    groups = HsmGroupPage.model_validate(sb.get(f"{MINE}/hsmGroups").json())
    assert [(g.ID, g.hsmExchangeKeyVersion) for g in groups.briefs] == [
        ("hsm-eu-central-1", 2),
        ("hsm-eu-west-1", 1),
    ]
    key = PublicRsaJsonWebKey.model_validate(
        sb.get(f"{MINE}/publicExchangeKey", params={"hsmGroupID": "hsm-eu-west-1"}).json()
    )
    assert key.kid == "hsm-eu-west-1-v1" and key.e == "AQAB" and len(key.n) > 300
    other = sb.get(f"{MINE}/publicExchangeKey", params={"hsmGroupID": "hsm-eu-central-1"}).json()
    assert other["n"] != key.n
    assert sb.get(f"{MINE}/publicExchangeKey").status_code == 200
    assert sb.get(f"{MINE}/publicExchangeKey", params={"hsmGroupID": "nope"}).status_code == 404


def test_network_subscriptions(sb: Sandbox) -> None:
    page = NetworkSubscriptionPage.model_validate(sb.get(f"{MINE}/networkSubscriptions").json())
    assert page.count == 3
    lora = next(s for s in page.briefs if s.ID == "ns-lora-unicast")
    assert (
        lora.platformCloudRouting and lora.platformKafkaRouting and lora.thirdPartyAppServersRouting
    )
    assert lora.hsmGroupID == "hsm-eu-west-1" and lora.used and lora.used > 0
    cellular = sb.get(f"{MINE}/networkSubscriptions", params={"connectivity": "CELLULAR"}).json()
    assert [s["ID"] for s in cellular["briefs"]] == ["ns-cellular"]
    assert not cellular["briefs"][0]["thirdPartyAppServersRouting"]
    multicast = sb.get(
        f"{MINE}/networkSubscriptions", params={"communicationType": "MULTICAST"}
    ).json()
    assert [s["ID"] for s in multicast["briefs"]] == ["ns-lora-multicast"]
    uid = lora.href.rsplit("/", 1)[1] if lora.href else ""
    by_uid = NetworkSubscription.model_validate(sb.get(f"{MINE}/networkSubscriptions/{uid}").json())
    assert by_uid.ID == "ns-lora-unicast" and by_uid.uplinkRateUnit == "DAY"
    by_id = sb.get(f"{MINE}/networkSubscriptions/id%3Ans-cellular").json()
    assert by_id["ID"] == "ns-cellular"
    assert sb.get(f"{MINE}/networkSubscriptions/999").status_code == 404
    assert sb.get(f"{MINE}/networkSubscriptions", "operator").status_code == 403
