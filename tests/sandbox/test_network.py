from __future__ import annotations

import pytest

from lpwa_console.sandbox.routes.network import preferred
from lpwa_console.schema.network import (
    PEM_MEDIA_TYPE,
    AsTransportKeyPage,
    CellularNetworkContext,
    CellularNetworkContextPage,
    HsmGroupPage,
    NetworkSubscription,
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
    b64url_int,
    rsa_public_key_from_pem,
)

from .conftest import API, Sandbox

MINE = f"{API}/subscriptions/mine"
PEM = PEM_MEDIA_TYPE
JWK = {"Accept": "application/jwk+json"}


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
    # hsmExchangeKeyVersion is a string (Document 1 §2.7): the kid of the group's key.
    assert [(g.ID, g.hsmExchangeKeyVersion) for g in groups.briefs] == [
        ("hsm-eu-central-1", "hsm-eu-central-1-v2"),
        ("hsm-eu-west-1", "hsm-eu-west-1-v1"),
    ]
    assert all(isinstance(b["hsmExchangeKeyVersion"], str)
               for b in sb.get(f"{MINE}/hsmGroups").json()["briefs"])  # fmt: skip
    response = sb.get(
        f"{MINE}/publicExchangeKey", params={"hsmGroupID": "hsm-eu-west-1"}, headers=JWK
    )
    assert response.headers["content-type"].startswith("application/jwk+json")
    key = PublicRsaJsonWebKey.model_validate(response.json())
    assert key.kid == "hsm-eu-west-1-v1" and key.e == "AQAB" and len(key.n) > 300
    other = sb.get(
        f"{MINE}/publicExchangeKey", params={"hsmGroupID": "hsm-eu-central-1"}, headers=JWK
    ).json()
    assert other["n"] != key.n and other["kid"] == "hsm-eu-central-1-v2"
    missing = sb.get(f"{MINE}/publicExchangeKey", params={"hsmGroupID": "nope"}, headers=JWK)
    assert missing.status_code == 404


def test_exchange_key_without_hsm_group_is_the_platforms(sb: Sandbox) -> None:
    """The reference: without hsmGroupID, the platform's exchange key (not an HSM group's);
    the same one on every call and for every subscriber."""
    first = sb.get(f"{MINE}/publicExchangeKey", headers=JWK)
    assert first.status_code == 200, first.text
    platform = PublicRsaJsonWebKey.model_validate(first.json())
    hsm = [
        sb.get(f"{MINE}/publicExchangeKey", params={"hsmGroupID": g}, headers=JWK).json()
        for g in ("hsm-eu-west-1", "hsm-eu-central-1")
    ]
    assert platform.kid == "platform-v1" and platform.e == "AQAB"
    assert platform.n not in {k["n"] for k in hsm} and b64url_int(platform.n).bit_length() == 2048
    again = sb.get(f"{MINE}/publicExchangeKey", "subscriber-viewer", headers=JWK).json()
    assert again == first.json()


def test_exchange_key_representations_by_accept(sb: Sandbox) -> None:
    jwk = PublicRsaJsonWebKey.model_validate(
        sb.get(f"{MINE}/publicExchangeKey", headers=JWK).json()
    )
    # PEM by default (no preference, or anything), or when preferred.
    for accept in ("", "*/*", PEM, "application/*", f"{PEM}, application/jwk+json;q=0.5"):
        response = sb.get(f"{MINE}/publicExchangeKey", headers={"Accept": accept})
        assert response.status_code == 200, (accept, response.text)
        assert response.headers["content-type"].startswith(PEM), accept
        assert response.headers["vary"] == "Accept"
        assert response.text == jwk.pem()
        assert rsa_public_key_from_pem(response.text) == (b64url_int(jwk.n), 65537)
    preferred = sb.get(
        f"{MINE}/publicExchangeKey", headers={"Accept": f"{PEM};q=0.2, application/jwk+json"}
    )
    assert preferred.headers["content-type"].startswith("application/jwk+json")
    for refused in ("application/json", "text/html", f"{PEM};q=0"):
        response = sb.get(f"{MINE}/publicExchangeKey", headers={"Accept": refused})
        assert response.status_code == 406, refused
        assert response.json()["code"] == 40600 and "Accept" in response.json()["message"]
    # The PEM is a real SubjectPublicKeyInfo (when `cryptography` is at hand to say so).
    serialization = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    loaded = serialization.load_pem_public_key(jwk.pem().encode())
    assert loaded.public_numbers().n == b64url_int(jwk.n)  # type: ignore[union-attr]


def test_preferred_media_type() -> None:
    offered = (PEM, "application/jwk+json")
    assert preferred(None, offered) == PEM
    assert preferred("application/jwk+json", offered) == "application/jwk+json"
    assert preferred("application/*;q=0.5, application/jwk+json", offered) == (
        "application/jwk+json"
    )
    assert preferred("*/*;q=0.1, application/x-pem-file;q=0", offered) == "application/jwk+json"
    assert preferred("application/json", offered) is None
    assert preferred("application/jwk+json;q=bogus", offered) is None


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
