"""No input makes the sandbox fail (issue 7 §4), over real HTTP on one kept-alive
connection: each hostile request gets a 4xx `{code, message}` in plain words, and the next
request goes over the same connection and succeeds."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from lpwa_console.sandbox import SandboxSettings, create_app
from lpwa_console.sandbox.accounts import listing
from lpwa_console.sandbox.cli import listening_socket
from lpwa_console.sandbox.errors import validation_message
from lpwa_console.sandbox.json_body import MAX_JSON_BYTES

API = "/thingpark/wireless/rest/subscriptions/mine"
TOKEN = "/users-auth/protocol/openid-connect/token"
BIG = str(2**63)
LONG = "x" * 50_001


class Live:
    """A sandbox app served by uvicorn in a thread on a free loopback port."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        sock = listening_socket("127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_config=None, lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]})
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.01)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)

    def account(self, role: str) -> dict[str, Any]:
        return next(a for a in listing(self.app.state.services.db.conn()) if a["role"] == role)


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    app = create_app(
        SandboxSettings(db_path=tmp_path_factory.mktemp("robust") / "sandbox.db", demo_devices=20)
    )

    def crash() -> None:  # a bug, as any route might have one
        raise RuntimeError("boom")

    def overflow() -> None:  # what SQLite raises for an integer beyond 64 bits
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    def too_large() -> None:  # what SQLite raises for an OR chain of 1,000 filter values
        raise sqlite3.OperationalError("Expression tree is too large (maximum depth 1000)")

    def locked() -> None:  # an SQLite failure that is not the request's doing
        raise sqlite3.OperationalError("database is locked")

    app.add_api_route("/test-only/crash", crash, methods=["GET"])
    app.add_api_route("/test-only/overflow", overflow, methods=["GET"])
    app.add_api_route("/test-only/too-large", too_large, methods=["GET"])
    app.add_api_route("/test-only/locked", locked, methods=["GET"])
    server = Live(app)
    yield server
    server.stop()
    app.state.services.db.close()


@pytest.fixture
def client(live: Live) -> Iterator[httpx.Client]:
    account = live.account("subscriber")
    with httpx.Client(base_url=live.url, timeout=30) as client:
        token = client.post(
            TOKEN,
            data={
                "grant_type": "client_credentials",
                "client_id": account["client_id"],
                "client_secret": account["client_secret"],
            },
        ).json()["access_token"]
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def _peer(response: httpx.Response) -> Any:
    """The local address of the connection that carried `response`."""
    return response.extensions["network_stream"].get_extra_info("client_addr")


def _then_still_served(client: httpx.Client, failed: httpx.Response) -> None:
    assert failed.headers.get("connection", "").lower() != "close"
    after = client.get(f"{API}/devices", params={"pageSize": 10})
    assert after.status_code == 200, after.text
    assert _peer(failed) is not None
    assert _peer(after) == _peer(failed), "the server dropped the kept-alive connection"


def _first_device(client: httpx.Client) -> str:
    return str(client.get(f"{API}/devices").json()["briefs"][0]["ref"])


def _plain(message: str) -> None:
    for internal in ("function-after", "list[", "str]", "type=", "pydantic", "Traceback"):
        assert internal not in message


