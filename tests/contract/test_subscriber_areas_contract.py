"""The real async client (api/resources) against a real sandbox process: the paths, query
parameters and bodies the client sends are the ones the sandbox routes accept, and the answers
parse into the shared models."""

from __future__ import annotations

import itertools
import random
import warnings
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from lpwa_console.api import Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.schema.alarms import AlarmFilter
from lpwa_console.schema.app_servers import (
    ALL_SCOPES,
    AppServerCreate,
    AppServerUpdate,
    HttpDestination,
)
from lpwa_console.schema.common import Severity
from lpwa_console.schema.device_import import parse_import_csv
from lpwa_console.schema.multicast import (
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupUpdate,
)
from lpwa_console.schema.network import (
    AsTransportKeyCreate,
    CellularNetworkContextCreate,
    NetworkSubscriptionFilter,
)

pytestmark = pytest.mark.anyio
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
_serial = itertools.count(random.randrange(1 << 20) << 8)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    account = sandbox.account("subscriber")
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    async with LpwaClient(sandbox.base_url, creds) as c:
        yield c  # type: ignore[misc]


async def test_alarms(client: LpwaClient) -> None:
    first = await client.device_alarms.list(1, 10)
    assert first.count and first.briefs
    seen = [a.alarmUid async for a in client.device_alarms.iterate(page_size=10)]
    assert len(seen) == len(set(seen)) == first.count
    by_state = await client.device_alarms.list(1, 10, sort="state", descending=True,
                                               filters=AlarmFilter(state=Severity.WARNING, acked=False))  # fmt: skip
    assert all(a.state >= 3 and not a.acked for a in by_state.briefs)
    window = AlarmFilter(from_=datetime.now(UTC) - timedelta(days=400), to=datetime.now(UTC))
    assert (await client.device_alarms.list(1, 10, filters=window)).briefs
    alarm = by_state.briefs[0]
    device = "e" + alarm.device.EUI
    assert (await client.device_alarms.of_device(device)).briefs
    await client.device_alarms.acknowledge([alarm.alarmUid])
    await client.device_alarms.acknowledge_one(device, alarm.alarmUid)
    await client.device_alarms.acknowledge_device(device, filters=AlarmFilter(ID=4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert (await client.device_alarms.histories()).briefs
    groups = await client.multicast_alarms.list()
    assert groups.briefs and groups.briefs[0].multicastGroup.EUI
    assert [a async for a in client.multicast_alarms.iterate()]
    group = "e" + groups.briefs[0].multicastGroup.EUI
    await client.multicast_alarms.of_group(group)
    await client.multicast_alarms.acknowledge([groups.briefs[0].alarmUid])
    await client.multicast_alarms.acknowledge_group(group)


async def test_frames_and_import(client: LpwaClient) -> None:
    device = (await client.devices.list(1, 10)).briefs[0]
    history = await client.frames.aggregated("e" + device.EUI, step="DAY", duration="P3D")
    assert len(history.briefs) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        await client.frames.frames("e" + device.EUI, types=[0])
    eui = f"FEEDC0DF{next(_serial):08X}"
    text = (
        f"CREATE_OTAA,{eui},,itron-cyble-lw,70B3D57ED0000000,{KEY}\r\nDELETE,FEEDC0DEFFFFFFFF\r\n"
    )
    report = await client.device_import.upload(
        parse_import_csv(text), domains=["Site:France/Paris"]
    )
    assert [r.status for r in report.results] == ["OK", "ERROR"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        again = await client.device_import.upload(text, force_dev_addrs=False)
    assert again.errorCount == 2


async def test_multicast_and_app_servers(client: LpwaClient) -> None:
    page = await client.multicast_groups.list(
        filters=MulticastGroupFilter(appServerID=["as-metering", "as-analytics"])
    )
    assert len(page.briefs) == 1 and page.briefs[0].alarm_counts is not None
    eui = f"FEEDC0E0{next(_serial):08X}"
    created = await client.multicast_groups.create(
        MulticastGroupCreate(EUI=eui, nwAddress="FC001234", appSKey=KEY)
    )
    assert created.name == eui
    updated = await client.multicast_groups.update("e" + eui, MulticastGroupUpdate(name="Contract"))
    assert (
        updated.name == "Contract"
        and (await client.multicast_groups.get(created.path_ref)).name == "Contract"
    )
    assert (await client.multicast_groups.bs_tag_suggestions("paris")).briefs
    await client.multicast_groups.delete(created.path_ref)

    servers = await client.app_servers.list(filters=ALL_SCOPES)
    operator = next(s for s in servers.briefs if s.scope == "OPERATOR" and "/" in s.ID)
    assert (await client.app_servers.get(operator.path_ref)).ID == operator.ID
    with pytest.raises(PermissionDeniedError):
        await client.app_servers.update(operator.path_ref, AppServerUpdate(name="no"))
    server = await client.app_servers.create(AppServerCreate(
        name="Contract server", destinations=[HttpDestination(addresses=["https://x.example"], ports="443", strategy="BLAST")]))  # fmt: skip
    assert (await client.app_servers.security(server.path_ref)).downlinkSecurity.status == "NONE"
    assert (
        await client.app_servers.iot_flow_connector_metrics(server.path_ref)
    ).uplinksLast24h == 0
    await client.app_servers.delete(server.path_ref)


async def test_network(client: LpwaClient) -> None:
    ref = f"nc-contract-{next(_serial)}"
    await client.network_contexts.create(CellularNetworkContextCreate(ID=ref, name="Contract"))
    assert (await client.network_contexts.get(ref)).name == "Contract"
    assert (await client.network_contexts.list()).briefs
    await client.network_contexts.delete(ref)
    key = f"atk-contract-{next(_serial)}"
    await client.as_transport_keys.create(AsTransportKeyCreate(ID=key, name="Contract"))
    assert (await client.as_transport_keys.get(key)).name == "Contract"
    await client.as_transport_keys.delete(key)
    assert (await client.hsm_groups.list()).briefs
    assert (await client.hsm_groups.public_exchange_key("hsm-eu-west-1")).kid
    subs = await client.network_subscriptions.list(
        filters=NetworkSubscriptionFilter(connectivity="LORAWAN")
    )
    assert subs.briefs and (await client.network_subscriptions.get(subs.briefs[0].ID)).ID
    assert (await client.network_subscriptions.managed_network_bs_tag_suggestions("op")).briefs
