"""The key manager over HTTP: identifier forms, subscription, HSM groups, real exchange keys,
AS keys (RFC_3394 rule), devices with the §2.7 rules and the three key encodings, claim,
states, traffic, key generation, customers."""

from __future__ import annotations

import base64
import sqlite3
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.sandbox.store import key_manager as key_store
from lpwa_console.sandbox.store import km_devices as device_store
from lpwa_console.schema.key_manager import (
    KmAsKey,
    KmDevice,
    KmDevicePage,
    KmHsmGroupPage,
    KmPublicExchangeKeys,
    KmStatesDistribution,
    KmSubscription,
)

from .conftest import API, Sandbox

KM = f"{API}/kmSubscriptions/mine"
DEVICES = f"{KM}/devices"
APP_KEY = "000102030405060708090A0B0C0D0E0F"
NWK_KEY = "F0E0D0C0B0A090807060504030201000"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def _conn(sb: Sandbox) -> sqlite3.Connection:
    return sb.client.app.state.services.db.conn()  # type: ignore[attr-defined,no-any-return]


def _rsa_encrypt(pem: str, key_hex: str) -> str:
    public = serialization.load_pem_public_key(pem.encode())
    assert isinstance(public, rsa.RSAPublicKey)
    return base64.b64encode(public.encrypt(bytes.fromhex(key_hex), OAEP)).decode()


def _keys(sb: Sandbox, **params: Any) -> KmPublicExchangeKeys:
    response = sb.get(f"{KM}/publicExchangeKey", params=params)
    assert response.status_code == 200, response.text
    return KmPublicExchangeKeys.model_validate(response.json())


