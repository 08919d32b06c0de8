"""The device catalog routes: filters checked, paging by index, every profile the demo
devices use present with its vendor, and an older database given the catalog once."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from lpwa_console.sandbox.demo import MODELS
from tests.sandbox.conftest import API, Sandbox, make_sandbox

PROFILES = f"{API}/subscriptions/mine/deviceProfiles"
VENDORS = f"{API}/subscriptions/mine/deviceVendors"


def test_filters_are_checked(sb: Sandbox) -> None:
    for path, params in (
        (PROFILES, {"connectivity": "WIFI"}),
        (PROFILES, {"ismBandID": "eu999"}),
        (VENDORS, {"sort": "BY_SIZE"}),
        (PROFILES, {"pageIndex": 0}),
    ):
        answer = sb.get(path, params=params)
        assert answer.status_code == 400, (path, params, answer.text)
        assert answer.json()["code"] == 40000


def test_profiles_of_the_demo_devices_with_their_vendor(sb: Sandbox) -> None:
    body = sb.get(PROFILES, params={"ID": [ref for ref, _n, _c in MODELS]}).json()
    assert sorted(p["ID"] for p in body["briefs"]) == sorted(ref for ref, _n, _c in MODELS)
    assert all(p["vendor"]["ID"] != "generic" for p in body["briefs"])
    used = sb.all_devices()
    assert {d["model"]["ID"] for d in used if d.get("model")} <= {r for r, _n, _c in MODELS}
    vendors = sb.get(VENDORS, params={"name": "ab", "language-tag": "fr-FR"}).json()
    assert [v["ID"] for v in vendors["briefs"]] == ["abeeway"]  # deprecated prefix filter


def test_an_older_database_gets_the_catalog_once(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sandbox = make_sandbox(path, demo_devices=20)
    next(sandbox)
    sandbox.close()
    with sqlite3.connect(path) as conn:  # as a database made before the catalog
        conn.execute("DELETE FROM demo_parts WHERE name = 'device-catalog'")
        conn.execute("UPDATE device_models SET vendor_id = NULL")
        conn.execute("DELETE FROM device_model_bands")
        conn.execute("DELETE FROM device_models WHERE ref LIKE 'LORA/%'")
    again = make_sandbox(path, demo_devices=20)
    sb: Any = next(again)
    body = sb.get(PROFILES, params={"pageSize": 1000}).json()
    by_id = {p["ID"]: p for p in body["briefs"]}
    assert by_id["itron-cyble-lw"]["vendor"]["ID"] == "itron"
    assert by_id["itron-cyble-lw"]["defaultIsmBands"] == [
        {"ID": "eu868", "name": "EU863-870 (EU868)"}
    ]
    assert "LORA/GenericA.1.0.3a_ETSI" in by_id
    again.close()
