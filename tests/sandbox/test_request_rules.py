"""Request rules every route obeys (issue 21 §4), walked over the served OpenAPI document so
that a new route is held to them too: a one-value query parameter given twice is refused
(400 naming it), never cut to its last value; an unknown method answers 405 with `Allow`
listing exactly the methods the path serves, and an unknown path answers 404 whatever the
method (identifiers that may hold `/` are one percent-encoded segment)."""

from __future__ import annotations

import re
from typing import Any

from .conftest import API, Sandbox

_PARAM = re.compile(r"\{[^}]+\}")
METHODS = {"get", "post", "put", "delete", "patch"}


def _document(sb: Sandbox) -> dict[str, Any]:
    response = sb.client.get("/openapi.json")
    assert response.status_code == 200
    return dict(response.json())


def _concrete(template: str) -> str:
    return _PARAM.sub("1", template)


def test_a_one_value_query_parameter_twice_is_refused_on_every_route(sb: Sandbox) -> None:
    checked = 0
    for template, operations in _document(sb)["paths"].items():
        operation = operations.get("get")
        if operation is None:
            continue
        for parameter in operation.get("parameters", []):
            schema = parameter.get("schema", {})
            branches = [schema, *schema.get("anyOf", [])]
            if parameter["in"] != "query" or any(b.get("type") == "array" for b in branches):
                continue
            name = parameter["name"]
            twice = [(name, "1"), (name, "2")]
            response = sb.get(_concrete(template), "operator", params=twice)
            assert response.status_code == 400, (template, name, response.text)
            assert response.json()["message"].startswith(f"{name}: one value is accepted")
            checked += 1
    assert checked > 100  # every list's paging, sorting and one-value filters
    # The filters that take several values still do.
    devices = f"{API}/subscriptions/mine/devices"
    tags = sb.get(devices, params=[("tag", "a"), ("tag", "b")])
    assert tags.status_code == 200, tags.text
    states = sb.get(f"{API}/kmSubscriptions/mine/devices",
                    params=[("state", "GENERIC"), ("state", "ACTIVATED")])  # fmt: skip
    assert states.status_code == 400 and states.json()["message"].startswith("state: one value")


def test_an_unknown_method_lists_what_the_path_serves(sb: Sandbox) -> None:
    # Templates of one shape (`/admins/{status}` GET, `/admins/{command}` POST) serve one path.
    shapes: dict[str, set[str]] = {}
    for template, operations in _document(sb)["paths"].items():
        served = {m.upper() for m in operations if m in METHODS}
        shapes.setdefault(_concrete(template), set()).update(served)
    checked = 0
    for path, served in shapes.items():
        if "PATCH" in served:
            continue
        response = sb.client.patch(path, headers=sb.headers("operator"))
        assert response.status_code == 405, (path, response.text)
        assert set(response.headers["Allow"].split(", ")) == served, path
        assert response.json()["code"] == 40500
        checked += 1
    assert checked > 150


def test_an_unknown_path_is_404_whatever_the_method(sb: Sandbox) -> None:
    applications = f"{API}/applications"
    regions = f"{API}/admins/operators/mine/rfRegions"
    unknown = [
        f"{applications}/1/nope", f"{applications}/id%3Alpwa%2Fconsole/subscriptions/nope",
        f"{applications}/1/subscriptions/users/1/contexts/more",
        f"{regions}/EU868/logo/more", f"{regions}/EU868/locals",
        f"{API}/subscriptions/mine/appServers/1/security/more",
    ]  # fmt: skip
    for path in unknown:
        for method in ("GET", "DELETE", "PUT", "PATCH"):
            response = sb.client.request(method, path, headers=sb.headers("operator"))
            assert response.status_code == 404, (method, path, response.text)
            assert response.json()["code"] == 40401
    # A known path with another method: 405 naming only what is served there.
    logo = sb.client.delete(f"{regions}/EU868/logo", headers=sb.headers("operator"))
    assert logo.status_code == 405 and logo.headers["Allow"] == "GET, POST"
    # A literal beats an identifier: this path is the catalog's, not a profile's (no PUT).
    catalog = f"{API}/admins/operators/mine/deviceProfiles/catalog"
    put = sb.client.put(catalog, headers=sb.headers("operator"), json={})
    assert put.status_code == 405 and put.headers["Allow"] == "GET, POST"
    app = sb.client.delete(f"{applications}/id%3Alpwa%2Fconsole", headers=sb.headers())
    assert app.status_code == 405 and app.headers["Allow"] == "GET"
    # An encoded slash stays inside its identifier: this is the application's own path.
    found = sb.get(f"{applications}/id%3Alpwa%2Fconsole")
    assert found.status_code == 200 and found.json()["ID"] == "lpwa/console"
