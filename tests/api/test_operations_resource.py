"""What the operator operations resource puts on the wire."""

from __future__ import annotations

import json

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.operations import (
    CommandQueueFilter,
    OperatorDeviceFilter,
    OperatorHsmGroupCreate,
    OperatorHsmGroupUpdate,
    ProvisioningQueueFilter,
    SimCardFilter,
)

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
OPS = f"{BASE}/admins/operators/mine"
EMPTY = {"briefs": [], "more": False, "count": 0}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_queues_send_filters_paging_and_sort(client: LpwaClient) -> None:
    prov = respx.get(f"{OPS}/provqueues").mock(return_value=httpx.Response(200, json=EMPTY))
    await client.operations.provisioning_queue(
        2, 50, filters=ProvisioningQueueFilter(subSystem="HSS_SPR"), descending=False
    )
    params = dict(prov.calls[0].request.url.params)
    assert params == {
        "pageIndex": "2", "pageSize": "50", "sort": "creationTimestamp,asc", "subSystem": "HSS_SPR"
    }  # fmt: skip
    cmd = respx.get(f"{OPS}/cmdqueues").mock(return_value=httpx.Response(200, json=EMPTY))
    await client.operations.command_queue(filters=CommandQueueFilter(type="REBOOT"))
    assert dict(cmd.calls[0].request.url.params) == {
        "pageIndex": "1", "pageSize": "100", "type": "REBOOT"
    }  # fmt: skip
    one = respx.get(f"{OPS}/provqueues/7").mock(
        return_value=httpx.Response(
            200, json={"UID": "7", "type": "DEVICE", "action": "UPDATE", "subSystem": "LRC"}
        )
    )
    item = await client.operations.provisioning_item("7")
    assert one.called and item.state == "PENDING"


@respx.mock
async def test_sims_devices_and_operator_identifier(client: LpwaClient) -> None:
    sims = respx.get(f"{BASE}/admins/operators/id%3Aop/sims").mock(
        return_value=httpx.Response(200, json=EMPTY)
    )
    await client.operations.sims(filters=SimCardFilter(imsi="208"), operator="id:op")
    assert dict(sims.calls[0].request.url.params)["imsi"] == "208"
    devices = respx.get(f"{OPS}/devices").mock(return_value=httpx.Response(200, json=EMPTY))
    await client.operations.devices(
        filters=OperatorDeviceFilter(imei="359999000000125", lorawanDebug=True)
    )
    params = dict(devices.calls[0].request.url.params)
    assert params["imei"] == "359999000000125" and params["lorawanDebug"] == "true"


@respx.mock
async def test_hsm_groups(client: LpwaClient) -> None:
    group = {"UID": "3", "ID": "g", "name": "G", "hsmNwkKeyVersion": "g-nwk-v1"}
    create = respx.post(f"{OPS}/hsmGroups").mock(return_value=httpx.Response(201, json=group))
    made = await client.operations.create_hsm_group(
        OperatorHsmGroupCreate(ID="g", name="G", subscriberID="100")
    )
    assert json.loads(create.calls[0].request.content) == {
        "ID": "g", "name": "G", "subscriberID": "100"
    }  # fmt: skip
    assert made.UID == "3"
    put = respx.put(f"{OPS}/hsmGroups/3").mock(return_value=httpx.Response(200, json=group))
    await client.operations.update_hsm_group("3", OperatorHsmGroupUpdate(hsmNwkKeyVersion="v2"))
    assert json.loads(put.calls[0].request.content) == {"hsmNwkKeyVersion": "v2"}
    get = respx.get(f"{OPS}/hsmGroups/id%3Ag").mock(return_value=httpx.Response(200, json=group))
    await client.operations.hsm_group("id:g")
    assert get.called
