"""The real client's catalog resource against a real sandbox process: every method once, so
a path, parameter or body the two sides read differently fails here. (The session's sandbox
is shared: items are made with random IDs and versions.)"""

from __future__ import annotations

import gzip
import json
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.api.errors import APIStatusError, NotFoundError
from lpwa_console.api.resources.catalogs import ProgressReader, item_ref
from lpwa_console.schema.catalogs import (
    BaseStationProfileCreate,
    BaseStationProfileUpdate,
    DeviceProfileCreate,
    DeviceProfileUpdate,
    LocalTextsUpdate,
    LrrSwVersionUpdate,
    RfRegionCreate,
    RfRegionLocalUpdate,
    RfRegionUpdate,
    VendorCreate,
    VendorUpdate,
)
from lpwa_console.schema.device_profiles import DeviceProfileFilter

from ..helpers import newer_catalog_version
from ..images import png

pytestmark = pytest.mark.anyio
PNG = png()  # a whole image: the sandbox reads logos whole


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def op(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "operator") as c:
        yield c


async def test_operator_and_device_profiles(op: LpwaClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    operator = await op.catalogs.operator()
    assert operator.defaultLanguage == "en" and "fr" in operator.languages
    assert (await op.catalogs.operator("id:demo-operator")).ID == operator.ID
    page = await op.catalogs.device_profiles(1, 50, source="CATALOG", language="fr")
    assert page.languageTag == "fr" and page.catalogVersion and page.count
    lora = await op.catalogs.device_profiles(lora_profile_id="0x00000003")
    assert [p.ID for p in lora.briefs] == ["LORA/GenericA.1.0.4a_ETSI"]
    one = await op.catalogs.device_profile(item_ref("LORA/GenericA.1.0.4a_ETSI"), language="de")
    assert one.commercialName == "LoRaWAN 1.0.4 - Klasse A"
    ID = f"c-{random.randrange(1 << 30)}"
    made = await op.catalogs.create_device_profile(
        DeviceProfileCreate(ID=ID, commercialName="Contract", macMinorVersion=10,
                            vendor={"ID": "elsys"}, loraProfileIDs=[f"0x{ID}"])  # type: ignore[arg-type]
    )  # fmt: skip
    assert f"CUSTOM/{ID}" == made.ID and made.devNonceCounterBased == 1
    changed = await op.catalogs.update_device_profile(
        item_ref(made.ID), DeviceProfileUpdate(commercialDescription="changed")
    )
    assert changed.commercialDescription == "changed"
    custom = await op.catalogs.device_profiles(source="CUSTOM", lora_profile_id=f"0x{ID}")
    assert [p.ID for p in custom.briefs] == [made.ID]
    # one catalog: the subscriber's picker lists it
    async with _client(sandbox, "subscriber") as subscriber:
        picked = await subscriber.device_profiles.list(filters=DeviceProfileFilter(ID=[made.ID]))
        assert [p.ID for p in picked.briefs] == [made.ID]
        with pytest.raises(PermissionDeniedError):
            await subscriber.catalogs.device_profiles()


async def test_station_profiles_and_versions(op: LpwaClient) -> None:
    page = await op.catalogs.station_profiles(language="es")
    assert page.count and all(p.softwareType for p in page.briefs)
    ID = f"gw-{random.randrange(1 << 30)}"
    made = await op.catalogs.create_station_profile(
        BaseStationProfileCreate(ID=ID, commercialName="GW", vendor={"ID": "KERLINK"},  # type: ignore[arg-type]
                                 softwareType="BASIC_STATION_LINUX", rfHardwareConfig="S1_A1_B1")
    )  # fmt: skip
    assert made.source == "CUSTOM"
    version = await op.catalogs.put_lrr_version(
        item_ref(made.ID), "3.0.1",
        LrrSwVersionUpdate(compatibilities=[{"criteria": "FIRMWARE_VERSION", "value": "7"}]),  # type: ignore[list-item]
    )  # fmt: skip
    assert version.ID == "3.0.1" and version.compatibilities[0].criteria == "FIRMWARE_VERSION"
    changed = await op.catalogs.update_station_profile(
        item_ref(made.ID), BaseStationProfileUpdate(softwareType="LRR_LINUX")
    )
    assert changed.softwareType == "LRR_LINUX" and changed.lrrSwVersions[0].ID == "3.0.1"
    assert (await op.catalogs.station_profile(item_ref(made.ID))).ID == made.ID


async def test_vendors_and_texts(op: LpwaClient) -> None:
    vendors = await op.catalogs.vendors("deviceVendors", language="fr", lora_vendor_id="0x0200")
    assert [v.ID for v in vendors.briefs] == ["abeeway"]
    assert vendors.briefs[0].commercialDescription == "Traceurs d'actifs"
    ID = f"V{random.randrange(1 << 30)}"
    made = await op.catalogs.create_vendor(
        "baseStationVendors", VendorCreate(ID=ID, commercialName="V")
    )
    assert made.source == "CUSTOM"
    changed = await op.catalogs.update_vendor(
        "baseStationVendors", item_ref(ID), VendorUpdate(commercialDescription="d")
    )
    assert changed.commercialDescription == "d"
    assert (await op.catalogs.vendor("baseStationVendors", item_ref(ID))).ID == ID
    put = await op.catalogs.put_vendor_local(
        "baseStationVendors", item_ref(ID), "de", LocalTextsUpdate(commercialName="V (de)")
    )
    assert put.languageTag == "de"
    local = await op.catalogs.vendor_local("baseStationVendors", item_ref(ID), "de")
    assert local.commercialName == "V (de)"
    with pytest.raises(NotFoundError):
        await op.catalogs.vendor_local("baseStationVendors", item_ref(ID), "es")


async def test_rf_regions_and_logo(op: LpwaClient) -> None:
    ID = f"R{random.randrange(1 << 30)}"
    made = await op.catalogs.create_rf_region(RfRegionCreate(ID=ID, name="R", ismBand="eu868"))
    ref = item_ref(made.ID)
    assert f"CUSTOM/{ID}" == made.ID
    assert (await op.catalogs.update_rf_region(ref, RfRegionUpdate(name="R2"))).name == "R2"
    await op.catalogs.put_rf_region_local(ref, "fr", RfRegionLocalUpdate(name="R fr"))
    assert (await op.catalogs.rf_region_local(ref, "fr")).name == "R fr"
    assert (await op.catalogs.rf_region(ref, language="fr")).name == "R fr"
    listed = await op.catalogs.rf_regions(source="CUSTOM", page_size=1000)
    assert made.ID in {r.ID for r in listed.briefs}
    with_logo = await op.catalogs.upload_logo(ref, PNG, "logo.png", "image/png")
    assert with_logo.logo
    data, media = await op.catalogs.logo(ref)
    assert data == PNG and media == "image/png"
    with pytest.raises(APIStatusError):
        await op.catalogs.upload_logo(ref, b"GIF89a", "logo.gif", "image/gif")
    await op.catalogs.delete_rf_region(ref)
    with pytest.raises(NotFoundError):
        await op.catalogs.rf_region(ref)


async def test_catalog_versions_import_and_self_update(op: LpwaClient) -> None:
    installed = await op.catalogs.catalog("baseStationProfiles")
    offered = await op.catalogs.offered("baseStationProfiles")
    assert offered.installedVersion == installed.version and offered.version
    done = await op.catalogs.self_update("baseStationProfiles", force=True)
    assert done.installedVersion == offered.version
    with pytest.raises(APIStatusError) as refused:
        await op.catalogs.self_update("baseStationProfiles")
    assert refused.value.status_code == 409
    version = newer_catalog_version()
    file = {
        "format": "lpwa-catalog/1",
        "catalog": "deviceProfiles",
        "version": version,
        "profiles": [{"ID": f"CT/{version}", "commercialName": "CT", "vendorID": "generic"}],
    }
    sent: list[int] = []
    reader = ProgressReader(gzip.compress(json.dumps(file).encode()), lambda n, _t: sent.append(n))
    answer = await op.catalogs.import_catalog("deviceProfiles", reader, filename="c.json.gz")
    assert answer.version == version and answer.added == [f"CT/{version}"] and sent
    with pytest.raises(APIStatusError):
        await op.catalogs.import_catalog("deviceProfiles", json.dumps(file).encode())
    forced = await op.catalogs.import_catalog(
        "deviceProfiles", json.dumps(file).encode(), force=True
    )
    assert forced.imported == 1 and forced.added == []
