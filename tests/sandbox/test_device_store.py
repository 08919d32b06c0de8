"""store.devices.create / updated_columns / alarm004_json: what the device routes and the
device import share."""

from __future__ import annotations

import json
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox.db import Database
from lpwa_console.sandbox.store import devices as store
from lpwa_console.schema.common import accepting_deprecated_fields
from lpwa_console.schema.devices import (
    AlarmsConfiguration,
    DeviceCreate,
    DeviceUpdate,
    app_skey_xml,
    default_alarm004,
)

from .conftest import make_sandbox

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_KEY = "000102030405060708090A0B0C0D0E0F"
NOW = 1_750_000_000_000
DEFAULT_ALARM004 = [t.model_dump() for t in default_alarm004()]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    for sandbox in make_sandbox(tmp_path / "store.db", demo_devices=0):
        yield sandbox.client.app.state.services.db  # type: ignore[attr-defined]


def _row(conn: sqlite3.Connection, uid: int) -> dict[str, Any]:
    # The keys are stored sealed (issue 21): read them opened.
    row = conn.execute(
        "SELECT *, unseal(app_key) AS open_key, unseal(app_skey) AS open_skey FROM devices"
        " WHERE uid = ?",
        (uid,),
    ).fetchone()
    out = dict(row)
    out["app_key"], out["app_skey"] = out.pop("open_key"), out.pop("open_skey")
    return out


def _ids(conn: sqlite3.Connection, table: str, *refs: str) -> list[int]:
    ids = [store.ref_id(conn, table, 1, ref) for ref in refs]
    assert None not in ids
    return [i for i in ids if i is not None]


def test_create_stores_every_field_and_the_links(db: Database) -> None:
    with accepting_deprecated_fields():  # as the routes read a client's body
        body = DeviceCreate.model_validate(
            {
                "EUI": "70b3d5e75e0000aa",
                "nwAddress": "01020304",
                "appSKey": KEY,
                "appEUI": "70B3D5E75E000001",
                "appKey": APP_KEY,
                "asTransportKey": {"ID": "atk-default"},
                "hsmGroupID": "hsm-1",
                "adminLat": 45.5,
                "adminLon": 4.5,
                "customerAdminData": "cad",
                "networkContextID": "ctx",
                "tags": [{"name": "b"}, {"name": "a"}, {"name": "a"}],
                "domains": [{"name": "Lyon", "group": {"name": "Site"}}],
                "markerID": 7,
            }
        )
    with db.write() as conn, warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # markerID is read quietly
        servers = _ids(conn, "app_servers", "as-metering")
        profile = _ids(conn, "routing_profiles", "rp-metering")[0]
        uid = store.create(
            conn, 1, body, now=NOW, routing_profile_id=profile,
            domains=[("Site", "Lyon")], app_servers=servers,
        )  # fmt: skip
    conn = db.conn()
    row = _row(conn, uid)
    assert row["eui"] == row["name"] == "70B3D5E75E0000AA"
    assert (row["connectivity"], row["activation"], row["health"]) == ("LORAWAN", "ABP", "INIT")
    assert row["creation_date"] == NOW and row["model_id"] is None
    assert (row["lat"], row["lon"], row["admin_lat"], row["admin_lon"]) == (45.5, 4.5, 45.5, 4.5)
    assert (row["app_key"], row["app_skey"], row["app_eui"]) == (APP_KEY, KEY, "70B3D5E75E000001")
    assert (row["as_transport_key"], row["hsm_group_id"]) == ("atk-default", "hsm-1")
    assert (row["routing_profile_id"], row["marker_id"], row["last_imei"]) == (profile, 7, None)
    assert json.loads(row["alarm004"]) == DEFAULT_ALARM004
    device = store.briefs(conn, [uid], full=True)[0]
    assert [t["name"] for t in device["tags"]] == ["a", "b"]
    assert device["domains"] == [{"name": "Lyon", "group": {"name": "Site"}}]
    assert [s["ID"] for s in device["appServers"]] == ["as-metering"]
    assert device["appServersRoutingProfile"]["ID"] == "rp-metering"


def test_create_a_cellular_device_with_the_deprecated_xml_key(db: Database) -> None:
    cellular = DeviceCreate(EUI="49015420323751", connectivity="CELLULAR", imsi="208011234567")
    with pytest.warns(DeprecationWarning, match=r"DeviceCreate\.appKeys is deprecated"):
        abp = DeviceCreate(EUI="70B3D5E75E0000AB", nwAddress="01020304", appKeys=app_skey_xml(KEY))
    with db.write() as conn, warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # appKeys is read quietly
        uids = [store.create(conn, 1, body, now=NOW) for body in (cellular, abp)]
    first, second = (_row(db.conn(), uid) for uid in uids)
    assert first["last_imei"] == "49015420323751" and first["imsi"] == "208011234567"
    assert first["activation"] is None and first["app_skey"] is None
    assert second["app_skey"] == KEY
    assert store.briefs(db.conn(), uids)[0]["tags"] == []


def test_alarm004_json() -> None:
    assert json.loads(store.alarm004_json(None)) == DEFAULT_ALARM004
    assert json.loads(store.alarm004_json(AlarmsConfiguration())) == DEFAULT_ALARM004
    assert json.loads(store.alarm004_json(AlarmsConfiguration(alarm004=[]))) == DEFAULT_ALARM004
    one = AlarmsConfiguration.model_validate({"alarm004": [{"level": 4, "duration": "pt2h"}]})
    assert json.loads(store.alarm004_json(one)) == [
        {"status": "ENABLE", "level": 4, "duration": "PT2H"}
    ]


def test_updated_columns_only_the_fields_given() -> None:
    assert store.updated_columns(DeviceUpdate()) == {}
    with accepting_deprecated_fields():
        marked = DeviceUpdate(name="n", markerID=3)
    assert store.updated_columns(marked) == {}  # the callers' part
    assert store.updated_columns(DeviceUpdate(customerAdminData=None, imsi="1234567")) == {
        "customer_admin_data": None,
        "imsi": "1234567",
    }
    assert store.updated_columns(DeviceUpdate(adminLat=1.0, adminLon=2.0)) == {
        "admin_lat": 1.0, "admin_lon": 2.0, "lat": 1.0, "lon": 2.0,
    }  # fmt: skip
    with accepting_deprecated_fields():
        xml = DeviceUpdate(appKeys=app_skey_xml(KEY))
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert store.updated_columns(xml) == {"app_skey": KEY}
    assert store.updated_columns(DeviceUpdate(appSKey=None)) == {"app_skey": None}
    config = store.updated_columns(DeviceUpdate(alarmsConfiguration=AlarmsConfiguration()))
    assert json.loads(config["alarm004"]) == DEFAULT_ALARM004
