"""The real client's device import against a real sandbox process: the sandbox answers the
platform's way (empty body, or the error document whose message is a CSV of failed lines)
and the client places that answer on the rows of the user's file, batch by batch."""

from __future__ import annotations

import itertools
import random
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.schema.device_import import parse_import_csv
from lpwa_console.schema.devices import DeviceUpdate, IdRef

pytestmark = pytest.mark.anyio
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"
_serial = itertools.count(random.randrange(1 << 24) << 8)


def eui() -> str:
    return f"FEEDC1{next(_serial):010X}"


def imei() -> str:
    return f"99{next(_serial):012d}"  # 14 digits: no check digit to compute


async def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def admin(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with await _client(sandbox, "subscriber") as c:
        yield c  # type: ignore[misc]


@pytest.fixture
async def france_team(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with await _client(sandbox, "subscriber-restricted") as c:
        yield c  # type: ignore[misc]


async def test_batches_map_back_to_the_users_rows(admin: LpwaClient) -> None:
    meter, bad, gone = eui(), eui(), eui()
    user_file = (
        "# devices of building A\r\n"
        f'CREATE_OTAA,{meter},,itron-cyble-lw,{APP_EUI},{KEY},,,,,"Meter, hall A"\r\n'
        "\r\n"
        f"CREATE_OTAA,{bad},,no-such-profile,{APP_EUI},{KEY}\r\n"
        f"CREATE_OTAA,{gone},,itron-cyble-lw,{APP_EUI},{KEY}\r\n"
        f"CREATE_OTAA,{meter},,itron-cyble-lw,{APP_EUI},{KEY}\r\n"
        f"DELETE,{gone}\r\n"
    )
    rows = parse_import_csv(user_file)
    assert [r.row for r in rows] == [2, 4, 5, 6, 7]
    results = []
    for batch in (rows[:2], rows[2:4], rows[4:]):  # as the wizard sends them
        report = await admin.device_import.upload(batch)
        results += report.results
    assert [(r.row, r.status) for r in results] == [
        (2, "OK"), (4, "ERROR"), (5, "OK"), (6, "ERROR"), (7, "OK"),
    ]  # fmt: skip
    by_row = {r.row: r for r in results}
    assert by_row[4].line == 2 and [e.code for e in by_row[4].errors] == ["40001"]
    assert by_row[6].line == 2 and "already exists" in (by_row[6].message or "")
    assert (await admin.devices.get("e" + meter)).name == "Meter, hall A"
    # The same file as text: numbered by its own lines (comment and blank line included).
    again = await admin.device_import.upload(user_file)
    # (the device deleted by row 7 is created again by row 5, then deleted again.)
    assert again.failed_rows == [2, 4, 6] and again.okCount == 2
    assert again.results[0].errors[0].code == "40900"


async def test_all_applied_and_the_domain_parameter(admin: LpwaClient) -> None:
    lyon, nice = eui(), eui()
    text = (
        f"CREATE_ABP,{lyon},0A0B0C01,itron-cyble-lw,,{KEY}\n"
        f"CREATE_ABP,{nice},0A0B0C02,itron-cyble-lw,,{KEY},,,,,,,,,,,,,,,,,,,,,,,Site:France/Nice\n"
    )
    report = await admin.device_import.upload(
        text, domains=["Site:France/Lyon", "Vertical:Metering"]
    )
    assert (report.total, report.okCount) == (2, 2)
    created = await admin.devices.get("e" + lyon)
    assert sorted((d.group.name, d.name) for d in created.domains) == [
        ("Site", "France/Lyon"),
        ("Vertical", "Metering"),
    ]
    deleted = await admin.device_import.upload(
        f"DELETE,{lyon}\nDELETE,{nice}\n", domains=["Site:France/Lyon"]
    )
    assert [r.status for r in deleted.results] == ["OK", "ERROR"]
    assert deleted.results[1].errors[0].code == "40302"
    kept = await admin.devices.get("e" + nice)  # not in France/Lyon: not deleted
    assert sorted((d.group.name, d.name) for d in kept.domains) == [
        ("Site", "France/Nice"),  # the line's own Site domain wins over the parameter's
        ("Vertical", "Metering"),
    ]


async def test_routing_profile_right_and_compatibility(
    admin: LpwaClient, france_team: LpwaClient
) -> None:
    cell, lora = imei(), eui()
    setup = await admin.device_import.upload(
        f"CREATE_CELLULAR,{cell},208011234560001,quectel-bg95-cell"
        + "," * 24 + "Site:France/Paris\n"
        + f"CREATE_OTAA,{lora},,itron-cyble-lw,{APP_EUI},{KEY}\n"
    )  # fmt: skip
    assert setup.okCount == 2, setup.results
    # The France team (LPWA_MGR::WRITE_NODE only) may not set a routing profile by PUT...
    with pytest.raises(PermissionDeniedError):
        await france_team.devices.update(
            "e" + cell, DeviceUpdate(appServersRoutingProfile=IdRef(ID="rp-metering"))
        )
    # ...nor by import; its other lines are applied.
    report = await france_team.device_import.upload(
        f"UPDATE_CELLULAR,{cell},,,,,,,rp-metering\nUPDATE_CELLULAR,{cell},208011234560002\n"
    )
    assert [r.status for r in report.results] == ["ERROR", "OK"]
    assert report.results[0].errors[0].code == "40301"
    device = await admin.devices.get("e" + cell)
    assert device.appServersRoutingProfile is None and device.imsi == "208011234560002"
    # An administrator may, but only with a profile that suits the device.
    checked = await admin.device_import.upload(
        f"UPDATE_CELLULAR,{cell},,,,,,,rp-metering\nUPDATE_OTAA,{lora},,,,,,,rp-metering\n"
    )
    assert [r.status for r in checked.results] == ["ERROR", "OK"]
    assert "LORAWAN routing profile" in (checked.results[0].message or "")
    profile = (await admin.devices.get("e" + lora)).appServersRoutingProfile
    assert profile is not None and profile.ID == "rp-metering"
