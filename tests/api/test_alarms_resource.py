"""What the alarm resources put on the wire: sort, %3D cursors, filters, acknowledgements."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.api.resources.alarms import AlarmsResource
from lpwa_console.schema.alarms import AlarmFilter, MulticastAlarmPage
from lpwa_console.schema.common import Severity

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
DEVICES = f"{BASE}/subscriptions/mine/devices"
GROUPS = f"{BASE}/subscriptions/mine/multicastGroups"


def alarm(uid: str, **extra: object) -> dict[str, object]:
    return {"alarmUid": uid, "ID": 4, "state": 3, "level": 1, "occurrence": 1, "acked": False,
            "creationTimestamp": 1, "updateTimestamp": 2, **extra}  # fmt: skip


def device_alarm(uid: str) -> dict[str, object]:
    return alarm(uid, device={"EUI": "70B3D5E75E000001", "name": "m"})


def page(briefs: list[dict[str, object]], **extra: object) -> httpx.Response:
    return httpx.Response(200, json={"briefs": briefs, **extra})


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_list_sends_sort_and_filters(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/alarms").mock(return_value=page([device_alarm("a")], count=1))
    filters = AlarmFilter(
        state=Severity.WARNING, acked=False, ID=4, devEUI=["01", "02"], domain=["Site:Paris"]
    )
    result = await client.device_alarms.list(
        2, 50, filters=filters, sort="creationTimestamp", descending=True
    )
    assert result.briefs[0].device.name == "m"
    params = route.calls[0].request.url.params
    assert (params["pageIndex"], params["pageSize"]) == ("2", "50")
    assert params["sort"] == "creationTimestamp,desc"
    assert (params["state"], params["acked"], params["ID"]) == ("3", "false", "4")
    assert params.get_list("devEUI") == ["01", "02"]
    assert params.get_list("domain") == ["Site:Paris"]


@respx.mock
async def test_cursor_pages_by_alarm_uid_with_encoded_equals(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/alarms").mock(
        side_effect=[
            page([device_alarm("a")], count=2, more=True, cursors={"last": "YQ=="}),
            page([device_alarm("b")], more=False),
        ]
    )
    paginator = client.device_alarms.iterate(page_size=1, filters=AlarmFilter(acked=False))
    uids = [a.alarmUid async for a in paginator]
    assert uids == ["a", "b"] and paginator.count == 2
    first, second = (c.request.url for c in route.calls)
    assert "pageAfter" not in first.params and "pageIndex" not in first.params
    assert first.params["sort"] == "alarmUid,asc"
    assert b"pageAfter=YQ%3D%3D" in second.raw_path
    assert second.params["pageAfter"] == "YQ=="
    assert second.params["acked"] == "false"


async def test_cursor_needs_alarm_uid_sort(client: LpwaClient) -> None:
    with pytest.raises(ValueError, match="alarmUid"):
        await client.device_alarms.list(None, sort="state", page_after="YQ==")


@respx.mock
async def test_index_pagination_for_other_sorts(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/alarms").mock(
        side_effect=[page([device_alarm("a")], count=2, more=True), page([device_alarm("b")])]
    )
    uids = [
        a.alarmUid async for a in client.device_alarms.iterate_sorted(sort="state", page_size=1)
    ]
    assert uids == ["a", "b"]
    assert [c.request.url.params["pageIndex"] for c in route.calls] == ["1", "2"]


@respx.mock
async def test_acknowledge_body(client: LpwaClient) -> None:
    route = respx.post(f"{DEVICES}/alarms/ack").mock(return_value=httpx.Response(204))
    await client.device_alarms.acknowledge(["a", "b"])
    assert json.loads(route.calls[0].request.content) == {"alarmUids": ["a", "b"]}


@respx.mock
async def test_one_device_alarms_and_ack(client: LpwaClient) -> None:
    listed = respx.get(f"{DEVICES}/e70B3D5E75E000001/alarms").mock(return_value=page([alarm("a")]))
    acked = respx.post(f"{DEVICES}/e70B3D5E75E000001/alarms/ack").mock(
        return_value=httpx.Response(201)
    )
    one = respx.post(f"{DEVICES}/e70B3D5E75E000001/alarms/a%3D/ack").mock(
        return_value=httpx.Response(201)
    )
    filters = AlarmFilter(ID=4, state=Severity.MAJOR, acked=False, devEUI=["ignored"])
    result = await client.device_alarms.of_device("e70B3D5E75E000001", filters=filters)
    assert result.briefs[0].alarmUid == "a"
    params = listed.calls[0].request.url.params
    assert (params["ID"], params["state"], params["acked"]) == ("4", "5", "false")
    assert "devEUI" not in params
    await client.device_alarms.acknowledge_device("e70B3D5E75E000001", filters=filters)
    assert dict(acked.calls[0].request.url.params) == {"ID": "4", "state": "5"}
    await client.device_alarms.acknowledge_one("e70B3D5E75E000001", "a=")
    assert one.called


@respx.mock
async def test_deprecated_histories_warn(client: LpwaClient) -> None:
    route = respx.get(f"{DEVICES}/alarms/histories").mock(return_value=page([device_alarm("h")]))
    with pytest.warns(DeprecationWarning, match="histories"):
        result = await client.device_alarms.histories()
    assert result.briefs[0].alarmUid == "h"
    # Only the filters the histories take (no stateFiltering, no domain).
    filters = AlarmFilter(
        state=Severity.MAJOR, stateFiltering="EQUAL", domain=["Site:France/"], devEUI=["70"]
    )
    with pytest.warns(DeprecationWarning):
        await client.device_alarms.histories(2, filters=filters)
    params = route.calls[1].request.url.params
    assert sorted(params.multi_items()) == [("devEUI", "70"), ("pageIndex", "2"), ("state", "5")]


@respx.mock
async def test_one_device_cleared_state_filters(client: LpwaClient) -> None:
    """state=1 means CLEARED only on one device's list: the client says "every alarm" by
    sending no state, and "cleared only" with state=1."""
    listed = respx.get(f"{DEVICES}/7/alarms").mock(return_value=page([alarm("a")]))
    await client.device_alarms.of_device("7", filters=AlarmFilter(state=Severity.CLEARED))
    await client.device_alarms.of_device(
        "7", filters=AlarmFilter(state=Severity.CLEARED, stateFiltering="EQUAL")
    )
    assert "state" not in listed.calls[0].request.url.params
    assert listed.calls[1].request.url.params["state"] == "1"
    with pytest.raises(ValueError, match="or above"):
        await client.device_alarms.of_device(
            "7", filters=AlarmFilter(state=Severity.MINOR, stateFiltering="EQUAL")
        )


@respx.mock
async def test_multicast_alarms(client: LpwaClient) -> None:
    listed = respx.get(f"{GROUPS}/alarms").mock(
        side_effect=[
            page([alarm("m1", multicastGroup={"EUI": "AA"})], count=2, cursors={"last": "bTE="}),
            page([alarm("m2", multicastGroup={"EUI": "BB"})]),
        ]
    )
    ack = respx.post(f"{GROUPS}/alarms/ack").mock(return_value=httpx.Response(204))
    groups = [a.multicastGroup.EUI async for a in client.multicast_alarms.iterate(page_size=1)]
    assert groups == ["AA", "BB"]
    assert b"pageAfter=bTE%3D" in listed.calls[1].request.url.raw_path
    await client.multicast_alarms.acknowledge(["m1"])
    assert json.loads(ack.calls[0].request.content) == {"alarmUids": ["m1"]}


@respx.mock
async def test_one_group_alarms_and_ack(client: LpwaClient) -> None:
    listed = respx.get(f"{GROUPS}/7/alarms").mock(return_value=page([alarm("g")]))
    acked = respx.post(f"{GROUPS}/7/alarms/ack").mock(return_value=httpx.Response(201))
    one = respx.post(f"{GROUPS}/7/alarms/g/ack").mock(return_value=httpx.Response(201))
    await client.multicast_alarms.of_group("7", 2)
    assert listed.calls[0].request.url.params["pageIndex"] == "2"
    await client.multicast_alarms.acknowledge_group("7")
    await client.multicast_alarms.acknowledge_one("7", "g")
    assert acked.called and one.called


@respx.mock
async def test_alarms_resource_is_parameterised_by_path_and_page(client: LpwaClient) -> None:
    """Device and multicast alarms are one class: any owner collection works the same way."""
    other = f"{BASE}/subscriptions/mine/others"
    listed = respx.get(f"{other}/alarms").mock(
        return_value=page([alarm("o", multicastGroup={"EUI": "CC"})], count=1)
    )
    ack = respx.post(f"{other}/alarms/ack").mock(return_value=httpx.Response(204))
    owner = respx.get(f"{other}/x%2Fy/alarms").mock(return_value=page([alarm("p")]))
    owner_ack = respx.post(f"{other}/x%2Fy/alarms/ack").mock(return_value=httpx.Response(201))
    one = respx.post(f"{other}/x%2Fy/alarms/p/ack").mock(return_value=httpx.Response(201))
    resource = AlarmsResource(client, "/subscriptions/mine/others", MulticastAlarmPage)
    result = await resource.list(descending=True, sort="state")
    assert isinstance(result, MulticastAlarmPage) and result.briefs[0].multicastGroup.EUI == "CC"
    assert listed.calls[0].request.url.params["sort"] == "state,desc"
    assert [a.alarmUid async for a in resource.iterate()] == ["o"]
    await resource.acknowledge(["o"])
    assert json.loads(ack.calls[0].request.content) == {"alarmUids": ["o"]}
    assert (await resource.of_owner("x/y", filters=AlarmFilter(acked=True))).briefs[0].ID == 4
    assert owner.calls[0].request.url.params["acked"] == "true"
    await resource.acknowledge_owner("x/y", filters=AlarmFilter(acked=True, ID=4))
    assert dict(owner_ack.calls[0].request.url.params) == {"ID": "4"}
    await resource.acknowledge_one("x/y", "p")
    assert one.called


async def test_device_and_multicast_resources_keep_their_names(client: LpwaClient) -> None:
    devices, groups = client.device_alarms, client.multicast_alarms
    assert isinstance(devices, AlarmsResource) and isinstance(groups, AlarmsResource)
    assert devices.path.endswith("/devices") and groups.path.endswith("/multicastGroups")
    assert devices.of_device == devices.of_owner
    assert devices.acknowledge_device == devices.acknowledge_owner
    assert groups.of_group == groups.of_owner
    assert groups.acknowledge_group == groups.acknowledge_owner
    assert not hasattr(groups, "histories")
