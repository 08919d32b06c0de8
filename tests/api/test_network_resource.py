"""Network contexts, AS transport keys, HSM groups, network subscriptions, exchange key."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.api.errors import APIResponseValidationError
from lpwa_console.schema.network import (
    PEM_MEDIA_TYPE,
    AsTransportKeyCreate,
    AsTransportKeyUpdate,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
    NetworkSubscriptionFilter,
    PublicRsaJsonWebKey,
)

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
MINE = f"{BASE}/subscriptions/mine"


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_network_context_crud(client: LpwaClient) -> None:
    ctx = {"ID": "ctx-1", "name": "IoT"}
    listed = respx.get(f"{MINE}/cellularNetworkContexts").mock(
        return_value=httpx.Response(200, json={"briefs": [ctx], "count": 1})
    )
    created = respx.post(f"{MINE}/cellularNetworkContexts").mock(
        return_value=httpx.Response(201, json=ctx)
    )
    one = f"{MINE}/cellularNetworkContexts/ctx-1"
    respx.get(one).mock(return_value=httpx.Response(200, json=ctx))
    put = respx.put(one).mock(return_value=httpx.Response(200, json=ctx))
    deleted = respx.delete(one).mock(return_value=httpx.Response(204))

    assert (await client.network_contexts.list()).briefs[0].ID == "ctx-1"
    assert listed.calls[0].request.url.params["pageIndex"] == "1"
    await client.network_contexts.create(
        CellularNetworkContextCreate(ID="ctx-1", name="IoT", apn="iot.example")
    )
    assert json.loads(created.calls[0].request.content) == {
        "ID": "ctx-1",
        "name": "IoT",
        "apn": "iot.example",
    }
    assert (await client.network_contexts.get("ctx-1")).name == "IoT"
    await client.network_contexts.update("ctx-1", CellularNetworkContextUpdate(name="New"))
    assert json.loads(put.calls[0].request.content) == {"name": "New"}
    await client.network_contexts.delete("ctx-1")
    assert deleted.called


@respx.mock
async def test_as_transport_key_crud_encodes_ids(client: LpwaClient) -> None:
    key = {"ID": "a/b", "name": "K"}
    respx.get(f"{MINE}/asTransportKeys").mock(
        return_value=httpx.Response(200, json={"briefs": [key]})
    )
    created = respx.post(f"{MINE}/asTransportKeys").mock(return_value=httpx.Response(201, json=key))
    one = f"{MINE}/asTransportKeys/a%2Fb"
    got = respx.get(one).mock(return_value=httpx.Response(200, json=key))
    put = respx.put(one).mock(return_value=httpx.Response(200, json=key))
    deleted = respx.delete(one).mock(return_value=httpx.Response(204))
    assert (await client.as_transport_keys.list()).briefs[0].name == "K"
    await client.as_transport_keys.create(AsTransportKeyCreate(ID="tk-1", name="K"))
    assert json.loads(created.calls[0].request.content) == {"ID": "tk-1", "name": "K"}
    await client.as_transport_keys.get("a/b")
    await client.as_transport_keys.update("a/b", AsTransportKeyUpdate(name="L"))
    await client.as_transport_keys.delete("a/b")
    assert got.called and put.called and deleted.called


@respx.mock
async def test_hsm_groups_and_exchange_key(client: LpwaClient) -> None:
    respx.get(f"{MINE}/hsmGroups").mock(
        return_value=httpx.Response(200, json={"briefs": [{"ID": "hsm-1", "name": "H"}]})
    )
    key = respx.get(f"{MINE}/publicExchangeKey").mock(
        return_value=httpx.Response(200, json={"kid": "1", "kty": "RSA", "n": "n", "e": "AQAB"})
    )
    assert (await client.hsm_groups.list()).briefs[0].ID == "hsm-1"
    await client.hsm_groups.public_exchange_key("hsm-1")
    await client.hsm_groups.public_exchange_key()
    assert dict(key.calls[0].request.url.params) == {"hsmGroupID": "hsm-1"}
    assert dict(key.calls[1].request.url.params) == {}
    # The client asks for the representation it parses: the JWK, not generic JSON.
    assert key.calls[0].request.headers["accept"] == "application/jwk+json"


@respx.mock
async def test_exchange_key_as_pem(client: LpwaClient) -> None:
    jwk = PublicRsaJsonWebKey(kid="k", n="u" * 342 + "w", e="AQAB")
    key = respx.get(f"{MINE}/publicExchangeKey").mock(
        side_effect=[
            httpx.Response(200, text=jwk.pem(), headers={"content-type": PEM_MEDIA_TYPE}),
            httpx.Response(200, json=jwk.model_dump()),
        ]
    )
    assert await client.hsm_groups.public_exchange_key_pem("hsm-1") == jwk.pem()
    request = key.calls[0].request
    assert request.headers["accept"] == "application/x-pem-file"
    assert dict(request.url.params) == {"hsmGroupID": "hsm-1"}
    with pytest.raises(APIResponseValidationError, match="PEM"):
        await client.hsm_groups.public_exchange_key_pem()


@respx.mock
async def test_other_calls_still_accept_json(client: LpwaClient) -> None:
    route = respx.get(f"{MINE}/hsmGroups").mock(
        return_value=httpx.Response(200, json={"briefs": []})
    )
    await client.hsm_groups.list()
    assert route.calls[0].request.headers["accept"] == "application/json"


@respx.mock
async def test_network_subscriptions(client: LpwaClient) -> None:
    brief = {"ID": "ns-1", "hsmGroupID": "hsm-1", "platformKafkaRouting": True}
    listed = respx.get(f"{MINE}/networkSubscriptions").mock(
        return_value=httpx.Response(200, json={"briefs": [brief], "count": 1})
    )
    respx.get(f"{MINE}/networkSubscriptions/7").mock(return_value=httpx.Response(200, json=brief))
    page = await client.network_subscriptions.list(
        filters=NetworkSubscriptionFilter(connectivity="LORAWAN")
    )
    assert page.briefs[0].platformKafkaRouting
    assert listed.calls[0].request.url.params["connectivity"] == "LORAWAN"
    assert (await client.network_subscriptions.get(7)).hsmGroupID == "hsm-1"


@respx.mock
async def test_managed_network_tag_suggestions(client: LpwaClient) -> None:
    route = respx.get(f"{MINE}/managedCustomerNetwork/bss/tags/suggestions").mock(
        return_value=httpx.Response(200, json={"briefs": [], "query": "x"})
    )
    result = await client.network_subscriptions.managed_network_bs_tag_suggestions("x")
    assert result.query == "x" and route.calls[0].request.url.params["query"] == "x"
