"""What the multicast group resource puts on the wire."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.multicast import (
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupUpdate,
)

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
GROUPS = f"{BASE}/subscriptions/mine/multicastGroups"
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
GROUP = {"EUI": "70B3D5E75E00FF01", "name": "g", **{f"alarm{i}": 0 for i in range(1, 7)}}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_list_repeats_app_server_id(client: LpwaClient) -> None:
    route = respx.get(GROUPS).mock(
        return_value=httpx.Response(200, json={"briefs": [{**GROUP, "alarm5": 2}], "count": 1})
    )
    filters = MulticastGroupFilter(appServerID=["as-1", "as-2"], name="g")
    result = await client.multicast_groups.list(1, 20, filters=filters, sort="name")
    assert result.briefs[0].alarm5 == 2
    params = route.calls[0].request.url.params
    assert params.get_list("appServerID") == ["as-1", "as-2"]
    assert (params["name"], params["sort"], params["pageSize"]) == ("g", "name,asc", "20")


@respx.mock
async def test_create_get_update_delete(client: LpwaClient) -> None:
    created = respx.post(GROUPS).mock(return_value=httpx.Response(201, json=GROUP))
    got = respx.get(f"{GROUPS}/e70B3D5E75E00FF01").mock(
        return_value=httpx.Response(200, json=GROUP)
    )
    put = respx.put(f"{GROUPS}/e70B3D5E75E00FF01").mock(
        return_value=httpx.Response(200, json=GROUP)
    )
    deleted = respx.delete(f"{GROUPS}/12").mock(return_value=httpx.Response(204))

    body = MulticastGroupCreate(EUI="70B3D5E75E00FF01", nwAddress="01020304", appSKey=KEY)
    group = await client.multicast_groups.create(body)
    assert json.loads(created.calls[0].request.content) == {
        "EUI": "70B3D5E75E00FF01",
        "nwAddress": "01020304",
        "appSKey": KEY,
        "name": "70B3D5E75E00FF01",
    }
    await client.multicast_groups.get(group.path_ref)
    await client.multicast_groups.update(
        group.path_ref, MulticastGroupUpdate(appSKey=KEY, appServers=[{"ID": "as-1"}])
    )
    assert json.loads(put.calls[0].request.content) == {
        "appSKey": KEY,
        "appServers": [{"ID": "as-1"}],
    }
    await client.multicast_groups.delete("12")
    assert got.called and deleted.called


@respx.mock
async def test_bs_tag_suggestions(client: LpwaClient) -> None:
    route = respx.get(f"{GROUPS}/bss/tags/suggestions").mock(
        return_value=httpx.Response(
            200, json={"briefs": [{"name": "roof", "namespace": "SUBSCRIBER"}], "query": "ro"}
        )
    )
    result = await client.multicast_groups.bs_tag_suggestions("ro")
    assert result.briefs[0].name == "roof" and route.calls[0].request.url.params["query"] == "ro"


@respx.mock
async def test_deprecated_frames_warn(client: LpwaClient) -> None:
    every = respx.get(f"{GROUPS}/frames").mock(
        return_value=httpx.Response(200, json={"briefs": []})
    )
    one = respx.get(f"{GROUPS}/e70B3D5E75E00FF01/frames").mock(
        return_value=httpx.Response(200, json={"briefs": [{"timestamp": 1, "status": "ABORTED"}]})
    )
    with pytest.warns(DeprecationWarning):
        await client.multicast_groups.frames()
    with pytest.warns(DeprecationWarning):
        frames = await client.multicast_groups.frames("e70B3D5E75E00FF01", duration="P1D")
    assert frames.briefs[0].status == "ABORTED"
    assert one.calls[0].request.url.params["duration"] == "P1D" and every.called
