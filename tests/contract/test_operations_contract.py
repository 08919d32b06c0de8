"""The real client's operator operations against a real sandbox process: every method of
`client.operations` once (queues with filters and both orders, items, SIM cards, devices with
`imei` and `lorawanDebug`, HSM groups created, read and rotated), so a path, parameter or body
the two sides read differently fails here."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import APIStatusError, Credentials, LpwaClient
from lpwa_console.schema.devices import DeviceCreate
from lpwa_console.schema.operations import (
    CommandQueueFilter,
    OperatorDeviceFilter,
    OperatorHsmGroupCreate,
    OperatorHsmGroupUpdate,
    ProvisioningQueueFilter,
    SimCardFilter,
)

pytestmark = pytest.mark.anyio


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def operator(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "operator") as c:
        yield c  # type: ignore[misc]


async def test_provisioning_follows_a_new_cellular_device(operator: LpwaClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber") as subscriber:
        await subscriber.devices.create(
            DeviceCreate.model_validate(
                {"EUI": "35888800000777", "connectivity": "CELLULAR", "imsi": "208018888000777"}
            )
        )
    pgw = await operator.operations.provisioning_queue(
        1, 10, filters=ProvisioningQueueFilter(subSystem="PGW")
    )
    assert pgw.count and pgw.briefs[0].entityID == "35888800000777"
    assert all(item.subSystem == "PGW" for item in pgw.briefs)
    oldest = await operator.operations.provisioning_queue(1, 10, descending=False)
    assert int(oldest.briefs[0].UID) < int(pgw.briefs[0].UID)
    item = await operator.operations.provisioning_item(pgw.briefs[0].UID)
    assert item.type == "DEVICE" and item.action == "ACTIVATION"
    sims = await operator.operations.sims(filters=SimCardFilter(imsi="2080188880"))
    assert [s.IMSI for s in sims.briefs] == ["208018888000777"]
    devices = await operator.operations.devices(filters=OperatorDeviceFilter(imei="35888800000777"))
    assert [d.imei for d in devices.briefs] == ["35888800000777"]
    debug = await operator.operations.devices(
        1, 10, filters=OperatorDeviceFilter(lorawanDebug=True)
    )
    assert debug.briefs and all(d.lorawanDebug for d in debug.briefs)


async def test_command_queue_and_hsm_groups(operator: LpwaClient) -> None:
    page = await operator.operations.command_queue(1, 10, filters=CommandQueueFilter(type="REBOOT"))
    assert all(item.type == "REBOOT" for item in page.briefs)
    if page.briefs:
        one = await operator.operations.command(page.briefs[0].UID)
        assert one.UID == page.briefs[0].UID
    with pytest.raises(APIStatusError) as missing:
        await operator.operations.command("987654321")
    assert missing.value.status_code == 404
    groups = await operator.operations.hsm_groups()
    subscriber = groups.briefs[0].subscriberID
    assert subscriber
    made = await operator.operations.create_hsm_group(
        OperatorHsmGroupCreate(ID="contract-hsm", name="Contract HSM", subscriberID=subscriber)
    )
    assert made.hsmNwkKeyVersion == "contract-hsm-nwk-v1"
    same = await operator.operations.hsm_group("id:contract-hsm")
    assert same.UID == made.UID
    rotated = await operator.operations.update_hsm_group(
        made.UID, OperatorHsmGroupUpdate(name="Renamed", hsmNwkKeyVersion="contract-nwk-v2")
    )
    assert (rotated.name, rotated.hsmNwkKeyVersion) == ("Renamed", "contract-nwk-v2")


async def test_other_accounts_are_refused(sandbox) -> None:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "subscriber") as subscriber:
        with pytest.raises(APIStatusError) as refused:
            await subscriber.operations.provisioning_queue()
    assert refused.value.status_code == 403
