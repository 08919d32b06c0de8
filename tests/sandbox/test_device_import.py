from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.schema.device_import import (
    ImportFailedLine,
    column_index,
    parse_import_errors,
    write_import_csv,
)

from .conftest import DEVICES, Sandbox

IMPORT = f"{DEVICES}/import"
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"
ALARM = '<alarm004><threshold1 status="ENABLE" level="4" duration="PT12H"/></alarm004>'


def line(operation: str, **cells: str) -> str:
    width = max([column_index(k) for k in cells] + [0]) + 1
    out = [""] * width
    out[0] = operation
    for letter, value in cells.items():
        out[column_index(letter)] = value
    return write_import_csv([out])


def _upload(
    sb: Sandbox, text: str, role: str = "subscriber", **params: Any
) -> dict[int, ImportFailedLine]:
    """The refused lines of the answer, by line number ({} when the body is empty)."""
    response = sb.post(IMPORT, role, params=params, files={"csv": ("d.csv", text, "text/csv")})
    assert response.status_code == 200, response.text
    if not response.content:
        return {}
    body = response.json()
    assert set(body) == {"code", "message"} and isinstance(body["code"], int), body
    failed = parse_import_errors(body["message"])
    assert failed, body
    return {f.line: f for f in failed}


def _codes(failed: ImportFailedLine) -> list[str | None]:
    return [e.code for e in failed.errors]


def test_every_operation_and_the_answer_shape(sb: Sandbox) -> None:
    text = (
        "# a comment\n"
        + line("CREATE_ABP", B="70b3d5e75e000001", C="0a0b0c0d", D="itron-cyble-lw", F=KEY,
               T="as-metering", AB="water,imported", AC="Site:France/Paris")
        + line("CREATE_OTAA", B="70B3D5E75E000002", D="adeunis-temp-lw", E=APP_EUI, F=KEY,
               K="Imported 2", L="45.5", M="4.25", W="atk-default", I="rp-metering", O=ALARM)
        + line("CREATE_CELLULAR", B="490154203237518", C="208011234567890",
               D="quectel-bg95-cell", R="8933150319999999999", S="nc-orange-fr")
        + line("UPDATE_ABP", B="70B3D5E75E000001", K="renamed", AB="gas")
        + line("UPDATE_OTAA", B="70B3D5E75E000002", R="hsm-eu-west-1")
        + line("UPDATE_CELLULAR", B="490154203237518", C="208011234567891", S="nc-kpn-nl")
        + line("CREATE_ABP", B="70B3D5E75E000003", C="0a0b0c0e", D="no-such-model", F=KEY)
        + line("CREATE_ABP", B="70B3D5E75E000001", C="0a0b0c0d", D="itron-cyble-lw", F=KEY)
        + line("CREATE_ABP", B="XX", D="itron-cyble-lw")
        + line("UPDATE_OTAA", B="70B3D5E75E000001", K="wrong kind")
        + line("DELETE", B="70B3D5E75E000009")
        + line("CREATE_ABP", B="70B3D5E75E000004", C="0a0b0c0f", D="itron-cyble-lw", F=KEY)
        + line("DELETE", B="70B3D5E75E000004")
    )  # fmt: skip
    failed = _upload(sb, text, forceDevAddrs="true")
    # Lines count from 1 with the comment line: the device lines are 2..14.
    assert sorted(failed) == [8, 9, 10, 11, 12]
    assert _codes(failed[8]) == ["40001"] and "unknown ID no-such-model" in str(failed[8].errors)
    assert _codes(failed[9]) == ["40900"] and "already exists" in failed[9].errors[0].message
    # Several schema errors on one line, each with its column.
    assert failed[10].EUI == "XX" and len(failed[10].errors) >= 3
    assert {e.code for e in failed[10].errors} == {"40000"}
    assert any(e.message.startswith("column F:") for e in failed[10].errors)
    assert "does not apply" in failed[11].errors[0].message
    assert _codes(failed[12]) == ["40400"] and failed[12].EUI == "70B3D5E75E000009"

    abp = sb.get(f"{DEVICES}/e70B3D5E75E000001").json()
    assert abp["name"] == "renamed" and [t["name"] for t in abp["tags"]] == ["gas"]
    assert abp["activation"] == "ABP" and abp["appServers"][0]["ID"] == "as-metering"
    assert abp["domains"] == [{"name": "France/Paris", "group": {"name": "Site"}}]
    otaa = sb.get(f"{DEVICES}/e70B3D5E75E000002").json()
    assert otaa["hsmGroupID"] == "hsm-eu-west-1" and otaa["asTransportKey"]["ID"] == "atk-default"
    assert otaa["alarmsConfiguration"]["alarm004"][0]["level"] == 4
    assert otaa["appServersRoutingProfile"]["ID"] == "rp-metering"
    # The IMEI is kept without its check digit (schema.devices.normalise_eui).
    cell = sb.get(f"{DEVICES}/e49015420323751").json()
    assert cell["connectivity"] == "CELLULAR" and cell["networkContextID"] == "nc-kpn-nl"
    assert cell["imsi"] == "208011234567891"
    assert sb.get(f"{DEVICES}/e70B3D5E75E000004").status_code == 404


