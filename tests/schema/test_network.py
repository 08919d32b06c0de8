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
    with pytest.raises(ValidationError):
        CellularNetworkContextUpdate.model_validate({"ID": "other"})  # the ID cannot change


def test_as_transport_key_needs_id_and_name() -> None:
    with pytest.raises(ValidationError, match="name"):
        AsTransportKeyCreate.model_validate({"ID": "tk"})


def test_hsm_groups_and_subscriptions() -> None:
    groups = HsmGroupPage.model_validate({"briefs": [{"ID": "hsm-1", "hsmExchangeKeyVersion": 2}]})
    assert groups.briefs[0].hsmExchangeKeyVersion == 2
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
