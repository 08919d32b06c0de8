from __future__ import annotations

import time
from typing import Any

from lpwa_console.schema.device_import import DeviceImportReport, column_index, write_import_csv

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


def _upload(sb: Sandbox, text: str, role: str = "subscriber", **params: Any) -> DeviceImportReport:
    response = sb.post(IMPORT, role, params=params, files={"csv": ("d.csv", text, "text/csv")})
    assert response.status_code == 200, response.text
    return DeviceImportReport.model_validate(response.json())


def test_every_operation_with_per_row_results(sb: Sandbox) -> None:
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
    report = _upload(sb, text, forceDevAddrs="true")
    status = {r.row: (r.status, r.operation) for r in report.results}
    assert report.total == 13 and report.okCount == 8 and report.errorCount == 5, report
    assert [s for s, _ in status.values()] == ["OK"] * 6 + ["ERROR"] * 5 + ["OK", "OK"]
    messages = {r.row: r.message or "" for r in report.results}
    assert "unknown ID no-such-model" in messages[8]
    assert "already exists" in messages[9]
    assert report.results[8].column in ("B", "C")  # its first problem
    assert "does not apply" in messages[11]
    assert "no device" in messages[12]

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


def test_raw_body_domains_and_permissions(sb: Sandbox) -> None:
    text = line("CREATE_ABP", B="70B3D5E75E0000A1", C="0a0b0c01", D="itron-cyble-lw", F=KEY)
    raw = sb.post(
        IMPORT, params={"domain": "Site:France/Lyon"}, content=text,
        headers={"Content-Type": "text/csv"},
    )  # fmt: skip
    assert raw.status_code == 200 and raw.json()["okCount"] == 1
    device = sb.get(f"{DEVICES}/e70B3D5E75E0000A1").json()
    assert device["domains"] == [{"name": "France/Lyon", "group": {"name": "Site"}}]
    viewer = sb.post(IMPORT, "subscriber-viewer", files={"csv": ("d.csv", text, "text/csv")})
    assert viewer.status_code == 403
    # The France team cannot create a device in Germany, nor touch one there.
    germany = line("CREATE_ABP", B="70B3D5E75E0000A2", C="0a0b0c02", D="itron-cyble-lw", F=KEY,
                   AC="Site:Germany/Berlin")  # fmt: skip
    report = _upload(sb, germany, "subscriber-restricted")
    assert report.errorCount == 1 and "outside" in (report.results[0].message or "")
    refused = sb.post(
        IMPORT, "subscriber-restricted", params={"domain": "Site:Germany/Berlin"},
        files={"csv": ("d.csv", text, "text/csv")},
    )  # fmt: skip
    assert refused.status_code == 403
    assert _upload(sb, "").total == 0


def test_ten_thousand_rows_in_a_few_seconds(sb: Sandbox) -> None:
    lines = [
        line("CREATE_OTAA", B=f"70B3D5E7{i:08X}", D="itron-cyble-lw", E=APP_EUI, F=KEY,
             K=f"Bulk meter {i}", AB="bulk,water", AC="Site:France/Paris", T="as-metering")
        for i in range(10_000)
    ]  # fmt: skip
    started = time.perf_counter()
    report = _upload(sb, "".join(lines))
    seconds = time.perf_counter() - started
    print(f"import of 10,000 rows: {seconds:.2f} s")
    assert report.okCount == 10_000, report.results[:3]
    assert seconds < 10
    page = sb.get(DEVICES, params={"tag": "bulk", "pageSize": 10}).json()
    assert page["count"] == 10_000
