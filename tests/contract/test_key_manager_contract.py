"""The key manager's client against a real sandbox process: every method once."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import Credentials, LpwaClient
from lpwa_console.models.km_crypto import PublicExchangeKey
from lpwa_console.schema.key_manager import (
    KmAsKeyCreate,
    KmAsKeyUpdate,
    KmClaim,
    KmDeviceCreate,
    KmDeviceFilter,
    KmDeviceUpdate,
)
from lpwa_console.schema.km_import import km_row_cells, parse_km_import_csv

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


async def test_key_manager(client: LpwaClient) -> None:
    km = client.key_manager
    subscription = await km.subscription()
    assert subscription.platformExchangeKeyVersion
    assert (await km.of(f"id:sub:{subscription.ID}").subscription()).ID == subscription.ID
    assert (await km.customers()).briefs[0].ID == subscription.ID
    groups = await km.hsm_groups()
    assert groups.briefs and groups.briefs[0].hsmAppKeyVersion
    keys = await km.public_exchange_keys()
    platform = next(k for k in keys.briefs if k.version == subscription.platformExchangeKeyVersion)
    assert (await km.public_exchange_keys(groups.briefs[0].ID)).briefs[0].hsmGroupID
    assert len((await km.generate_app_keys(3)).keys) == 3
    assert len((await km.generate_nwk_keys(2)).keys) == 2

    ref = f"contract-{next(_serial):x}"
    as_key = await km.create_as_key(KmAsKeyCreate(ID=ref, name="Contract"))
    assert ref == (await km.as_key(as_key.UID)).ID
    assert (await km.as_key(f"id:{ref}")).UID == as_key.UID
    assert (await km.update_as_key(as_key.UID, KmAsKeyUpdate(name="Renamed"))).name == "Renamed"
    assert (await km.as_keys()).count

    exchange = PublicExchangeKey(platform.version, platform.pem)
    eui = f"FEEDC0E1{next(_serial):08X}"
    device = await km.create_device(
        KmDeviceCreate(EUI=eui, appKey=exchange.encrypt_hex(KEY),
                       exchangeKeyVersion=exchange.version, asKey={"ID": ref})  # type: ignore[arg-type]
    )  # fmt: skip
    assert device.state == "GENERIC"
    updated = await km.update_device("e" + eui, KmDeviceUpdate(homeNsNetID="000013"))
    assert updated.state == "COMMISSIONED"
    assert (await km.device(device.UID)).homeNsNetID == "000013"
    page = await km.devices(filters=KmDeviceFilter(state="COMMISSIONED"))
    assert all(d.state == "COMMISSIONED" for d in page.briefs)
    assert [d async for d in km.iterate_devices(page_size=10)]
    states = await km.states()
    assert states.total >= 1
    assert (await km.traffic()).briefs
    assert (await km.traffic(device.UID)).briefs == []
    pre = await km.create_device(
        KmDeviceCreate(EUI=f"FEEDC0E1{next(_serial):08X}", state="PRE_COMMISSIONED",
                       secureElement={"tkmInfo": "SE050:00"})  # type: ignore[arg-type]
    )  # fmt: skip
    claimed = await km.claim(KmClaim(EUI=pre.EUI, ownerID="contract"))
    assert claimed.state == "GENERIC" and claimed.ownerID == "contract"
    await km.delete_device(device.UID)
    await km.delete_device("e" + pre.EUI)

    first, second = (f"FEEDC0E2{next(_serial):08X}" for _ in range(2))
    rows = parse_km_import_csv(
        ",".join(km_row_cells(first, exchange.encrypt_hex(KEY), exchange_version=exchange.version))
        + "\r\n" + ",".join(km_row_cells(second, "BAD")) + "\r\n"
    )  # fmt: skip
    report = await km.import_devices(rows)
    assert [r.status for r in report.results] == ["OK", "ERROR"]
    again = await km.import_devices(f"DELETE,{first}\r\n")
    assert again.okCount == 1