HOSTILE: dict[str, tuple[str, str, dict[str, Any], int, str]] = {
    # label: method, path, request arguments, status, words the message must hold
    "pageIndex 2^63": ("GET", "/devices", {"params": {"pageIndex": BIG}}, 400, "pageIndex"),
    "device UID 2^63": ("GET", f"/devices/{BIG}", {}, 404, BIG),
    "group UID 2^63": ("GET", f"/multicastGroups/{BIG}", {}, 404, BIG),
    "alarm ID 2^63": ("GET", "/devices/alarms", {"params": {"ID": BIG}}, 400, "ID"),
    "group alarms UID 2^63": ("GET", f"/multicastGroups/{BIG}/alarms", {}, 404, BIG),
    "alarms from year 1": ("GET", "/devices/alarms", {"params": {"from": "0001-01-01T00:00:00"}},
                           400, "from: 0001-01-01T00:00:00 is out of the range"),
    "group frames from year 1": ("GET", "/multicastGroups/frames",
                                 {"params": {"begin": "0001-01-01T00:00:00"}}, 400, "begin: "),
    "1000 tags": ("GET", "/devices", {"params": {"tag": [f"t{i}" for i in range(1000)]}}, 400,
                  "tag: at most"),
    "1000 devEUIs": ("GET", "/devices", {"params": {"devEUI": [f"{i:016X}" for i in range(1000)]}},
                     400, "devEUI: at most"),
    "1000 appServerIDs": ("GET", "/devices", {"params": {"appServerID": [f"a{i}" for i in range(1000)]}},
                          400, "appServerID: at most"),
    "1000 alarm domains": ("GET", "/devices/alarms", {"params": {"domain": [f"d{i}" for i in range(1000)]}},
                           400, "domain: at most"),
    "1000 group domains": ("GET", "/multicastGroups", {"params": {"domain": [f"d{i}" for i in range(1000)]}},
                           400, "domain: at most"),
    "50k name prefix": ("GET", "/devices", {"params": {"name": LONG}}, 400, "name: at most"),
    "50k group name prefix": ("GET", "/multicastGroups", {"params": {"name": LONG}}, 400,
                              "name: at most"),
    "50k tag suggestion": ("GET", "/devices/tags/suggestions", {"params": {"query": LONG}}, 400,
                           "query: at most"),
    "50k base station tag suggestion": ("GET", "/multicastGroups/bss/tags/suggestions",
                                        {"params": {"query": LONG}}, 400, "query: at most"),
    "50k app server query": ("GET", "/appServers", {"params": {"query": LONG}}, 400,
                             "query: at most"),
}  # fmt: skip


@pytest.mark.parametrize("label", list(HOSTILE))
def test_a_hostile_request_gets_a_4xx_and_the_connection_stays(
    client: httpx.Client, label: str
) -> None:
    method, path, kwargs, status, words = HOSTILE[label]
    client.get(f"{API}/devices", params={"pageSize": 10})  # the connection is open and kept
    response = client.request(method, f"{API}{path}", **kwargs)
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"code", "message"}
    assert body["code"] // 100 == status
    assert words in body["message"]
    _plain(body["message"])
    _then_still_served(client, response)


def test_alarm_uid_of_all_ones_names_no_alarm(client: httpx.Client) -> None:
    listed = client.get(f"{API}/devices/alarms", params={"alarmUid": "FFFFFFFFFFFFFFFF"})
    assert listed.status_code == 200, listed.text
    assert listed.json()["briefs"] == []
    device = _first_device(client)
    acked = client.post(f"{API}/devices/{device}/alarms/FFFFFFFFFFFFFFFF/ack")
    assert acked.status_code == 404, acked.text
    assert acked.json()["code"] == 40400
    _then_still_served(client, acked)


def test_an_out_of_range_number_in_a_body_is_named(client: httpx.Client) -> None:
    device = _first_device(client)
    response = client.put(f"{API}/devices/{device}", json={"markerID": 2**63})
    assert response.status_code == 400, response.text
    assert response.json() == {
        "code": 40000,
        "message": f"markerID: a number is out of range (at most {2**63 - 1})",
    }
    _then_still_served(client, response)


def test_a_nested_out_of_range_number_is_named_by_its_path(client: httpx.Client) -> None:
    device = _first_device(client)
    body = {"name": "n", "tags": ["a"], "occContext": {"version": 1, "extra": [0, -(2**63) - 1]}}
    response = client.put(f"{API}/devices/{device}", json=body)
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("occContext.extra.1: a number is out of range")
    _then_still_served(client, response)


def test_the_64_bit_check_ignores_the_content_types_case(client: httpx.Client) -> None:
    device = _first_device(client)
    response = client.put(
        f"{API}/devices/{device}",
        content=b'{"markerID": 18446744073709551616}',
        headers={"Content-Type": "Application/JSON"},
    )
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("markerID: a number is out of range")
    _then_still_served(client, response)