def test_all_applied_is_an_empty_200_and_async_is_answered_at_once(sb: Sandbox) -> None:
    text = line("CREATE_ABP", B="70B3D5E75E0000B1", C="0a0b0c11", D="itron-cyble-lw", F=KEY)
    response = sb.post(IMPORT, params={"async": ""}, files={"csv": ("d.csv", text, "text/csv")})
    assert response.status_code == 200 and response.content == b""
    assert sb.get(f"{DEVICES}/e70B3D5E75E0000B1").status_code == 200
    empty = sb.post(IMPORT, files={"csv": ("d.csv", "# nothing\n", "text/csv")})
    assert empty.status_code == 200 and empty.content == b""


def test_line_numbers_are_lines_of_the_file(sb: Sandbox) -> None:
    # A comment, a blank line, then a record whose quoted name spans two lines.
    text = (
        "# first\n\n"
        + line("CREATE_ABP", B="70B3D5E75E0000C1", C="0a0b0c21", D="itron-cyble-lw", F=KEY,
               K="two\nlines", N="hall B, level 2")
        + line("DELETE", B="70B3D5E75E0000CF")
        + "#DELETE,70B3D5E75E0000C1\n"
        + line("DELETE", B="70B3D5E75E0000CE")
    )  # fmt: skip
    failed = _upload(sb, text)
    assert sorted(failed) == [5, 7]
    assert failed[5].EUI == "70B3D5E75E0000CF" and failed[7].EUI == "70B3D5E75E0000CE"
    device = sb.get(f"{DEVICES}/e70B3D5E75E0000C1").json()
    assert device["name"] == "two\nlines" and device["customerAdminData"] == "hall B, level 2"


def test_a_message_with_a_comma_is_quoted(sb: Sandbox) -> None:
    text = line("CREATE_ABP", B="70B3D5E75E0000D1", C="0a0b0c31", D="x, y", F=KEY)
    response = sb.post(IMPORT, files={"csv": ("d.csv", text, "text/csv")})
    message = response.json()["message"]
    assert message == '70B3D5E75E0000D1,line 1,"[40001] model: unknown ID x, y"\n'
    failed = parse_import_errors(message)
    assert [(f.line, str(f.errors[0])) for f in failed] == [(1, "[40001] model: unknown ID x, y")]