def _create(sb: Sandbox, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
    response = sb.post(DEVICES, json=body)
    assert response.status_code == status, response.text
    return dict(response.json())


def test_identifier_forms_and_subscription(sb: Sandbox) -> None:
    mine = KmSubscription.model_validate(sb.get(KM).json())
    assert mine.ID == "100" and mine.platformExchangeKeyVersion == "platform-v1"
    uid = mine.href.rsplit("/", 1)[1] if mine.href else ""
    for ident in (uid, "id:sub:100", "id:100"):
        assert sb.get(f"{API}/kmSubscriptions/{ident}").json()["ID"] == "100"
    for other in ("999", "id:sub:nobody", "somebody"):
        response = sb.get(f"{API}/kmSubscriptions/{other}")
        assert response.status_code == 404, response.text
    assert sb.get(KM, "operator").status_code == 403
    customers = sb.get(f"{API}/kmCustomers").json()["briefs"]
    assert customers[0]["subscription"]["grantedPermissions"] == ["x", "a", "ra", "rc", "s1"]
    viewer = sb.get(f"{API}/kmCustomers", "subscriber-viewer").json()["briefs"]
    assert viewer[0]["subscription"]["grantedPermissions"] == ["x"]


def test_exchange_keys_are_real_rsa_pairs(sb: Sandbox) -> None:
    keys = _keys(sb)
    versions = {k.version for k in keys.briefs}
    assert versions == {"platform-v1", "hsm-eu-west-1-v1", "hsm-eu-central-1-v2"}
    conn = _conn(sb)
    for key in keys.briefs:
        public = serialization.load_pem_public_key(key.pem.encode())
        assert isinstance(public, rsa.RSAPublicKey) and public.key_size == 2048
        # The private half in the database opens what the public half encrypted.
        opener = key_store.KeyOpener(conn, 1)
        opened = opener.open(
            "appKey", _rsa_encrypt(key.pem, APP_KEY), hsm_version=None,
            exchange_version=key.version, kind="APP", hsm_field="hsmAppKeyVersion",
        )  # fmt: skip
        assert opened == APP_KEY
    one = _keys(sb, hsmGroupID="hsm-eu-west-1")
    assert [k.hsmGroupID for k in one.briefs] == ["hsm-eu-west-1"]
    assert sb.get(f"{KM}/publicExchangeKey", params={"hsmGroupID": "nope"}).status_code == 404
    # The subscription's public exchange key (JWK) is the same real platform key.
    jwk = sb.get(
        f"{API}/subscriptions/mine/publicExchangeKey", headers={"Accept": "application/jwk+json"}
    ).json()
    platform = next(k for k in keys.briefs if k.version == "platform-v1")
    public = serialization.load_pem_public_key(platform.pem.encode())
    assert isinstance(public, rsa.RSAPublicKey)
    n = int.from_bytes(base64.urlsafe_b64decode(jwk["n"] + "=" * (-len(jwk["n"]) % 4)), "big")
    assert n == public.public_numbers().n


def test_hsm_groups_and_as_keys(sb: Sandbox) -> None:
    groups = KmHsmGroupPage.model_validate(sb.get(f"{KM}/hsmGroups").json())
    assert groups.count == 2
    west = next(g for g in groups.briefs if g.ID == "hsm-eu-west-1")
    assert west.hsmExchangeKeyVersion == "hsm-eu-west-1-v1"
    assert west.hsmAppKeyVersion == "hsm-eu-west-1-app-v1"
    refused = sb.post(
        f"{KM}/asKeys",
        json={"ID": "k1", "hsmSecurity": {"asKeyLabel": "l", "asKeyWrapAlgo": "RFC_3394"}},
    )
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("hsmSecurity.asKeyWrapAlgo: RFC_3394")
    created = sb.post(
        f"{KM}/asKeys",
        json={"ID": "k1", "name": "One", "hsmGroupID": "hsm-eu-west-1",
              "hsmSecurity": {"asKeyLabel": "l", "asKeyWrapAlgo": "RFC_3394"}},
    )  # fmt: skip
    assert created.status_code == 201, created.text
    key = KmAsKey.model_validate(created.json())
    assert key.hsmGroupID == "hsm-eu-west-1" and "key" not in created.text.lower().replace(
        "askey", ""
    ).replace("keywrap", "")
    assert sb.post(f"{KM}/asKeys", json={"ID": "k1"}).status_code == 409
    unknown = sb.post(f"{KM}/asKeys", json={"ID": "k2", "hsmGroupID": "nope"})
    assert unknown.status_code == 400 and unknown.json()["message"].startswith("hsmGroupID")
    assert sb.get(f"{KM}/asKeys/id:k1").json()["UID"] == key.UID
    plain = sb.post(f"{KM}/asKeys", json={"ID": "k3"}).json()
    put = sb.put(
        f"{KM}/asKeys/{plain['UID']}", params={"force": "true"},
        json={"hsmSecurity": {"asKeyWrapAlgo": "RFC_3394"}},
    )  # fmt: skip
    assert put.status_code == 400 and "HSM group" in put.json()["message"]
    renamed = sb.put(f"{KM}/asKeys/{plain['UID']}", json={"name": "Three", "ID": "k3"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Three"
    assert sb.put(f"{KM}/asKeys/{plain['UID']}", json={"ID": "other"}).status_code == 400
    assert sb.get(f"{KM}/asKeys/424242").status_code == 404


def test_create_rules_of_section_2_7(sb: Sandbox) -> None:
    pem = _keys(sb).briefs[0].pem
    cases = [
        ({"EUI": "0011223344556601", "state": "PRE_COMMISSIONED", "appKey": APP_KEY,
          "rsaPublicKey": pem, "homeNsNetID": "000013"}, "homeNsNetID"),
        ({"EUI": "0011223344556601", "state": "PRE_COMMISSIONED", "appKey": APP_KEY,
          "rsaPublicKey": pem, "asKey": {"ID": "as-key-platform"}}, "asKey.ID"),
        ({"EUI": "0011223344556601", "state": "PRE_COMMISSIONED", "appKey": APP_KEY,
          "rsaPublicKey": pem, "homeNsNSID": "70B3D57ED0000001"}, "homeNsNSID"),
        ({"EUI": "0011223344556601", "appKey": APP_KEY, "lorawanVersion": "1.1"}, "nwkKey"),
        ({"EUI": "0011223344556601", "appKey": APP_KEY, "nwkKey": NWK_KEY}, "nwkKey"),
        ({"EUI": "0011223344556601", "secureElement": {"lorawanVersion": "1.0"}},
         "secureElement.tkmInfo"),
        ({"EUI": "0011223344556601", "state": "PRE_COMMISSIONED", "appKey": APP_KEY},
         "rsaPublicKey"),
        ({"EUI": "0011223344556601", "appKey": "XYZ"}, "appKey"),
        ({"EUI": "0011223344556601", "appKey": APP_KEY, "asKey": {"ID": "nope"}}, "asKey.ID"),
        ({"EUI": "0011223344556601", "appKey": APP_KEY, "exchangeKeyVersion": "nope"},
         "appKey"),
    ]  # fmt: skip
    for body, field in cases:
        message = _create(sb, body, 400)["message"]
        assert message.startswith(field), (body, message)
    # nwkKey mandatory for 1.1, and then both keys are kept, never returned.
    device = _create(sb, {"EUI": "0011223344556602", "appKey": APP_KEY, "nwkKey": NWK_KEY,
                          "lorawanVersion": "1.1"})  # fmt: skip
    assert "appKey" not in device and "nwkKey" not in device and device["state"] == "GENERIC"
    assert device_store.root_keys(_conn(sb), device["UID"]) == (APP_KEY, NWK_KEY)
    _create(sb, {"EUI": "0011223344556602", "appKey": APP_KEY}, 409)
    # A secure element: tkmInfo gives the chip model; no keys sent.
    se = _create(sb, {"EUI": "0011223344556603", "state": "PRE_COMMISSIONED",
                      "secureElement": {"lorawanVersion": "1.1",
                                        "tkmInfo": "ATECC608B-TNGLORA:0102"}})  # fmt: skip
    assert se["secureElement"] == {"type": "ATECC608B-TNGLORA"} and "ownerToken" not in se
    # COMMISSIONED when a home network is set.
    home = _create(sb, {"EUI": "0011223344556604", "appKey": APP_KEY, "homeNsNetID": "000013"})
    assert home["state"] == "COMMISSIONED" and home["homeNsNetID"] == "000013"


def test_keys_in_three_encodings(sb: Sandbox) -> None:
    keys = _keys(sb).briefs
    platform = next(k for k in keys if k.version == "platform-v1")
    west = next(k for k in keys if k.hsmGroupID == "hsm-eu-west-1")
    conn = _conn(sb)
    kek = key_store.hsm_key_hex(conn, 1, "hsm-eu-west-1-app-v1")
    nwk_kek = key_store.hsm_key_hex(conn, 1, "hsm-eu-west-1-nwk-v1")
    assert kek and nwk_kek
    wrapped = aes_key_wrap(bytes.fromhex(kek), bytes.fromhex(APP_KEY)).hex()
    wrapped_nwk = aes_key_wrap(bytes.fromhex(nwk_kek), bytes.fromhex(NWK_KEY)).hex()
    a = _create(sb, {"EUI": "00112233445566A1", "appKey": wrapped,
                     "hsmAppKeyVersion": "hsm-eu-west-1-app-v1"})  # fmt: skip
    b = _create(sb, {"EUI": "00112233445566A2", "appKey": _rsa_encrypt(platform.pem, APP_KEY),
                     "nwkKey": wrapped_nwk, "hsmNwkKeyVersion": "hsm-eu-west-1-nwk-v1",
                     "exchangeKeyVersion": "platform-v1", "lorawanVersion": "1.1"})  # fmt: skip
    c = _create(sb, {"EUI": "00112233445566A3", "appKey": _rsa_encrypt(west.pem, APP_KEY),
                     "exchangeKeyVersion": west.version})  # fmt: skip
    for device in (a, b, c):
        assert device_store.root_keys(conn, device["UID"])[0] == APP_KEY
    assert device_store.root_keys(conn, b["UID"])[1] == NWK_KEY
    assert a["hsmAppKeyVersion"] == "hsm-eu-west-1-app-v1"
    # Wrong version, or a ciphertext of another key: 400 naming the field.
    bad = [
        ({"appKey": wrapped, "hsmAppKeyVersion": "hsm-eu-west-1-nwk-v1"}, "hsmAppKeyVersion"),
        ({"appKey": wrapped, "hsmAppKeyVersion": "hsm-eu-central-1-app-v1"}, "appKey"),
        ({"appKey": _rsa_encrypt(west.pem, APP_KEY), "exchangeKeyVersion": "platform-v1"},
         "appKey"),
        ({"appKey": _rsa_encrypt(west.pem, APP_KEY), "exchangeKeyVersion": "v9"},
         "exchangeKeyVersion"),
        ({"appKey": _rsa_encrypt(west.pem, "00" * 8), "exchangeKeyVersion": west.version},
         "appKey"),
    ]  # fmt: skip
    for body, field in bad:
        message = _create(sb, {"EUI": "00112233445566A9", **body}, 400)["message"]
        assert message.startswith(field), (body, message)


def test_owner_token_and_claim(sb: Sandbox) -> None:
    owner = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = (
        owner.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    device = _create(sb, {"EUI": "00112233445566B1", "state": "PRE_COMMISSIONED",
                          "appKey": APP_KEY, "rsaPublicKey": pem})  # fmt: skip
    assert device["state"] == "PRE_COMMISSIONED"
    token = owner.decrypt(base64.b64decode(device["ownerToken"]), OAEP).decode()
    again = sb.get(f"{DEVICES}/e00112233445566B1").json()
    assert again["ownerToken"] == device["ownerToken"]
    wrong = sb.post(f"{DEVICES}/claim", json={"EUI": "00112233445566B1", "ownerID": "me",
                                             "ownerToken": "x"})  # fmt: skip
    assert wrong.status_code == 400 and wrong.json()["message"].startswith("ownerToken")
    claimed = sb.post(f"{DEVICES}/claim", json={"EUI": "00112233445566b1", "ownerID": "acme",
                                               "ownerToken": token})  # fmt: skip
    assert claimed.status_code == 200, claimed.text
    body = KmDevice.model_validate(claimed.json())
    assert body.state == "GENERIC" and body.ownerID == "acme" and body.ownerToken is None
    twice = sb.post(f"{DEVICES}/claim", json={"EUI": "00112233445566B1", "ownerID": "x",
                                             "ownerToken": token})  # fmt: skip
    assert twice.status_code == 400 and twice.json()["message"].startswith("EUI")
    missing = sb.post(f"{DEVICES}/claim", json={"EUI": "00112233445566BF", "ownerID": "x"})
    assert missing.status_code == 404


def test_update_delete_and_states(sb: Sandbox) -> None:
    pem = _keys(sb).briefs[0].pem
    pre = _create(sb, {"EUI": "00112233445566C1", "state": "PRE_COMMISSIONED",
                       "appKey": APP_KEY, "rsaPublicKey": pem})  # fmt: skip
    refused = sb.put(f"{DEVICES}/{pre['UID']}", json={"homeNsNetID": "000013"})
    assert refused.status_code == 400 and refused.json()["message"].startswith("homeNsNetID")
    device = _create(sb, {"EUI": "00112233445566C2", "appKey": APP_KEY})
    path = f"{DEVICES}/e00112233445566C2"
    put = sb.put(
        path, params={"force": "true"}, json={"homeNsNSID": "70b3d57ed0000001", "name": "Meter"}
    )
    assert put.status_code == 200, put.text
    assert put.json()["state"] == "COMMISSIONED" and put.json()["homeNsNSID"] == "70B3D57ED0000001"
    assert sb.put(path, json={"homeNsNSID": None}).json()["state"] == "GENERIC"
    assert sb.put(path, json={"nwkKey": NWK_KEY}).status_code == 400
    assert sb.put(path, json={"EUI": "00112233445566C3"}).status_code == 400
    assert sb.put(path, json={"appKey": NWK_KEY}).status_code == 200
    assert device_store.root_keys(_conn(sb), device["UID"])[0] == NWK_KEY
    assert sb.get(f"{DEVICES}/e00112233445566c2").status_code == 404  # EUI in upper case
    before = KmStatesDistribution.model_validate(sb.get(f"{DEVICES}/states").json())
    for state in ("PRE_COMMISSIONED", "GENERIC", "COMMISSIONED", "ACTIVATED"):
        page = KmDevicePage.model_validate(
            sb.get(DEVICES, params={"state": state, "pageSize": 1000}).json()
        )
        assert page.count == before.count(state)
        assert all(d.state == state for d in page.briefs)
    every = KmDevicePage.model_validate(sb.get(DEVICES, params={"pageSize": 10}).json())
    assert every.count == before.total and every.more
    assert sb.get(DEVICES, params={"state": "OTHER"}).status_code == 400
    assert sb.client.delete(path, headers=sb.headers()).status_code == 204
    assert sb.get(path).status_code == 404
    after = KmStatesDistribution.model_validate(sb.get(f"{DEVICES}/states").json())
    assert after.total == before.total - 1
    viewer = sb.post(DEVICES, "subscriber-viewer", json={"EUI": "00112233445566C9",
                                                         "appKey": APP_KEY})  # fmt: skip
    assert viewer.status_code == 403


def test_activated_when_the_simulated_device_joins(sb: Sandbox) -> None:
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    eui = sb.all_devices(connectivity="LORAWAN")[-1]["EUI"]
    device = _create(sb, {"EUI": eui, "appKey": APP_KEY, "homeNsNetID": "000013"})
    assert device["state"] == "COMMISSIONED"
    simulator = Simulator(db, seed=1)
    simulator.step(2 * 86_400)
    assert sb.get(f"{DEVICES}/e{eui}").json()["state"] == "ACTIVATED"
    traffic = sb.get(f"{DEVICES}/e{eui}/frames").json()
    assert {f["type"] for f in traffic["briefs"]} == {"JOIN_REQUEST", "JOIN_ACCEPT"}
    assert traffic["count"] == 2
    everything = sb.get(f"{DEVICES}/frames", params={"pageSize": 10}).json()
    assert everything["count"] >= 2 and len(everything["briefs"]) == 10


@pytest.mark.parametrize("path", ["appKeyGen", "nwkKeyGen"])
def test_key_generation(sb: Sandbox, path: str) -> None:
    response = sb.post(f"{KM}/{path}", json={"count": 5})
    assert response.status_code == 201, response.text
    keys = response.json()["keys"]
    assert len(set(keys)) == 5 and all(len(k) == 32 and int(k, 16) >= 0 for k in keys)
    assert sb.post(f"{KM}/{path}", json={"count": 0}).status_code == 400
    assert sb.post(f"{KM}/{path}", "subscriber-viewer", json={"count": 1}).status_code == 403