@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN", "1e999"])
def test_a_number_json_cannot_write_back_is_refused(client: httpx.Client, number: str) -> None:
    device = _first_device(client)
    response = client.put(
        f"{API}/devices/{device}",
        content=f'{{"name": "n", "occContext": {{"extra": [1, {number}]}}}}'.encode(),
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400, response.text
    assert response.json() == {
        "code": 40000,
        "message": f"occContext.extra.1: {number} is not a finite number",
    }
    _then_still_served(client, response)


def test_a_json_body_past_the_limit_is_413(client: httpx.Client) -> None:
    device = _first_device(client)
    big = b'{"name": "' + b"x" * MAX_JSON_BYTES + b'"}'
    response = client.put(
        f"{API}/devices/{device}", content=big, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413, response.text
    assert response.json() == {"code": 41300, "message": "body: at most 4 MB of JSON per request"}

    def chunks() -> Iterator[bytes]:  # no Content-Length: refused as the body passes it
        for _ in range(8):
            yield b" " * (MAX_JSON_BYTES // 4)
        yield b"{}"

    response = client.put(
        f"{API}/devices/{device}", content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413, response.text


def test_any_body_of_a_route_and_the_token_form_are_bounded(client: httpx.Client) -> None:
    device = _first_device(client)
    big = b"x" * (MAX_JSON_BYTES + 1)
    response = client.put(
        f"{API}/devices/{device}", content=big, headers={"Content-Type": "text/plain"}
    )
    assert response.status_code == 413 and response.json()["code"] == 41300
    form = b"grant_type=client_credentials&client_id=" + b"x" * 20_000
    token = client.post(
        TOKEN, content=form, headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert token.status_code == 413 and token.json()["error"] == "invalid_request"
    _then_still_served(client, token)


def test_a_json_body_is_parsed_once(client: httpx.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    device = _first_device(client)
    body = b'{"name": "parsed once", "occContext": {"extra": [12345678901234567890123]}}'
    seen: list[bytes] = []
    loads = json.loads

    def counting(text: Any, **kw: Any) -> Any:
        if text == body:
            seen.append(text)
        return loads(text, **kw)

    monkeypatch.setattr(json, "loads", counting)
    response = client.put(
        f"{API}/devices/{device}", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 400 and len(seen) == 1
    seen.clear()
    ok = b'{"name": "parsed once"}'
    body = ok
    response = client.put(
        f"{API}/devices/{device}", content=ok, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 200, response.text
    assert len(seen) == 1


def test_a_non_ascii_client_secret_is_an_invalid_client(live: Live, client: httpx.Client) -> None:
    response = client.post(
        TOKEN,
        data={"grant_type": "client_credentials", "client_id": "subscriber", "client_secret": "é€"},
    )
    assert response.status_code == 401, response.text
    assert response.json()["error"] == "invalid_client"
    _then_still_served(client, response)


def test_a_405_says_which_methods_the_path_allows(client: httpx.Client) -> None:
    response = client.delete(f"{API}/devices")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"  # from two routes of the same path
    assert response.json()["code"] == 40500
    assert "DELETE" in response.json()["message"]
    _then_still_served(client, response)


def test_a_bug_costs_one_request_not_the_connection(client: httpx.Client) -> None:
    response = client.get("/test-only/crash")
    assert response.status_code == 500
    assert response.json() == {"code": 50000, "message": "internal error; see the sandbox log"}
    _then_still_served(client, response)


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/test-only/overflow", 400, "out of range"),
        ("/test-only/too-large", 400, "filters are too large"),
        ("/test-only/locked", 500, "internal error"),
    ],
)
def test_store_limits_that_slip_through_are_the_clients_400(
    client: httpx.Client, path: str, status: int, words: str
) -> None:
    """A route that forgets a bound still answers 400 for what SQLite finds too big."""
    response = client.get(path)
    assert response.status_code == status
    assert words in response.json()["message"]
    _then_still_served(client, response)


def test_a_body_that_is_not_json_is_said_so(client: httpx.Client) -> None:
    response = client.post(
        f"{API}/devices", content=b"{bad", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["message"].startswith("request body: not valid JSON")
    _then_still_served(client, response)


def test_validation_messages_name_fields_not_pydantic_types() -> None:
    errors: list[dict[str, object]] = [
        {
            "type": "string_type",
            "loc": ("body", "tags", "list[function-after[check(), str]]", 0),
            "msg": "Input should be a valid string",
        },
        {"type": "model_type", "loc": ("body", "occContext"), "msg": "Input should be a..."},
        {"type": "extra_forbidden", "loc": ("body", "customHeaders", "X-A"), "msg": "Extra"},
        {"type": "missing", "loc": ("query", "minLat"), "msg": "Field required"},
        {"type": "string_pattern_mismatch", "loc": ("body", "name"), "msg": "should match '^[^<]'"},
        {"type": "value_error", "loc": ("body", "EUI"), "msg": "Value error, not hex"},
    ]
    assert validation_message(errors) == (
        "tags.0: should be a valid string; occContext: should be a JSON object;"
        " customHeaders.X-A: unknown field: not part of this request (check its spelling);"
        " minLat: required;"
        " name: has characters or a form that is not allowed here; EUI: not hex"
    )


def test_the_served_schema_documents_errors_and_path_parameters(client: httpx.Client) -> None:
    document = client.get("/openapi.json").json()
    assert document["components"]["schemas"]["Error"]["required"] == ["code", "message"]
    servers = [(p, ops) for p, ops in document["paths"].items() if "{appServerUid}" in p]
    operations = [(p, m, op) for p, ops in servers for m, op in ops.items()]
    assert len(operations) == 6
    for path, method, operation in operations:
        names = [p["name"] for p in operation["parameters"] if p["in"] == "path"]
        assert names == ["appServerUid"], (method, path)
    for path, operations_of_path in document["paths"].items():
        for method, operation in operations_of_path.items():
            responses = operation["responses"]
            assert "422" not in responses, (method, path)
            assert "400" in responses, (method, path)
            if path.startswith("/thingpark"):
                error = responses["401"]["content"]["application/json"]["schema"]
                assert error == {"$ref": "#/components/schemas/Error"}
            for name in (p["name"] for p in operation.get("parameters", []) if p["in"] == "path"):
                assert f"{{{name}}}" in path
    devices = document["paths"][f"{API}/devices"]["get"]
    tag = next(p for p in devices["parameters"] if p["name"] == "tag")
    assert tag["schema"]["anyOf"][0]["maxItems"] == 100
    assert "409" in document["paths"][f"{API}/devices"]["post"]["responses"]
    assert "404" in document["paths"][f"{API}/devices/{{deviceUid}}"]["get"]["responses"]


def test_a_restricted_account_gets_the_same_refusals(tmp_path: Path) -> None:
    """The same refusals hold for a restricted account (domain filters add SQL)."""
    app = create_app(SandboxSettings(db_path=tmp_path / "sandbox.db", demo_devices=5))
    server = Live(app)
    try:
        account = server.account("subscriber-restricted")
        with httpx.Client(base_url=server.url, timeout=30) as client:
            token = client.post(
                TOKEN,
                data={
                    "grant_type": "client_credentials",
                    "client_id": account["client_id"],
                    "client_secret": account["client_secret"],
                },
            ).json()["access_token"]
            client.headers["Authorization"] = f"Bearer {token}"
            for label in ("1000 tags", "50k name prefix", "pageIndex 2^63", "device UID 2^63"):
                method, path, kwargs, status, _ = HOSTILE[label]
                response = client.request(method, f"{API}{path}", **kwargs)
                assert response.status_code == status, (label, response.text)
                _then_still_served(client, response)
    finally:
        server.stop()
        app.state.services.db.close()