def test_routing_profile_update_needs_more_than_write_node(sb: Sandbox) -> None:
    imei = "356938035643809"
    created = _upload(
        sb,
        line("CREATE_CELLULAR", B=imei, C="208011234567001", D="quectel-bg95-cell",
             AC="Site:France/Paris")
        + line("CREATE_OTAA", B="70B3D5E75E0000E1", D="itron-cyble-lw", E=APP_EUI, F=KEY,
               AC="Site:France/Lyon"),
    )  # fmt: skip
    assert created == {}
    device = "e" + imei[:14]
    # PUT refuses it for the France team (WRITE_NODE only)...
    put = sb.put(
        f"{DEVICES}/{device}", "subscriber-restricted",
        json={"appServersRoutingProfile": {"ID": "rp-metering"}},
    )  # fmt: skip
    assert put.status_code == 403
    # ...and so does the import, line by line: the other lines are applied.
    failed = _upload(
        sb,
        line("UPDATE_CELLULAR", B=imei, I="rp-metering")
        + line("UPDATE_CELLULAR", B=imei, S="nc-kpn-nl")
        + line("UPDATE_OTAA", B="70B3D5E75E0000E1", I="rp-metering")
        + line("CREATE_OTAA", B="70B3D5E75E0000E2", D="itron-cyble-lw", E=APP_EUI, F=KEY,
               I="rp-metering"),
        "subscriber-restricted",
    )  # fmt: skip
    assert sorted(failed) == [1, 3]
    assert _codes(failed[1]) == ["40301"] and "ADMIN_NODE" in failed[1].errors[0].message
    assert _codes(failed[3]) == ["40301"]
    cell = sb.get(f"{DEVICES}/{device}").json()
    assert "appServersRoutingProfile" not in cell and cell["networkContextID"] == "nc-kpn-nl"
    otaa = sb.get(f"{DEVICES}/e70B3D5E75E0000E1").json()
    assert "appServersRoutingProfile" not in otaa
    # Choosing the profile of a new device is not an update: allowed.
    created_with_profile = sb.get(f"{DEVICES}/e70B3D5E75E0000E2").json()
    assert created_with_profile["appServersRoutingProfile"]["ID"] == "rp-metering"
    # An administrator may update it on a LoRaWAN device.
    assert _upload(sb, line("UPDATE_OTAA", B="70B3D5E75E0000E1", I="rp-metering")) == {}


def test_routing_profile_must_suit_the_device(sb: Sandbox) -> None:
    imei = "356938035643817"
    failed = _upload(
        sb,
        line("CREATE_CELLULAR", B=imei, C="208011234567002", D="quectel-bg95-cell")
        + line("UPDATE_CELLULAR", B=imei, I="rp-metering")
        + line("CREATE_CELLULAR", B="356938035643825", C="208011234567003",
               D="quectel-bg95-cell", I="rp-metering")
        + line("CREATE_OTAA", B="70B3D5E75E0000F1", D="itron-cyble-lw", E=APP_EUI, F=KEY,
               I="rp-metering", T="as-parking")
        + line("UPDATE_CELLULAR", B=imei, I="rp-nowhere"),
    )  # fmt: skip
    assert sorted(failed) == [2, 3, 4, 5]
    assert "LORAWAN routing profile" in failed[2].errors[0].message
    assert "CELLULAR device" in failed[3].errors[0].message
    assert "column T" in failed[4].errors[0].message
    assert _codes(failed[5]) == ["40001"]
    assert "appServersRoutingProfile" not in sb.get(f"{DEVICES}/e{imei[:14]}").json()
    assert sb.get(f"{DEVICES}/e35693803564382").status_code == 404


