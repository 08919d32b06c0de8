"""The real client against a real sandbox: AS routing profiles suit the device's connectivity
(PUT and the import share the rule), and the import checks network context and HSM group
references as PUT and POST do."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import BadRequestError, Credentials, LpwaClient
from lpwa_console.schema.device_import import column_index, write_import_csv
from lpwa_console.schema.devices import DeviceCreate, DeviceUpdate, IdRef

pytestmark = pytest.mark.anyio
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"
_serial = itertools.count(random.randrange(1 << 24) << 8)


def eui() -> str:
    return f"FEEDC2{next(_serial):010X}"


def imei() -> str:
    return f"98{next(_serial):012d}"  # 14 digits: no check digit to compute


def line(operation: str, **cells: str) -> str:
    """One import line: `operation`, then each cell at its column letter."""
    out = [""] * (max(column_index(k) for k in cells) + 1)
    out[0] = operation
    for letter, value in cells.items():
        out[column_index(letter)] = value
    return write_import_csv([out])


@pytest.fixture
async def admin(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    account = sandbox.account("subscriber")
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    async with LpwaClient(sandbox.base_url, creds) as c:
        yield c  # type: ignore[misc]


async def test_put_refuses_a_profile_of_another_connectivity(admin: LpwaClient) -> None:
    cell = await admin.devices.create(
        DeviceCreate(connectivity="CELLULAR", EUI=imei(), imsi="208011234560101")
    )
    lora = await admin.devices.create(DeviceCreate(EUI=eui(), appEUI=APP_EUI, appKey=KEY))
    for device, ref in ((cell, "rp-metering"), (lora, "rp-cellular")):
        with pytest.raises(BadRequestError) as info:
            await admin.devices.update(
                device.path_ref,
                DeviceUpdate(name="not applied", appServersRoutingProfile=IdRef(ID=ref)),
            )
        assert info.value.code == 40000
        assert info.value.message.startswith(f"appServersRoutingProfile: {ref} ")
        assert (await admin.devices.get(device.path_ref)).name == device.name
    routed = await admin.devices.update(
        cell.path_ref, DeviceUpdate(appServersRoutingProfile=IdRef(ID="rp-cellular"))
    )
    profile = routed.appServersRoutingProfile
    assert profile is not None
    assert (profile.ID, profile.name, profile.lorawanAsTransportKey) == (
        "rp-cellular",
        "Cellular routing",
        None,
    )
    lora_routed = await admin.devices.update(
        lora.path_ref, DeviceUpdate(appServersRoutingProfile=IdRef(ID="rp-metering"))
    )
    lora_profile = lora_routed.appServersRoutingProfile
    assert lora_profile is not None and lora_profile.lorawanAsTransportKey is not None
    assert lora_profile.lorawanAsTransportKey.ID == "atk-metering-2024"


async def test_import_checks_profiles_and_references_as_put_does(admin: LpwaClient) -> None:
    cell, lora = imei(), eui()
    cellular = {"B": cell, "C": "208011234560102", "D": "quectel-bg95-cell", "I": "rp-cellular"}
    otaa = {"B": lora, "D": "itron-cyble-lw", "E": APP_EUI, "F": KEY}
    report = await admin.device_import.upload(
        line("CREATE_CELLULAR", **cellular, S="nc-nope")
        + line("CREATE_CELLULAR", **cellular, S="nc-orange-fr")
        + line("CREATE_OTAA", **otaa, I="rp-cellular")
        + line("CREATE_OTAA", **otaa, R="hsm-nope")
        + line("CREATE_OTAA", **otaa, I="rp-metering", R="hsm-eu-west-1")
    )
    assert [r.status for r in report.results] == ["ERROR", "OK", "ERROR", "ERROR", "OK"]
    codes = [[e.code for e in r.errors] for r in report.results]
    assert codes == [["40001"], [], ["40000"], ["40001"], []]
    assert "networkContextID: unknown ID nc-nope" in (report.results[0].message or "")
    assert "CELLULAR routing profile" in (report.results[2].message or "")
    assert "hsmGroupID: unknown ID hsm-nope" in (report.results[3].message or "")
    device = await admin.devices.get("e" + cell)
    assert device.networkContextID == "nc-orange-fr"
    assert device.appServersRoutingProfile is not None
    assert device.appServersRoutingProfile.ID == "rp-cellular"
    created = await admin.devices.get("e" + lora)
    assert created.hsmGroupID == "hsm-eu-west-1"
    assert created.appServersRoutingProfile is not None
    assert created.appServersRoutingProfile.ID == "rp-metering"
