"""The real client against a live sandbox: deleting devices, sending back what was read, and
the reference's domain filter."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import LpwaClient, NotFoundError, PermissionDeniedError
from lpwa_console.schema.common import device_ref
from lpwa_console.schema.devices import DeviceCreate, DeviceFilter, DeviceUpdate

from .test_devices_contract import KEY, client_for

pytestmark = pytest.mark.anyio

_serial = itertools.count(random.randrange(1 << 20) << 8)


def fresh_eui() -> str:
    return f"DE1E7E00{next(_serial):08X}"


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with client_for(sandbox, "subscriber") as c:
        yield c  # type: ignore[misc]


def _lyon_abp(eui: str) -> DeviceCreate:
    return DeviceCreate.model_validate(
        {
            "EUI": eui,
            "nwAddress": "01020304",
            "appSKey": KEY,
            "tags": [{"name": "contract-delete"}],
            "domains": [{"name": "France/Lyon", "group": {"name": "Site"}}],
            "appServers": [{"ID": "as-metering"}],
        }
    )


async def test_delete_then_recreate_starts_clean(client: LpwaClient) -> None:
    eui = fresh_eui()
    await client.devices.create(_lyon_abp(eui))
    await client.devices.tag("contract-extra", [eui])
    assert len((await client.devices.get(device_ref(eui))).tags) == 2

    await client.devices.delete(device_ref(eui))
    with pytest.raises(NotFoundError):
        await client.devices.get(device_ref(eui))
    with pytest.raises(NotFoundError):
        await client.devices.delete(device_ref(eui))
    assert (await client.devices.list(filters=DeviceFilter(devEUI=[eui]))).count == 0

    again = await client.devices.create(DeviceCreate(EUI=eui, nwAddress="01020304", appSKey=KEY))
    assert again.tags == [] and again.alarmCount == 0 and again.appServers == []
    alarms = await client.device_alarms.of_owner(device_ref(eui))
    assert alarms.briefs == []
    await client.devices.delete(str(again.ref))  # by UID too


async def test_delete_rights_and_domains(sandbox, client: LpwaClient) -> None:  # type: ignore[no-untyped-def]
    eui = fresh_eui()
    await client.devices.create(_lyon_abp(eui))
    async with client_for(sandbox, "subscriber-viewer") as viewer:
        with pytest.raises(PermissionDeniedError):
            await viewer.devices.delete(device_ref(eui))
    parking = await client.devices.list(1, 500, filters=DeviceFilter(domain=["Vertical:Parking"]))
    outside = next(
        d for d in parking.briefs if not any(x.name.startswith("France/") for x in d.domains)
    )
    async with client_for(sandbox, "subscriber-restricted") as restricted:
        with pytest.raises(NotFoundError):  # outside its domains: as GET answers
            await restricted.devices.delete(device_ref(outside.EUI))
        await restricted.devices.delete(device_ref(eui))  # France/Lyon: within them
    assert (await client.devices.get(device_ref(outside.EUI))).EUI == outside.EUI
    with pytest.raises(NotFoundError):
        await client.devices.get(device_ref(eui))


async def test_a_device_read_and_sent_back_is_unchanged(client: LpwaClient) -> None:
    """The commonest script: read, change one field, send the whole object back."""
    eui = fresh_eui()
    created = await client.devices.create(_lyon_abp(eui))
    read = (await client.devices.get(device_ref(eui))).model_dump(mode="json", exclude_none=True)
    update = DeviceUpdate.model_validate(read | {"customerAdminData": "floor 2"})
    written = await client.devices.update(device_ref(eui), update)
    assert written.customerAdminData == "floor 2"
    keep = ("name", "tags", "domains", "appServers", "alarmsConfiguration", "nwAddress")
    assert written.model_dump(include=set(keep)) == created.model_dump(include=set(keep))
    assert written.now is not None and all(s.href for s in written.appServers)
    await client.devices.delete(device_ref(eui))


async def test_domain_filter_is_exact_and_repeatable(client: LpwaClient) -> None:
    lyon = DeviceFilter(domain=["Site:France/Lyon"])
    page = await client.devices.list(1, 200, filters=lyon)
    assert page.briefs and page.now is not None
    for device in page.briefs:
        assert ("Site", "France/Lyon") in {(d.group.name, d.name) for d in device.domains}
    assert (await client.devices.list(filters=DeviceFilter(domain=["Site:France/"]))).count == 0
    either = DeviceFilter(domain=["Site:France/Lyon", "Site:France/Paris"])
    both = await client.devices.list(1, 10, filters=either)
    paris = await client.devices.list(1, 10, filters=DeviceFilter(domain=["Site:France/Paris"]))
    assert both.count == page.count + paris.count  # type: ignore[operator]