def test_cellular_routing_profile_on_cellular_lines_only(sb: Sandbox) -> None:
    imei = "356938035643833"
    failed = _upload(
        sb,
        line("CREATE_CELLULAR", B=imei, C="208011234567004", D="quectel-bg95-cell",
             I="rp-cellular")
        + line("CREATE_OTAA", B="70B3D5E75E0000F2", D="itron-cyble-lw", E=APP_EUI, F=KEY,
               I="rp-cellular")
        + line("CREATE_OTAA", B="70B3D5E75E0000F3", D="itron-cyble-lw", E=APP_EUI, F=KEY)
        + line("UPDATE_OTAA", B="70B3D5E75E0000F3", I="rp-cellular")
        + line("UPDATE_CELLULAR", B=imei, I="rp-metering"),
    )  # fmt: skip
    assert sorted(failed) == [2, 4, 5]
    for number in (2, 4):
        assert _codes(failed[number]) == ["40000"]
        assert failed[number].errors[0].message == (
            "appServersRoutingProfile: rp-cellular is a CELLULAR routing profile;"
            " a LORAWAN device cannot use it"
        )
    assert _codes(failed[5]) == ["40000"] and "LORAWAN routing profile" in str(failed[5].errors)
    cell = sb.get(f"{DEVICES}/e{imei[:14]}").json()
    assert cell["appServersRoutingProfile"] == {"ID": "rp-cellular", "name": "Cellular routing"}
    assert sb.get(f"{DEVICES}/e70B3D5E75E0000F2").status_code == 404
    assert "appServersRoutingProfile" not in sb.get(f"{DEVICES}/e70B3D5E75E0000F3").json()


def test_unknown_network_context_or_hsm_group_refuses_the_line(sb: Sandbox) -> None:
    """As POST and PUT /devices do (store.devices.unknown_references): code 40001, the
    message naming the field; the line changes nothing, the others are applied."""
    imei, lora = "356938035643841", "70B3D5E75E0000F4"
    failed = _upload(
        sb,
        line("CREATE_CELLULAR", B=imei, C="208011234567005", D="quectel-bg95-cell",
             S="nc-nope")
        + line("CREATE_CELLULAR", B=imei, C="208011234567005", D="quectel-bg95-cell",
               S="nc-orange-fr")
        + line("UPDATE_CELLULAR", B=imei, C="208011234567006", S="nc-gone")
        + line("CREATE_OTAA", B=lora, D="itron-cyble-lw", E=APP_EUI, F=KEY, R="hsm-nope")
        + line("CREATE_OTAA", B=lora, D="itron-cyble-lw", E=APP_EUI, F=KEY,
               R="hsm-eu-west-1")
        + line("UPDATE_OTAA", B=lora, K="not applied", R="hsm-gone")
        + line("UPDATE_OTAA", B=lora, R="hsm-eu-central-1"),
    )  # fmt: skip
    assert sorted(failed) == [1, 3, 4, 6]
    expected = {
        1: "networkContextID: unknown ID nc-nope",
        3: "networkContextID: unknown ID nc-gone",
        4: "hsmGroupID: unknown ID hsm-nope",
        6: "hsmGroupID: unknown ID hsm-gone",
    }
    for number, message in expected.items():
        assert _codes(failed[number]) == ["40001"]
        assert failed[number].errors[0].message == message
    cell = sb.get(f"{DEVICES}/e{imei[:14]}").json()
    assert (cell["networkContextID"], cell["imsi"]) == ("nc-orange-fr", "208011234567005")
    otaa = sb.get(f"{DEVICES}/e{lora}").json()
    assert (otaa["hsmGroupID"], otaa["name"]) == ("hsm-eu-central-1", lora)


