"""The key manager's client resource on a mocked transport: paths, identifier forms, query
parameters and bodies."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.key_manager import KmClaim, KmDeviceFilter, KmDeviceUpdate

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
KM = f"{BASE}/kmSubscriptions/mine"
DEVICE = {"UID": 7, "EUI": "0011223344556677", "state": "GENERIC"}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_identifier_forms_and_device_paths(client: LpwaClient) -> None:
    other = respx.get(f"{BASE}/kmSubscriptions/id%3Asub%3A100").mock(
        return_value=httpx.Response(200, json={"ID": "100", "platformExchangeKeyVersion": "v1"})
    )
    by_eui = respx.get(f"{KM}/devices/e0011223344556677").mock(
        return_value=httpx.Response(200, json=DEVICE)
    )
    put = respx.put(f"{KM}/devices/7").mock(return_value=httpx.Response(200, json=DEVICE))
    deleted = respx.delete(f"{KM}/devices/e0011223344556677").mock(return_value=httpx.Response(204))
    listed = respx.get(f"{KM}/devices").mock(
        return_value=httpx.Response(200, json={"briefs": [DEVICE], "count": 1})
    )
    km = client.key_manager
    assert (await km.of("id:sub:100").subscription()).platformExchangeKeyVersion == "v1"
    assert other.called
    assert (await km.device("e0011223344556677")).UID == 7 and by_eui.called
    await km.update_device(7, KmDeviceUpdate(homeNsNetID="000013", name="x"))
    assert json.loads(put.calls[0].request.content) == {"homeNsNetID": "000013", "name": "x"}
    await km.delete_device("E0011223344556677")
    assert deleted.called
    page = await km.devices(2, 50, filters=KmDeviceFilter(state="ACTIVATED"))
    assert page.briefs[0].path_ref == "e0011223344556677"
    params = listed.calls[0].request.url.params
    assert (params["pageIndex"], params["pageSize"], params["state"]) == ("2", "50", "ACTIVATED")


@respx.mock
async def test_claim_states_traffic_and_key_generation(client: LpwaClient) -> None:
    claim = respx.post(f"{KM}/devices/claim").mock(
        return_value=httpx.Response(200, json=DEVICE | {"ownerID": "me"})
    )
    respx.get(f"{KM}/devices/states").mock(
        return_value=httpx.Response(
            200, json={"states": [{"state": "GENERIC", "count": 3}], "total": 3}
        )
    )
    traffic = respx.get(f"{KM}/devices/7/frames").mock(
        return_value=httpx.Response(200, json={"briefs": [], "count": 0})
    )
    gen = respx.post(f"{KM}/nwkKeyGen").mock(
        return_value=httpx.Response(201, json={"keys": ["00" * 16]})
    )
    customers = respx.get(f"{BASE}/kmCustomers").mock(
        return_value=httpx.Response(
            200, json={"briefs": [{"ID": "1", "subscription": {"grantedPermissions": ["x"]}}]}
        )
    )
    km = client.key_manager
    claimed = await km.claim(KmClaim(EUI="0011223344556677", ownerID="me", ownerToken="t"))
    assert claimed.ownerID == "me"
    assert json.loads(claim.calls[0].request.content) == {
        "EUI": "0011223344556677", "ownerID": "me", "ownerToken": "t"
    }  # fmt: skip
    assert (await km.states()).count("GENERIC") == 3
    await km.traffic(7, page_size=20)
    assert traffic.calls[0].request.url.params["pageSize"] == "20"
    assert (await km.generate_nwk_keys(1)).keys == ["00" * 16]
    assert json.loads(gen.calls[0].request.content) == {"count": 1}
    assert (await km.customers()).briefs[0].subscription.grantedPermissions == ["x"]
    assert customers.called
