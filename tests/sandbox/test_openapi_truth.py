"""The served `/openapi.json` tells the truth (issue 21 §4): what it walks, it checks against
the real answers. Nothing answered is declared writeOnly (a service account's secret is
answered once, on creation, and says so); the imports' empty 200 has the content type the
document gives it; every create that refuses a duplicate documents its 409; the key
manager's deprecated `force` is marked so; and even a request the HTTP server cannot read
(an over-long URL) gets the `{code, message}` error body."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from .conftest import API, Sandbox

# The creates that answer 409 for a duplicate (or an installed catalog version).
CONFLICTING_CREATES = [
    "/subscriptions/mine/devices",
    "/subscriptions/mine/multicastGroups",
    "/subscriptions/mine/cellularNetworkContexts",
    "/subscriptions/mine/asTransportKeys",
    "/partners/{partnerUid}/bss",
    "/kmSubscriptions/{kmSubscriptionUid}/devices",
    "/kmSubscriptions/{kmSubscriptionUid}/asKeys",
    "/admins/operators/{operatorUid}/hsmGroups",
    "/admins/operators/{operatorUid}/partners",
    "/suppliers/{supplierUid}/admins",
    "/admins/operators/{operatorUid}/deviceProfiles",
    "/admins/operators/{operatorUid}/baseStationProfiles",
    "/admins/operators/{operatorUid}/deviceVendors",
    "/admins/operators/{operatorUid}/baseStationVendors",
    "/admins/operators/{operatorUid}/rfRegions",
    "/admins/operators/{operatorUid}/deviceProfiles/catalog",
    "/admins/operators/{operatorUid}/deviceProfiles/catalog/selfUpdate",
    "/admins/operators/{operatorUid}/baseStationProfiles/catalog",
    "/admins/operators/{operatorUid}/baseStationProfiles/catalog/selfUpdate",
    "/admins/operators/{operatorUid}/rfRegions/catalog",
    "/admins/operators/{operatorUid}/rfRegions/catalog/selfUpdate",
]


def _document(sb: Sandbox) -> dict[str, Any]:
    return dict(sb.client.get("/openapi.json").json())


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is None:
        return schema
    return dict(document["components"]["schemas"][ref.rsplit("/", 1)[-1]])


def _nodes(document: dict[str, Any], schema: Any, seen: set[str]) -> Iterator[dict[str, Any]]:
    """Every schema object reachable from `schema`, following $refs once."""
    if isinstance(schema, list):
        for item in schema:
            yield from _nodes(document, item, seen)
        return
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return
        seen.add(ref)
        yield from _nodes(document, _resolve(document, schema), seen)
        return
    yield schema
    for value in schema.values():
        yield from _nodes(document, value, seen)


def _answered_schemas(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, response in operation.get("responses", {}).items():
                if not status.startswith("2"):
                    continue
                for media in response.get("content", {}).values():
                    yield f"{method.upper()} {path} {status}", media.get("schema", {})


def test_nothing_answered_is_declared_write_only(sb: Sandbox) -> None:
    document = _document(sb)
    walked = 0
    for where, schema in _answered_schemas(document):
        for node in _nodes(document, schema, set()):
            walked += 1
            assert not node.get("writeOnly"), where
    assert walked > 1000
    secret = document["components"]["schemas"]["ServiceAccountSecret"]["properties"]
    assert secret["clientSecret"]["readOnly"] is True
    assert "answered once" in secret["clientSecret"]["description"]
    # And it is answered, once: on creation of the secret, never when the account is read.
    base = f"{API}/suppliers/mine/serviceAccounts"
    made = sb.post(base, "supplier", json={"name": "OpenAPI", "group": {"ID": "factory"}})
    assert made.status_code == 201, made.text
    created = sb.post(f"{base}/{made.json()['ID']}/secret", "supplier")
    assert created.status_code == 201 and len(created.json()["clientSecret"]) >= 32
    assert "clientSecret" not in sb.get(f"{base}/{made.json()['ID']}", "supplier").text


def test_the_imports_answer_what_the_document_says(sb: Sandbox) -> None:
    document = _document(sb)
    imports = {
        f"{API}/subscriptions/mine/devices/import": "A,B\n",
        f"{API}/kmSubscriptions/mine/devices/import": "A,B\n",
    }
    for path, bad in imports.items():
        template = path.replace("/kmSubscriptions/mine/", "/kmSubscriptions/{kmSubscriptionUid}/")
        answer = document["paths"][template]["post"]["responses"]["200"]["content"]
        assert set(answer) == {"application/json", "text/plain"}
        assert answer["text/plain"]["schema"] == {"type": "string", "maxLength": 0}
        empty = sb.post(path, files={"csv": ("d.csv", "# nothing\n", "text/csv")})
        assert empty.status_code == 200 and empty.content == b""
        assert empty.headers["content-type"].split(";")[0] == "text/plain"
        refused = sb.post(path, files={"csv": ("d.csv", bad, "text/csv")})
        assert refused.status_code == 200
        assert refused.headers["content-type"] == "application/json"
        assert set(refused.json()) == {"code", "message"}


def test_every_create_that_refuses_a_duplicate_documents_409(sb: Sandbox) -> None:
    paths = _document(sb)["paths"]
    for path in CONFLICTING_CREATES:
        operation = paths[API + path]["post"]
        assert "201" in operation["responses"], path
        conflict = operation["responses"].get("409")
        assert conflict is not None, path
        assert conflict["content"]["application/json"]["schema"]["$ref"].endswith("/Error")
    # One of them for real: the same AS key twice.
    first = sb.post(f"{API}/kmSubscriptions/mine/asKeys", json={"ID": "twice"})
    again = sb.post(f"{API}/kmSubscriptions/mine/asKeys", json={"ID": "twice"})
    assert (first.status_code, again.status_code) == (201, 409)


def test_force_on_the_key_manager_puts_is_marked_deprecated(sb: Sandbox) -> None:
    found = 0
    for path, operations in _document(sb)["paths"].items():
        if "/kmSubscriptions/" not in path or "put" not in operations:
            continue
        for parameter in operations["put"].get("parameters", []):
            if parameter["name"] == "force":
                assert parameter.get("deprecated") is True, path
                found += 1
    assert found == 2  # devices and AS keys
    ignored = sb.put(f"{API}/kmSubscriptions/mine/asKeys/id:as-key-platform",
                     params={"force": "true"}, json={})  # fmt: skip
    assert ignored.status_code == 200, ignored.text


def _raw_request(url: str, target: bytes) -> tuple[bytes, bytes]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as conn:
        conn.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: sandbox\r\n\r\n")
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head, body


def test_a_request_the_server_cannot_read_gets_the_json_error(sandbox: Any) -> None:
    path = urlsplit(sandbox.base_url).path
    for target in (
        f"{path}/subscriptions/mine/devices?name={'a' * 100_000}".encode(),
        f"{path}/subscriptions/mine/{'b' * 1_000_000}".encode(),
        b"/no spaces allowed",
    ):
        head, body = _raw_request(sandbox.base_url, target)
        assert head.startswith(b"HTTP/1.1 400"), head
        assert b"content-type: application/json" in head.lower()
        error = json.loads(body)
        assert error["code"] == 40000 and error["message"].startswith("request: not a readable")
    # A long URL the server reads is the app's: the parameter is named.
    head, body = _raw_request(
        sandbox.base_url, f"{path}/subscriptions/mine/devices?name={'a' * 5000}".encode()
    )
    assert head.startswith(b"HTTP/1.1 400") and json.loads(body)["message"].startswith("name")
