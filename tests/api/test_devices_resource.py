"""What the devices resource puts on the wire (paths, repeated filters, cursor encoding)."""

from __future__ import annotations

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.devices import DeviceFilter

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
DEVICES = f"{BASE}/subscriptions/mine/devices"


def page(briefs: list[dict[str, object]], **extra: object) -> httpx.Response:
    return httpx.Response(200, json={"briefs": briefs, **extra})


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_list_sends_every_filter(client: LpwaClient) -> None:
    route = respx.get(DEVICES).mock(return_value=page([], count=0, more=False))
    filters = DeviceFilter(
        appServerID=["as-1", "as-2"],
        asTransportKeyID="tk-1",
        connectivity="CELLULAR",
        networkContextID="ctx-1",
        simID="20801",
        imei="49015420323751",
        tag=["water"],
    )
    await client.devices.list(3, 50, filters=filters, sort="name", descending=True)
    params = route.calls[0].request.url.params
    assert params.get_list("appServerID") == ["as-1", "as-2"]
    assert params["asTransportKeyID"] == "tk-1"
    assert params["networkContextID"] == "ctx-1"
    assert params["simID"] == "20801"
    assert params["imei"] == "49015420323751"
    assert (params["pageIndex"], params["pageSize"], params["sort"]) == ("3", "50", "name,desc")


@respx.mock
async def test_index_pagination_follows_more(client: LpwaClient) -> None:
    route = respx.get(DEVICES).mock(
        side_effect=[
            page([{"EUI": "01", "name": "a"}], count=2, more=True),
            page([{"EUI": "02", "name": "b"}], more=False),
        ]
    )
    paginator = client.devices.iterate(page_size=1)
    names = [d.name async for d in paginator]
    assert names == ["a", "b"]
    assert paginator.count == 2
    assert [c.request.url.params["pageIndex"] for c in route.calls] == ["1", "2"]


@respx.mock
async def test_cursor_pagination_encodes_trailing_equals(client: LpwaClient) -> None:
    route = respx.get(DEVICES).mock(
        side_effect=[
            page([{"EUI": "01", "name": "a"}], count=2, more=True, cursors={"last": "MDE="}),
            page([{"EUI": "02", "name": "b"}], more=False),
        ]
    )
    euis = [d.EUI async for d in client.devices.iterate_by_cursor(page_size=1)]
    assert euis == ["01", "02"]
    second = route.calls[1].request.url
    assert b"pageAfter=MDE%3D" in second.raw_path
    assert second.params["sort"] == "EUI,asc"


@respx.mock
async def test_device_paths_use_identifier_forms(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/e70B3D5E75E000001").mock(
        return_value=httpx.Response(200, json={"EUI": "70B3D5E75E000001", "name": "x"})
    )
    device = await client.devices.get("e70B3D5E75E000001")
    assert device.name == "x" and route.called


@respx.mock
async def test_tag_body_and_untag(client: LpwaClient) -> None:
    route = respx.post(f"{DEVICES}/tags").mock(return_value=httpx.Response(200, json={"count": 1}))
    await client.devices.untag("water", ["70B3D5E75E000001"])
    request = route.calls[0].request
    body = request.read()
    assert b'"action":"UNTAG"' in body and b'"devEUIs":["70B3D5E75E000001"]' in body
    # Also as a query parameter: the 7.3 contract reads it there (its body has none).
    assert request.url.params["action"] == "UNTAG"


@respx.mock
async def test_delete_addresses_the_device(client: LpwaClient) -> None:
    route = respx.delete(f"{DEVICES}/e70B3D5E75E000001").mock(return_value=httpx.Response(204))
    assert await client.devices.delete("e70B3D5E75E000001") is None
    assert route.called


@respx.mock
async def test_domain_filter_repeats_and_devices_read_now(client: LpwaClient) -> None:
    route = respx.get(DEVICES).mock(
        return_value=page([], count=0, more=False, now="2026-01-02T03:04:05.678Z")
    )
    filters = DeviceFilter(domain=["Site:France/Caen", "Vertical:Location"])
    listed = await client.devices.list(filters=filters)
    params = route.calls[0].request.url.params
    assert params.get_list("domain") == ["Site:France/Caen", "Vertical:Location"]
    assert listed.now is not None and listed.now.year == 2026
    with pytest.raises(ValueError, match="group:name"):
        DeviceFilter(domain=["France/Caen"])


@respx.mock
async def test_deprecated_tags_endpoint_warns(client: LpwaClient) -> None:
    respx.get(f"{DEVICES}/5/tags").mock(return_value=page([{"name": "t", "href": "/x"}]))
    with pytest.warns(DeprecationWarning, match="deprecated"):
        tags = await client.devices.tags_of("5")
    assert tags.briefs[0].name == "t"


@respx.mock
async def test_clusters_bbox(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/clusters").mock(
        return_value=httpx.Response(200, json={"count": 0, "clusters": []})
    )
    await client.devices.clusters(
        48.0, 2.0, 49.0, 3.0, filters=DeviceFilter(connectivity="LORAWAN")
    )
    params = route.calls[0].request.url.params
    assert (params["minLat"], params["maxLon"], params["connectivity"]) == (
        "48.0",
        "3.0",
        "LORAWAN",
    )
