"""What the multicast group resource puts on the wire."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.frames import MULTICAST_RATIO_RANGES
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


AGGREGATED = {
    "briefs": [
        {"timestamp": 1_577_836_800_000, "successfulTransmissionValues": [
            {"count": 5, "size": 52}, {"count": 3, "size": 35}, {"count": 2, "size": 19},
            {"count": 0, "size": 0}]},
        {"timestamp": 1_577_923_200_000, "successfulTransmissionValues": [
            {"count": 7, "size": 64}, {"count": 0, "size": 0}, {"count": 3, "size": 41},
            {"count": 1, "size": 11}]},
    ],
    "now": 1_577_923_300_000,
}  # fmt: skip


@respx.mock
async def test_frames_aggregated_of_all_groups_and_one(client: LpwaClient) -> None:
    every = respx.get(f"{GROUPS}/frames/aggregated").mock(
        return_value=httpx.Response(200, json=AGGREGATED)
    )
    one = respx.get(f"{GROUPS}/e70B3D5E75E00FF01/frames/aggregated").mock(
        return_value=httpx.Response(200, json=AGGREGATED)
    )
    history = await client.multicast_groups.frames_aggregated(
        step="DAY", duration=timedelta(days=2), timezone="Europe/Paris", app_server_id="as-1"
    )
    params = every.calls[0].request.url.params
    assert dict(params) == {
        "step": "P1D", "duration": "P2D", "timezone": "Europe/Paris", "appServerID": "as-1"
    }  # fmt: skip
    # No ratio ranges in the answer: the platform's usual four apply.
    assert history.ranges == MULTICAST_RATIO_RANGES
    assert history.series() == ([1_577_836_800_000, 1_577_923_200_000], [10, 11], [5, 7])
    begin = datetime(2020, 1, 1, tzinfo=UTC)
    await client.multicast_groups.frames_aggregated("e70B3D5E75E00FF01", begin=begin)
    assert dict(one.calls[0].request.url.params) == {
        "begin": "2020-01-01T00:00:00.000Z", "step": "PT1H"
    }  # fmt: skip
    with pytest.raises(ValueError, match="appServerID"):
        await client.multicast_groups.frames_aggregated("e70B3D5E75E00FF01", app_server_id="x")
    # The replacement does not warn; the deprecated lists name it.
    respx.get(f"{GROUPS}/frames").mock(return_value=httpx.Response(200, json={"briefs": []}))
    with pytest.warns(DeprecationWarning, match="frames_aggregated"):
        await client.multicast_groups.frames()


@respx.mock
async def test_single_group_answers_need_no_alarm_counts(client: LpwaClient) -> None:
    bare = {"EUI": "70B3D5E75E00FF01", "name": "g", "class": "C"}
    respx.get(f"{GROUPS}/e70B3D5E75E00FF01").mock(return_value=httpx.Response(200, json=bare))
    respx.post(GROUPS).mock(return_value=httpx.Response(201, json=bare))
    respx.put(f"{GROUPS}/e70B3D5E75E00FF01").mock(return_value=httpx.Response(200, json=bare))
    assert (await client.multicast_groups.get("e70B3D5E75E00FF01")).alarm_counts is None
    created = await client.multicast_groups.create(
        MulticastGroupCreate(EUI="70B3D5E75E00FF01", nwAddress="01020304", appSKey=KEY)
    )
    assert created.class_ == "C"
    updated = await client.multicast_groups.update(
        "e70B3D5E75E00FF01", MulticastGroupUpdate(name="g")
    )
    assert updated.name == "g"
