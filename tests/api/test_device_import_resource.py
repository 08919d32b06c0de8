"""The import upload: a multipart `csv` file part, query parameters, the per-row report."""

from __future__ import annotations

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient
from lpwa_console.schema.device_import import parse_import_csv

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
IMPORT = f"{BASE}/subscriptions/mine/devices/import"
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
CSV = f"CREATE_ABP,70B3D5E75E000001,01020304,prof,,{KEY}\nCREATE_OTAA,70B3D5E75E000002,,prof\n"
REPORT = {
    "results": [
        {"row": 1, "EUI": "70B3D5E75E000001", "status": "OK"},
        {"row": 2, "EUI": "70B3D5E75E000002", "status": "ERROR", "message": "exists"},
    ],
    "total": 2,
    "okCount": 1,
    "errorCount": 1,
}


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


@respx.mock
async def test_upload_text_as_multipart_csv(client: LpwaClient) -> None:
    route = respx.post(IMPORT).mock(return_value=httpx.Response(200, json=REPORT))
    report = await client.device_import.upload(CSV, domains=["Site:France/Paris"])
    assert (report.total, report.okCount, report.errorCount) == (2, 1, 1)
    assert report.failed_rows == [2]
    request = route.calls[0].request
    assert request.headers["content-type"].startswith("multipart/form-data")
    body = request.content
    assert b'name="csv"; filename="devices.csv"' in body
    assert b"Content-Type: text/csv" in body
    assert CSV.encode() in body
    assert request.url.params.get_list("domain") == ["Site:France/Paris"]
    assert "forceDevAddrs" not in request.url.params


@respx.mock
async def test_upload_parsed_rows(client: LpwaClient) -> None:
    route = respx.post(IMPORT).mock(return_value=httpx.Response(200, json=REPORT))
    rows = parse_import_csv(CSV)
    await client.device_import.upload(rows, filename="retry.csv")
    body = route.calls[0].request.content
    assert b'filename="retry.csv"' in body
    assert b"CREATE_OTAA,70B3D5E75E000002,,prof\r\n" in body


@respx.mock
async def test_deprecated_force_dev_addrs_warns(client: LpwaClient) -> None:
    route = respx.post(IMPORT).mock(return_value=httpx.Response(200, json=REPORT))
    with pytest.warns(DeprecationWarning, match="forceDevAddrs"):
        await client.device_import.upload(CSV.encode(), force_dev_addrs=False)
    assert route.calls[0].request.url.params["forceDevAddrs"] == "false"
