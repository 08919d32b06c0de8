"""Lists answered with `wire_json` skip FastAPI's response validation: each answer must be
exactly what validating it against the route's response model and writing it without nulls
(`response_model_exclude_none`) would have sent."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.schema.devices import DevicePage

from .conftest import DEVICES, Sandbox

PAGES: list[tuple[str, dict[str, Any]]] = [
    ("subscriber", {"pageSize": 100}),
    ("subscriber", {"pageSize": 100, "pageIndex": 2}),
    ("subscriber", {"pageSize": 50, "sort": "EUI,asc"}),
    ("subscriber", {"pageSize": 10, "sort": "name,desc", "connectivity": "CELLULAR"}),
    ("subscriber", {"pageSize": 20, "healthState": "RF_CNX_ERROR"}),
    ("subscriber-restricted", {"pageSize": 100}),
    ("subscriber-viewer", {"pageSize": 1000}),
]


@pytest.mark.parametrize(("role", "params"), PAGES)
def test_device_pages_equal_their_validated_form(
    sb: Sandbox, role: str, params: dict[str, Any]
) -> None:
    response = sb.get(DEVICES, role, params=params)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    sent = response.json()
    assert sent["briefs"], params  # every case has rows to compare
    validated = DevicePage.model_validate(sent).model_dump(mode="json", exclude_none=True)
    assert sent == validated


def test_no_member_is_null(sb: Sandbox) -> None:
    def nulls(value: Any, path: str) -> list[str]:
        if value is None:
            return [path]
        if isinstance(value, dict):
            return [p for k, v in value.items() for p in nulls(v, f"{path}.{k}")]
        if isinstance(value, list):
            return [p for i, v in enumerate(value) for p in nulls(v, f"{path}[{i}]")]
        return []

    body = sb.get(DEVICES, params={"pageSize": 1000}).json()
    assert nulls(body, "$") == []
