"""The real client against a real sandbox: the device catalog (profiles and vendors with
their filters and paging) and the rule for changing a device's model."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import BadRequestError, Credentials, LpwaClient
from lpwa_console.sandbox.demo import MODELS
from lpwa_console.schema.device_profiles import (
    DeviceProfileFilter,
    DeviceVendorFilter,
    model_change_refusal,
)
from lpwa_console.schema.devices import DeviceCreate, DeviceUpdate, IdRef

pytestmark = pytest.mark.anyio
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"
_serial = itertools.count(random.randrange(1 << 24) << 8)


def eui() -> str:
    return f"FEEDD1{next(_serial):010X}"


@pytest.fixture
async def client(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    account = sandbox.account("subscriber")
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    async with LpwaClient(sandbox.base_url, creds) as c:
        yield c  # type: ignore[misc]


async def test_profiles_cover_the_demo_models_with_vendors_and_bands(client: LpwaClient) -> None:
    page = await client.device_profiles.list(page_size=1000)
    by_id = {p.ID: p for p in page.briefs}
    assert not page.more
    for ref, name, connectivity in MODELS:  # every model the demo devices use
        assert by_id[ref].commercialName == name
        assert by_id[ref].connectivity == connectivity
    cyble = by_id["itron-cyble-lw"]
    assert (cyble.vendor.ID, cyble.vendor.commercialName) == ("itron", "Itron")
    assert (cyble.typeMAC, cyble.macMajorVersion, cyble.lorawan_version) == ("LoRaMAC", 0, "1.0.2")
    assert [b.ID for b in cyble.defaultIsmBands] == ["eu868"]
    assert by_id["quectel-bg95-cell"].typeMAC is None
    assert "LORA/GenericA.1.0.3a_ETSI" in by_id


async def test_profile_filters_and_paging(client: LpwaClient) -> None:
    cellular = await client.device_profiles.list(
        filters=DeviceProfileFilter(connectivity="CELLULAR")
    )
    assert cellular.briefs and {p.connectivity for p in cellular.briefs} == {"CELLULAR"}
    us = await client.device_profiles.list(filters=DeviceProfileFilter(ismBandID=["us915"]))
    assert us.briefs and all([b.ID for b in p.defaultIsmBands] == ["us915"] for p in us.briefs)
    two = await client.device_profiles.list(
        filters=DeviceProfileFilter(ID=["itron-gas-lw", "nedap-sensit-lw", "nope"])
    )
    assert sorted(p.ID for p in two.briefs) == ["itron-gas-lw", "nedap-sensit-lw"]
    watteco = await client.device_profiles.list(
        filters=DeviceProfileFilter(typeMAC="WattecoMAC_3.1")
    )
    assert [p.vendor.ID for p in watteco.briefs] == ["watteco"]
    generic = await client.device_profiles.list(filters=DeviceProfileFilter(vendorID="generic"))
    assert {p.vendor.ID for p in generic.briefs} == {"generic"} and len(generic.briefs) >= 5
    first = await client.device_profiles.list(1, 10)
    second = await client.device_profiles.list(2, 10)
    assert first.more and len(first.briefs) == 10
    assert not {p.ID for p in first.briefs} & {p.ID for p in second.briefs}


async def test_vendors_and_their_filters(client: LpwaClient) -> None:
    everyone = await client.device_vendors.list()
    names = [v.commercial_name for v in everyone.briefs]
    assert names == sorted(names) and "Abeeway" in names
    cellular = await client.device_vendors.list(filters=DeviceVendorFilter(connectivity="CELLULAR"))
    assert {v.ID for v in cellular.briefs} == {"quectel", "nordic"}
    assert all(v.logo for v in cellular.briefs)
    one = await client.device_vendors.list(filters=DeviceVendorFilter(ID=["elsys"]))
    assert [v.commercial_name for v in one.briefs] == ["Elsys"]
    await client.devices.create(
        DeviceCreate(
            EUI=eui(), appEUI=APP_EUI, appKey=KEY, model=IdRef(ID="ELSY/ERSEye.1.0.3_ETSI")
        )
    )
    recent = await client.device_vendors.list(filters=DeviceVendorFilter(sort="BY_LAST_CREATED"))
    assert recent.briefs[0].ID == "elsys"


async def test_model_change_follows_the_mac_and_version_rule(client: LpwaClient) -> None:
    device = await client.devices.create(
        DeviceCreate(EUI=eui(), appEUI=APP_EUI, appKey=KEY, model=IdRef(ID="itron-cyble-lw"))
    )
    moved = await client.devices.update(
        device.path_ref, DeviceUpdate(model=IdRef(ID="LORA/GenericA.1.0.3a_ETSI"))
    )
    assert moved.model is not None and moved.model.ID == "LORA/GenericA.1.0.3a_ETSI"
    for ref, words in (
        ("LORA/GenericA.1.1a_ETSI", "LoRaWAN 1.1"),
        ("WATT/Flasho.3.1_ETSI", "MAC layer"),
        ("quectel-bg95-cell", "cellular"),
    ):
        with pytest.raises(BadRequestError) as info:
            await client.devices.update(device.path_ref, DeviceUpdate(model=IdRef(ID=ref)))
        assert info.value.message.startswith("model: ") and words in info.value.message
    with pytest.raises(BadRequestError) as unknown:
        await client.devices.update(device.path_ref, DeviceUpdate(model=IdRef(ID="NOPE/x")))
    assert unknown.value.code == 40001
    still = await client.devices.get(device.path_ref)
    assert still.model is not None and still.model.ID == "LORA/GenericA.1.0.3a_ETSI"


async def test_create_refuses_a_model_of_another_connectivity(client: LpwaClient) -> None:
    with pytest.raises(BadRequestError) as info:
        await client.devices.create(
            DeviceCreate(EUI=eui(), appEUI=APP_EUI, appKey=KEY, model=IdRef(ID="nordic-9160-cell"))
        )
    assert info.value.message.startswith("model: nordic-9160-cell is a cellular model")


async def test_the_rule_agrees_with_the_catalog(client: LpwaClient) -> None:
    """The console offers what the sandbox accepts: the same function decides both."""
    profiles = (await client.device_profiles.list(page_size=1000)).briefs
    by_id = {p.ID: p for p in profiles}
    base = by_id["adeunis-temp-lw"]  # LoRaWAN 1.0.3
    offered = {p.ID for p in profiles if not model_change_refusal(base, p)}
    assert {"LORA/GenericA.1.0.2a_ETSI", "LORA/GenericA.1.0.4a_ETSI"} <= offered
    assert not {"LORA/GenericA.1.1a_ETSI", "quectel-bg95-cell"} & offered
