"""The import upload: a multipart `csv` file part, query parameters, and the platform's answer
(empty body, or the error document whose message is a CSV of failed lines) read into one
result per line sent."""

from __future__ import annotations

import httpx
import pytest
import respx

from lpwa_console.api import LpwaClient, PermissionDeniedError
from lpwa_console.api.errors import APIConnectionError, InternalServerError
from lpwa_console.api.resources.device_import import import_not_applied
from lpwa_console.schema.device_import import parse_import_csv

pytestmark = pytest.mark.anyio

BASE = "https://platform.test/rest"
IMPORT = f"{BASE}/subscriptions/mine/devices/import"
KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"
CSV = f"CREATE_ABP,70B3D5E75E000001,01020304,prof,,{KEY}\nCREATE_OTAA,70B3D5E75E000002,,prof\n"
# A user's file: a comment line first, so its device lines are 2, 3, 4.
USER_FILE = (
    "# my devices\r\n"
    f"CREATE_OTAA,70B3D5E75E000011,,prof,{APP_EUI},{KEY}\r\n"
    f'CREATE_OTAA,70B3D5E75E000012,,prof,{APP_EUI},{KEY},,,,,"Meter, hall B"\r\n'
    "DELETE,70B3D5E75E000013\r\n"
)


@pytest.fixture
async def client():
    async with httpx.AsyncClient() as http:
        yield LpwaClient(BASE, None, http=http)


def error_doc(message: str) -> httpx.Response:
    return httpx.Response(200, json={"code": 1, "message": message})


@respx.mock
async def test_upload_text_as_multipart_csv_empty_answer_is_all_ok(client: LpwaClient) -> None:
    route = respx.post(IMPORT).mock(return_value=httpx.Response(200))
    report = await client.device_import.upload(CSV, domains=["Site:France/Paris"])
    assert (report.total, report.okCount, report.errorCount, report.unknownCount) == (2, 2, 0, 0)
    assert [(r.row, r.EUI, r.status) for r in report.results] == [
        (1, "70B3D5E75E000001", "OK"),
        (2, "70B3D5E75E000002", "OK"),
    ]
    request = route.calls[0].request
    assert request.headers["content-type"].startswith("multipart/form-data")
    body = request.content
    assert b'name="csv"; filename="devices.csv"' in body
    assert b"Content-Type: text/csv" in body
    assert CSV.encode() in body
    assert request.url.params.get_list("domain") == ["Site:France/Paris"]
    assert "forceDevAddrs" not in request.url.params and "async" not in request.url.params


@respx.mock
async def test_error_document_gives_per_line_results(client: LpwaClient) -> None:
    respx.post(IMPORT).mock(
        return_value=error_doc(
            "70B3D5E75E000002,line 2,[111] A device already exists for the given EUI,"
            '"[222] No device profile for the given ID : prof, or not yours"\n'
        )
    )
    report = await client.device_import.upload(CSV.encode())
    assert (report.okCount, report.errorCount) == (1, 1)
    failed = report.results[1]
    assert (failed.row, failed.status, failed.line) == (2, "ERROR", 2)
    assert [(e.code, e.message) for e in failed.errors] == [
        ("111", "A device already exists for the given EUI"),
        ("222", "No device profile for the given ID : prof, or not yours"),
    ]
    # What the user reads: the platform's words, without its codes (kept in `errors`).
    assert failed.message == (
        "A device already exists for the given EUI; "
        "No device profile for the given ID : prof, or not yours"
    )


@respx.mock
async def test_rows_in_batches_map_back_to_the_users_lines(client: LpwaClient) -> None:
    rows = parse_import_csv(USER_FILE)
    assert [r.row for r in rows] == [2, 3, 4]
    # The batch sent is rows 3 and 4 only: the platform numbers them 1 and 2.
    route = respx.post(IMPORT).mock(
        return_value=error_doc("70B3D5E75E000013,line 2,[404] no device\n")
    )
    report = await client.device_import.upload(rows[1:], filename="retry.csv")
    body = route.calls[0].request.content
    assert b'filename="retry.csv"' in body
    assert b"CREATE_OTAA,70B3D5E75E000012,,prof," in body and b'"Meter, hall B"\r\n' in body
    assert [(r.row, r.line, r.status) for r in report.results] == [
        (3, 1, "OK"),
        (4, 2, "ERROR"),
    ]
    assert report.failed_rows == [4]


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        (httpx.Response(200, text="<html>Gateway hiccup</html>"), "Gateway hiccup"),
        (
            httpx.Response(200, json={"code": 5, "message": "Internal error, please retry"}),
            "Internal error, please retry",
        ),
        (httpx.Response(200, json={"code": 5, "message": ""}), '"code":5'),
        (httpx.Response(200, json={"results": []}), '"results"'),
        (httpx.Response(200, json=[1, 2]), "[1,2]"),
        (httpx.Response(202, headers={"Location": "/tasks/17"}), "/tasks/17"),
    ],
)
@respx.mock
async def test_unreadable_answer_leaves_every_line_unknown(
    client: LpwaClient, answer: httpx.Response, shown: str
) -> None:
    respx.post(IMPORT).mock(return_value=answer)
    report = await client.device_import.upload(CSV)
    assert report.unknownCount == 2 and report.okCount == report.errorCount == 0
    assert report.unknown_rows == [1, 2]
    message = report.results[0].message or ""
    assert message.startswith("outcome unknown") and shown in message, message


@respx.mock
async def test_error_csv_as_a_plain_body_is_read_too(client: LpwaClient) -> None:
    respx.post(IMPORT).mock(
        return_value=httpx.Response(200, text="70B3D5E75E000001,line 1,[7] nope\n")
    )
    report = await client.device_import.upload(CSV)
    assert report.failed_rows == [1] and report.okCount == 1


@respx.mock
async def test_whole_request_refused_raises(client: LpwaClient) -> None:
    respx.post(IMPORT).mock(
        return_value=httpx.Response(403, json={"code": 40302, "message": "domain: outside"})
    )
    with pytest.raises(PermissionDeniedError) as caught:
        await client.device_import.upload(CSV, domains=["Site:Germany/Berlin"])
    assert import_not_applied(caught.value)


@respx.mock
async def test_which_failures_changed_nothing(client: LpwaClient) -> None:
    respx.post(IMPORT).mock(return_value=httpx.Response(502, json={"code": 1, "message": "x"}))
    with pytest.raises(InternalServerError) as server:
        await client.device_import.upload(CSV)
    assert not import_not_applied(server.value)  # POST is not retried; may be half done
    refused = APIConnectionError("Cannot connect")
    refused.__cause__ = httpx.ConnectError("refused")
    assert import_not_applied(refused)
    lost = APIConnectionError("Connection lost")
    lost.__cause__ = httpx.ReadError("reset")
    assert not import_not_applied(lost)


@respx.mock
async def test_deprecated_force_dev_addrs_warns(client: LpwaClient) -> None:
    route = respx.post(IMPORT).mock(return_value=httpx.Response(200))
    with pytest.warns(DeprecationWarning, match="forceDevAddrs"):
        await client.device_import.upload(CSV.encode(), force_dev_addrs=False)
    assert route.calls[0].request.url.params["forceDevAddrs"] == "false"