def test_domain_parameter(sb: Sandbox) -> None:
    text = (
        line("CREATE_ABP", B="70B3D5E75E0000A1", C="0a0b0c01", D="itron-cyble-lw", F=KEY)
        + line("CREATE_ABP", B="70B3D5E75E0000A3", C="0a0b0c03", D="itron-cyble-lw", F=KEY,
               AC="Site:France/Paris")
    )  # fmt: skip
    raw = sb.post(
        IMPORT, params={"domain": ["Site:France/Lyon", "Vertical:Metering"]}, content=text,
        headers={"Content-Type": "text/csv"},
    )  # fmt: skip
    assert raw.status_code == 200 and raw.content == b""
    device = sb.get(f"{DEVICES}/e70B3D5E75E0000A1").json()
    assert sorted((d["group"]["name"], d["name"]) for d in device["domains"]) == [
        ("Site", "France/Lyon"),
        ("Vertical", "Metering"),
    ]
    # The line's own domain of a group wins over the parameter's.
    other = sb.get(f"{DEVICES}/e70B3D5E75E0000A3").json()
    assert sorted((d["group"]["name"], d["name"]) for d in other["domains"]) == [
        ("Site", "France/Paris"),
        ("Vertical", "Metering"),
    ]
    # Deleting: the device must belong to the parameter's domains.
    failed = _upload(
        sb,
        line("DELETE", B="70B3D5E75E0000A1") + line("DELETE", B="70B3D5E75E0000A3"),
        domain="Site:France/Lyon",
    )
    assert sorted(failed) == [2] and _codes(failed[2]) == ["40302"]
    assert "not deleted" in failed[2].errors[0].message
    assert sb.get(f"{DEVICES}/e70B3D5E75E0000A1").status_code == 404
    assert sb.get(f"{DEVICES}/e70B3D5E75E0000A3").status_code == 200
    # Two domains of one group, or no group: the whole request is refused.
    for bad in (["Site:France/Lyon", "Site:France/Paris"], ["Lyon"]):
        response = sb.post(
            IMPORT, params={"domain": bad}, files={"csv": ("d.csv", text, "text/csv")}
        )
        assert response.status_code == 400, response.text


def test_permissions_and_domain_restrictions(sb: Sandbox) -> None:
    text = line("CREATE_ABP", B="70B3D5E75E0000A5", C="0a0b0c05", D="itron-cyble-lw", F=KEY)
    viewer = sb.post(IMPORT, "subscriber-viewer", files={"csv": ("d.csv", text, "text/csv")})
    assert viewer.status_code == 403
    # The France team cannot create a device in Germany, nor use Germany as the parameter.
    germany = line("CREATE_ABP", B="70B3D5E75E0000A2", C="0a0b0c02", D="itron-cyble-lw", F=KEY,
                   AC="Site:Germany/Berlin")  # fmt: skip
    failed = _upload(sb, germany, "subscriber-restricted")
    assert _codes(failed[1]) == ["40302"] and "outside" in failed[1].errors[0].message
    refused = sb.post(
        IMPORT, "subscriber-restricted", params={"domain": "Site:Germany/Berlin"},
        files={"csv": ("d.csv", text, "text/csv")},
    )  # fmt: skip
    assert refused.status_code == 403


def test_ten_thousand_rows(sb: Sandbox) -> None:
    # (How fast: `./dev bench roles` prints the time of this import.)
    lines = [
        line("CREATE_OTAA", B=f"70B3D5E7{i:08X}", D="itron-cyble-lw", E=APP_EUI, F=KEY,
             K=f"Bulk meter {i}", AB="bulk,water", AC="Site:France/Paris", T="as-metering")
        for i in range(10_000)
    ]  # fmt: skip
    failed = _upload(sb, "".join(lines))
    assert failed == {}
    page = sb.get(DEVICES, params={"tag": "bulk", "pageSize": 10}).json()
    assert page["count"] == 10_000


def test_the_body_is_capped_and_needs_its_csv_field(
    sb: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lpwa_console.sandbox.routes import _upload as upload  # the imports' shared cap

    monkeypatch.setattr(upload, "MAX_IMPORT_BYTES", 1024)
    big = "# padding\n" * 200
    refused = sb.post(IMPORT, files={"csv": ("d.csv", big, "text/csv")})
    assert refused.status_code == 413 and "at most" in refused.json()["message"]
    assert refused.json()["code"] == 41300
    other = sb.post(IMPORT, files={"file": ("d.csv", "DELETE,0018B20000000001\n", "text/csv")})
    assert other.status_code == 400 and "no field 'csv'" in other.json()["message"]
