"""Key-manager rules of issue 21 §4: an RSA public key in either PEM encoding, `/kmCustomers`
paged and validated as every list, a partial PUT of an AS key keeping what it does not
name, and states that cannot apply refused with the reason instead of replaced."""

from __future__ import annotations

import base64
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from lpwa_console.schema.network import rsa_public_key_from_pem

from .conftest import API, Sandbox

KM = f"{API}/kmSubscriptions/mine"
DEVICES = f"{KM}/devices"
APP_KEY = "000102030405060708090A0B0C0D0E0F"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def _pem(key: rsa.RSAPrivateKey, form: serialization.PublicFormat) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM, form).decode()


def test_a_pkcs1_public_key_pre_commissions_as_an_spki_one(sb: Sandbox) -> None:
    owner = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pkcs1 = _pem(owner, serialization.PublicFormat.PKCS1)
    spki = _pem(owner, serialization.PublicFormat.SubjectPublicKeyInfo)
    assert pkcs1.startswith("-----BEGIN RSA PUBLIC KEY-----")
    numbers = owner.public_key().public_numbers()
    assert rsa_public_key_from_pem(pkcs1) == rsa_public_key_from_pem(spki) == (
        numbers.n, numbers.e,
    )  # fmt: skip
    for eui, pem in (("00112233445566D1", pkcs1), ("00112233445566D2", spki)):
        made = sb.post(DEVICES, json={"EUI": eui, "state": "PRE_COMMISSIONED",
                                      "appKey": APP_KEY, "rsaPublicKey": pem})  # fmt: skip
        assert made.status_code == 201, made.text
        # The owner token is encrypted for that key: its private half opens it.
        token = owner.decrypt(base64.b64decode(made.json()["ownerToken"]), OAEP).decode()
        claimed = sb.post(f"{DEVICES}/claim", json={"EUI": eui, "ownerID": "me",
                                                   "ownerToken": token})  # fmt: skip
        assert claimed.status_code == 200, claimed.text
    # A PKCS#1 body under an SPKI armour (and garbage) is still refused, naming the field.
    body = pkcs1.replace("RSA PUBLIC KEY", "PUBLIC KEY")
    for bad in (body, "-----BEGIN RSA PUBLIC KEY-----\nMAA=\n-----END RSA PUBLIC KEY-----"):
        refused = sb.post(DEVICES, json={"EUI": "00112233445566D3", "state": "PRE_COMMISSIONED",
                                         "appKey": APP_KEY, "rsaPublicKey": bad})  # fmt: skip
        assert refused.status_code == 400
        assert refused.json()["message"].startswith("rsaPublicKey"), refused.text


def test_km_customers_page_and_validate_as_every_list(sb: Sandbox) -> None:
    first = sb.get(f"{API}/kmCustomers")
    assert first.status_code == 200
    assert first.json()["count"] == 1 and len(first.json()["briefs"]) == 1
    second = sb.get(f"{API}/kmCustomers", params={"pageIndex": 2})
    assert second.status_code == 200
    assert second.json() == {"briefs": [], "more": False}  # no count past the first page
    for params in ({"pageIndex": 0}, {"pageSize": "abc"}, {"pageIndex": "x"}):
        for path in (f"{API}/kmCustomers", f"{KM}/asKeys"):  # the same answer as any list
            refused = sb.get(path, params=params)
            assert refused.status_code == 400, (path, params)
            assert refused.json()["message"].startswith(next(iter(params))), refused.text


def _as_key(sb: Sandbox, uid: int) -> dict[str, Any]:
    return dict(sb.get(f"{KM}/asKeys/{uid}").json())


def test_a_partial_put_of_an_as_key_keeps_what_it_does_not_name(sb: Sandbox) -> None:
    made = sb.post(f"{KM}/asKeys", json={"ID": "partial", "name": "Partial",
                                         "hsmSecurity": {"asKeyLabel": "label-1"}})  # fmt: skip
    assert made.status_code == 201, made.text
    uid = made.json()["UID"]
    assert made.json()["hsmSecurity"] == {"asKeyLabel": "label-1", "asKeyWrapAlgo": "AES_CBC"}
    renamed = sb.put(f"{KM}/asKeys/{uid}", json={"name": "Renamed"})
    assert renamed.status_code == 200
    assert renamed.json()["hsmSecurity"]["asKeyLabel"] == "label-1"
    algo = sb.put(f"{KM}/asKeys/{uid}", json={"hsmSecurity": {"asKeyWrapAlgo": "AES_CBC"}})
    assert algo.status_code == 200, algo.text
    assert _as_key(sb, uid)["hsmSecurity"] == {"asKeyLabel": "label-1", "asKeyWrapAlgo": "AES_CBC"}
    assert _as_key(sb, uid)["name"] == "Renamed"
    label = sb.put(f"{KM}/asKeys/{uid}", json={"hsmSecurity": {"asKeyLabel": "label-2"}})
    assert label.json()["hsmSecurity"] == {"asKeyLabel": "label-2", "asKeyWrapAlgo": "AES_CBC"}
    # Named as null, it is cleared.
    cleared = sb.put(f"{KM}/asKeys/{uid}", json={"hsmSecurity": {"asKeyLabel": None}})
    assert "asKeyLabel" not in cleared.json()["hsmSecurity"]
    # Sent back whole as read: nothing changes.
    whole = _as_key(sb, uid)
    again = sb.put(f"{KM}/asKeys/{uid}", json=whole)
    assert again.status_code == 200 and again.json() == whole


def test_states_that_cannot_apply_are_refused_with_the_reason(sb: Sandbox) -> None:
    generic = sb.post(DEVICES, json={"EUI": "00112233445566E1", "appKey": APP_KEY,
                                     "state": "GENERIC", "homeNsNetID": "000013"})  # fmt: skip
    assert generic.status_code == 400
    assert generic.json()["message"].startswith("state: a GENERIC device has no home network")
    assert sb.get(f"{DEVICES}/e00112233445566E1").status_code == 404  # nothing made
    made = sb.post(DEVICES, json={"EUI": "00112233445566E1", "appKey": APP_KEY})
    assert made.status_code == 201 and made.json()["state"] == "GENERIC"
    path = f"{DEVICES}/e00112233445566E1"
    for state, reason in (
        ("ACTIVATED", "when the network hears it join"),
        ("COMMISSIONED", "by setting its home network"),
        ("PRE_COMMISSIONED", "only when created"),
    ):
        refused = sb.put(path, json={"state": state, "name": "x"})
        assert refused.status_code == 400, refused.text
        message = refused.json()["message"]
        assert message.startswith(f"state: {state} cannot be requested") and reason in message
        assert "this update leaves the device GENERIC" in message
    assert sb.get(path).json().get("name") is None  # a refused PUT changes nothing
    # The state the update leaves may be sent (read, changed, sent back), or asked for.
    read = sb.get(path).json()
    assert sb.put(path, json=read | {"name": "Back"}).status_code == 200
    moved = sb.put(path, json={"state": "COMMISSIONED", "homeNsNetID": "000013"})
    assert moved.status_code == 200 and moved.json()["state"] == "COMMISSIONED"
    back = sb.put(path, json={"state": "GENERIC", "homeNsNetID": None})
    assert back.status_code == 200 and back.json()["state"] == "GENERIC"
    unknown = sb.put(path, json={"state": "LOST"})
    assert unknown.status_code == 400 and unknown.json()["message"].startswith("state")
