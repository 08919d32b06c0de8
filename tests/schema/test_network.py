import base64

import pytest
from pydantic import ValidationError

from lpwa_console.schema.network import (
    AsTransportKeyCreate,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
    HsmGroupPage,
    NetworkSubscription,
    NetworkSubscriptionFilter,
    NetworkSubscriptionPage,
    PublicRsaJsonWebKey,
    b64url_int,
    rsa_public_key_from_pem,
)


def test_network_context_rules_name_the_field() -> None:
    ctx = CellularNetworkContextCreate(
        ID="ctx-1", name="IoT APN", apn="iot.example", plmnID="20801"
    )
    assert ctx.to_wire() == {
        "ID": "ctx-1",
        "name": "IoT APN",
        "apn": "iot.example",
        "plmnID": "20801",
    }
    for field, value in [("apn", "bad apn"), ("plmnID", "2080"), ("ID", "has space")]:
        with pytest.raises(ValidationError) as info:
            CellularNetworkContextCreate.model_validate({"ID": "c", "name": "n", field: value})
        assert info.value.errors()[0]["loc"][0] == field
    # The ID cannot change: kept aside for the server to compare, never sent as a change.
    sent_back = CellularNetworkContextUpdate.model_validate({"ID": "other", "href": "/x"})
    assert sent_back.to_wire() == {} and sent_back.fixed_values() == {"ID": "other"}


def test_as_transport_key_needs_id_and_name() -> None:
    with pytest.raises(ValidationError, match="name"):
        AsTransportKeyCreate.model_validate({"ID": "tk"})


def test_hsm_groups_and_subscriptions() -> None:
    # A string (§2.7); a number from an older server reads as its text.
    groups = HsmGroupPage.model_validate(
        {"briefs": [{"ID": "hsm-1", "hsmExchangeKeyVersion": 2},
                    {"ID": "hsm-2", "hsmExchangeKeyVersion": "TWK1"}, {"ID": "hsm-3"}]}
    )  # fmt: skip
    assert [g.hsmExchangeKeyVersion for g in groups.briefs] == ["2", "TWK1", None]
    with pytest.raises(ValidationError):
        HsmGroupPage.model_validate({"briefs": [{"ID": "h", "hsmExchangeKeyVersion": True}]})
    page = NetworkSubscriptionPage.model_validate(
        {
            "briefs": [
                {
                    "ID": "ns-1",
                    "commercialName": "Basic",
                    "connectivity": "LORAWAN",
                    "hsmGroupID": "hsm-1",
                    "platformCloudRouting": True,
                    "thirdPartyAppServersRouting": True,
                }
            ],
            "count": 1,
        }
    )
    brief = page.briefs[0]
    assert brief.label == "Basic" and brief.hsmGroupID == "hsm-1"
    assert (brief.platformCloudRouting, brief.platformKafkaRouting) == (True, False)
    single = NetworkSubscription.model_validate({"ID": "ns-1", "name": "N", "adrVersion": 2})
    assert single.model_extra == {"adrVersion": 2}


def test_subscription_filter_and_jwk() -> None:
    assert NetworkSubscriptionFilter(connectivity="CELLULAR").to_params() == [
        ("connectivity", "CELLULAR")
    ]
    key = PublicRsaJsonWebKey.model_validate({"kid": "1", "kty": "RSA", "n": "abc", "e": "AQAB"})
    assert key.e == "AQAB"
    with pytest.raises(ValidationError, match="kty"):
        PublicRsaJsonWebKey.model_validate({"kid": "1", "kty": "EC", "n": "a", "e": "b"})


def test_jwk_and_pem_are_the_same_key() -> None:
    n = (1 << 2047) | 12345
    n_text = base64.urlsafe_b64encode(n.to_bytes(256, "big")).rstrip(b"=").decode()
    jwk = PublicRsaJsonWebKey(kid="platform-v1", n=n_text, e="AQAB")
    pem = jwk.pem()
    lines = pem.strip().splitlines()
    assert lines[0] == "-----BEGIN PUBLIC KEY-----" and lines[-1] == "-----END PUBLIC KEY-----"
    assert all(len(line) <= 64 for line in lines)
    # The SubjectPublicKeyInfo prefix of every 2048-bit RSA key (as in the reference example).
    assert lines[1].startswith("MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA")
    assert rsa_public_key_from_pem(pem) == (n, 65537)
    assert b64url_int("AQAB") == 65537
    for bad in ("nope", "-----BEGIN PUBLIC KEY-----\n!!\n-----END PUBLIC KEY-----",
                "-----BEGIN PUBLIC KEY-----\nMAA=\n-----END PUBLIC KEY-----"):  # fmt: skip
        with pytest.raises(ValueError):
            rsa_public_key_from_pem(bad)
