from __future__ import annotations

import warnings
from typing import Any

import pytest
from fastapi.testclient import TestClient

from lpwa_console.schema.devices import Device, DeviceUpdate, app_skey_xml

from .conftest import DEVICES, Sandbox

EUI = "0018B2000000AB01"
APP_SKEY = "000102030405060708090A0B0C0D0E0F"


def _create(sb: Sandbox, role: str = "subscriber", **body: Any) -> Any:
    return sb.post(DEVICES, role, json={"EUI": EUI, **body})


def test_create_get_update_round_trip(sb: Sandbox) -> None:
    created = _create(
        sb,
        name="Water meter 9999 Lyon Confluence",
        model={"ID": "itron-cyble-lw"},
        appEUI="70B3D57ED0000000",
        appKey="00112233445566778899AABBCCDDEEFF",
        tags=[{"name": "water"}, {"name": "new-tag"}],
        domains=[{"name": "France/Lyon", "group": {"name": "Site"}}],
        appServers=[{"ID": "as-metering"}],
        asTransportKey={"ID": "atk-default"},
        hsmGroupID="hsm-eu-west-1",
        adminLat=45.74,
        adminLon=4.82,
    )
    assert created.status_code == 201, created.text
    device = Device.model_validate(created.json())
    assert device.EUI == EUI and device.activation == "OTAA"
    assert device.href == f"/subscriptions/mine/devices/{device.ref}"
    assert {t.name for t in device.tags} == {"water", "new-tag"}
    assert all(t.href for t in device.tags)
    assert device.asTransportKey is not None and device.asTransportKey.name == "Default key"
    assert device.hsmGroupID == "hsm-eu-west-1"
    assert device.model is not None and device.model.commercialName
    assert device.alarmsConfiguration is not None
    thresholds = device.alarmsConfiguration.alarm004 or []
    assert [(t.level, t.duration) for t in thresholds] == [(3, "P2D"), (5, "P4D")]
    for secret in ("appKey", "appSKey", "appKeys"):
        assert secret not in created.json()

    by_uid = sb.get(f"{DEVICES}/{device.ref}").json()
    by_eui = sb.get(f"{DEVICES}/e{EUI}").json()
    same = [{k: v for k, v in d.items() if k != "now"} for d in (by_uid, by_eui, created.json())]
    assert same[0] == same[1] == same[2]  # `now` is the server's clock at each answer

    updated = sb.put(f"{DEVICES}/e{EUI}", json={"name": "Renamed", "tags": [{"name": "gas"}]})
    assert updated.status_code == 200, updated.text
    body = updated.json()
    assert body["name"] == "Renamed"
    assert [t["name"] for t in body["tags"]] == ["gas"]
    # Only the given fields change.
    assert body["domains"] == by_uid["domains"] and body["appServers"] == by_uid["appServers"]
    assert body["hsmGroupID"] == "hsm-eu-west-1"


def test_name_defaults_to_the_eui(sb: Sandbox) -> None:
    response = _create(sb)
    assert response.status_code == 201
    assert response.json()["name"] == EUI


def test_abp_with_deprecated_app_keys_xml(sb: Sandbox) -> None:
    response = _create(sb, activation="ABP", nwAddress="26011234", appKeys=app_skey_xml(APP_SKEY))
    assert response.status_code == 201, response.text
    row = (
        sb.client.app.state.services.db.conn()
        .execute(  # type: ignore[attr-defined]
            "SELECT unseal(app_skey) FROM devices WHERE eui = ?", (EUI,)
        )
        .fetchone()
    )
    assert row[0] == APP_SKEY
    assert "appSKey" not in response.json()


def test_deprecated_fields_from_clients_are_accepted_without_warnings(sb: Sandbox) -> None:
    """The request models' DeprecationWarning is for the code that sets a field: the sandbox
    reading a client's body stays quiet."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        created = _create(
            sb, activation="ABP", nwAddress="26011234", appKeys=app_skey_xml(APP_SKEY),
            markerID=4, verificationCode="v",
        )  # fmt: skip
        assert created.status_code == 201, created.text
        updated = sb.put(
            f"{DEVICES}/e{EUI}", json={"markerID": 5, "appKeys": app_skey_xml(APP_SKEY)}
        )
        assert updated.status_code == 200, updated.text
        group = sb.post(
            f"{DEVICES.rsplit('/', 1)[0]}/multicastGroups",
            json={"EUI": "70B3D5E75F0000C0", "nwAddress": "FC00AC80",
                  "appKeys": app_skey_xml(APP_SKEY), "verificationCode": "v"},
        )  # fmt: skip
        assert group.status_code == 201, group.text
        settings = sb.put(
            DEVICES.rsplit("/", 1)[0], json={"options": {"devAddrValidation": "DEACTIVATED"}}
        )
        assert settings.status_code == 200, settings.text
    ours = [w for w in caught if "must no longer be used" in str(w.message)]
    assert ours == []
    # ... while the same body built here warns.
    with pytest.warns(DeprecationWarning, match="markerID"):
        DeviceUpdate.model_validate({"markerID": 5})


def test_cellular_device(sb: Sandbox) -> None:
    response = sb.post(
        DEVICES,
        json={
            "EUI": "35999900000012",
            "connectivity": "CELLULAR",
            "imsi": "208019999000001",
            "networkContextID": "nc-orange-fr",
        },
    )
    assert response.status_code == 201, response.text
    assert response.json()["lastIMEI"] == "35999900000012"
    found = sb.all_devices(imei="35999900000012")
    assert [d["EUI"] for d in found] == ["35999900000012"]


def test_duplicate_eui_is_409(sb: Sandbox) -> None:
    assert _create(sb).status_code == 201
    again = _create(sb, name="other")
    assert again.status_code == 409
    assert again.json()["code"] == 40900
    assert again.json()["message"].startswith("EUI:")


def test_validation_errors_are_400_starting_with_the_field(sb: Sandbox) -> None:
    response = sb.post(DEVICES, json={"EUI": "XYZ"})
    assert response.status_code == 400
    assert response.json() == {
        "code": 40000,
        "message": "EUI: 'X' is not a hexadecimal digit (0-9, A-F)",
    }
    several = sb.post(DEVICES, json={"EUI": "XYZ", "adminLat": 123, "tags": [{"name": "<b>"}]})
    message = several.json()["message"]
    assert several.status_code == 400
    assert "EUI: " in message and "adminLat: " in message and "tags.0.name: " in message
    assert message.count("; ") >= 2
    assert sb.post(DEVICES, json={"EUI": EUI, "bogus": 1}).json()["message"].startswith("bogus:")
    not_json = sb.post(DEVICES, content=b"{", headers={"Content-Type": "application/json"})
    assert not_json.status_code == 400


def test_unknown_references_are_400(sb: Sandbox) -> None:
    for body in ({"model": {"ID": "nope"}}, {"appServers": [{"ID": "nope"}]}):
        response = _create(sb, **body)
        assert response.status_code == 400
        assert response.json()["code"] == 40001


def test_unknown_network_context_or_hsm_group_is_400_naming_the_field(sb: Sandbox) -> None:
    cellular = {"EUI": "35999900000012", "connectivity": "CELLULAR", "imsi": "208019999000001"}
    bad_context = sb.post(DEVICES, json={**cellular, "networkContextID": "nc-nope"})
    assert bad_context.status_code == 400
    assert bad_context.json() == {"code": 40001, "message": "networkContextID: unknown ID nc-nope"}
    bad_group = _create(sb, hsmGroupID="hsm-nope")
    assert bad_group.status_code == 400
    assert bad_group.json() == {"code": 40001, "message": "hsmGroupID: unknown ID hsm-nope"}
    assert sb.get(f"{DEVICES}/e{EUI}").status_code == 404  # nothing was created
    # Known ones are fine; an update is checked the same way, and may clear them.
    assert _create(sb, hsmGroupID="hsm-eu-west-1").status_code == 201
    device = f"{DEVICES}/e{EUI}"
    refused = sb.put(device, json={"hsmGroupID": "hsm-nope", "name": "not applied"})
    assert refused.status_code == 400 and refused.json()["message"].startswith("hsmGroupID:")
    assert sb.get(device).json()["name"] == EUI
    assert sb.put(device, json={"hsmGroupID": "hsm-eu-central-1"}).json()["hsmGroupID"] == (
        "hsm-eu-central-1"
    )
    assert "hsmGroupID" not in sb.put(device, json={"hsmGroupID": None}).json()
    created = sb.post(DEVICES, json={**cellular, "networkContextID": "nc-orange-fr"})
    assert created.status_code == 201, created.text
    moved = sb.put(f"{DEVICES}/e{cellular['EUI']}", json={"networkContextID": "nc-gone"})
    assert moved.status_code == 400 and moved.json()["message"] == (
        "networkContextID: unknown ID nc-gone"
    )


def test_unknown_device_is_404(sb: Sandbox) -> None:
    for ref in ("999999", "eFFFFFFFFFFFFFFFF", "not-a-ref"):
        response = sb.get(f"{DEVICES}/{ref}")
        assert response.status_code == 404
        assert response.json()["code"] == 40400
    assert sb.put(f"{DEVICES}/999999", json={"name": "x"}).status_code == 404


def test_routing_profile_needs_more_than_write_node(sb: Sandbox) -> None:
    created = _create(sb, domains=[{"name": "France/Paris", "group": {"name": "Site"}}])
    ref = created.json()["ref"]
    body = {"appServersRoutingProfile": {"ID": "rp-metering"}}
    refused = sb.put(f"{DEVICES}/{ref}", "subscriber-restricted", json=body)
    assert refused.status_code == 403
    assert refused.json()["message"].startswith("appServersRoutingProfile")
    allowed = sb.put(f"{DEVICES}/{ref}", json=body)
    assert allowed.status_code == 200
    profile = allowed.json()["appServersRoutingProfile"]
    assert profile["ID"] == "rp-metering"
    assert profile["lorawanAsTransportKey"]["ID"] == "atk-metering-2024"


CELLULAR = {"EUI": "35999900000012", "connectivity": "CELLULAR", "imsi": "208019999000001"}
METERING = {
    "ID": "rp-metering",
    "name": "Metering routing",
    "lorawanAsTransportKey": {"ID": "atk-metering-2024", "name": "Metering key 2024"},
}


def test_routing_profile_must_suit_the_device_connectivity(sb: Sandbox) -> None:
    lora = f"{DEVICES}/{_create(sb).json()['ref']}"
    cell = f"{DEVICES}/{sb.post(DEVICES, json=CELLULAR).json()['ref']}"
    # A LoRaWAN profile on a cellular device, a cellular one on a LoRaWAN device: 400 naming
    # the field, with the code of the other validation errors, and nothing applied.
    for device, ref, kinds in (
        (cell, "rp-metering", ("LORAWAN routing profile", "CELLULAR device")),
        (lora, "rp-cellular", ("CELLULAR routing profile", "LORAWAN device")),
    ):
        refused = sb.put(
            device, json={"name": "not applied", "appServersRoutingProfile": {"ID": ref}}
        )
        assert refused.status_code == 400, refused.text
        body = refused.json()
        assert set(body) == {"code", "message"} and body["code"] == 40000
        assert body["message"].startswith(f"appServersRoutingProfile: {ref} ")
        assert all(k in body["message"] for k in kinds)
        after = sb.get(device).json()
        assert after["name"] != "not applied" and "appServersRoutingProfile" not in after
    # Unknown stays an unknown reference.
    unknown = sb.put(cell, json={"appServersRoutingProfile": {"ID": "rp-nowhere"}})
    assert unknown.status_code == 400 and unknown.json() == {
        "code": 40001, "message": "appServersRoutingProfile: unknown ID rp-nowhere",
    }  # fmt: skip
    # Matching profiles are accepted; the representation is {ID, name[, lorawanAsTransportKey]}.
    moved = sb.put(cell, json={"appServersRoutingProfile": {"ID": "rp-cellular"}})
    assert moved.status_code == 200, moved.text
    assert moved.json()["appServersRoutingProfile"] == {
        "ID": "rp-cellular",
        "name": "Cellular routing",
    }
    assert (
        sb.get(cell).json()["appServersRoutingProfile"] == moved.json()["appServersRoutingProfile"]
    )
    routed = sb.put(lora, json={"appServersRoutingProfile": {"ID": "rp-metering"}})
    assert routed.status_code == 200 and routed.json()["appServersRoutingProfile"] == METERING
    # Clearing it needs no check.
    cleared = sb.put(cell, json={"appServersRoutingProfile": None})
    assert cleared.status_code == 200 and "appServersRoutingProfile" not in cleared.json()


def test_a_created_device_gets_no_routing_profile_from_the_body(sb: Sandbox) -> None:
    """POST /devices has no appServersRoutingProfile field (DeviceCreate): a body giving one is
    refused as any unknown field is, naming it; the profile is set by PUT or the import."""
    refused = sb.post(DEVICES, json={**CELLULAR, "appServersRoutingProfile": {"ID": "rp-cellular"}})
    assert refused.status_code == 400
    assert refused.json()["code"] == 40000
    assert refused.json()["message"].startswith("appServersRoutingProfile:")
    assert sb.get(f"{DEVICES}/e{CELLULAR['EUI']}").status_code == 404


def test_routing_profile_representation_is_unchanged(sb: Sandbox) -> None:
    """The console reads `appServersRoutingProfile` of a device as {ID, name,
    lorawanAsTransportKey}: the profile's connectivity is not part of it; lists carry none."""
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    uid = conn.execute(
        "SELECT d.uid FROM devices d JOIN routing_profiles p ON p.id = d.routing_profile_id"
        " WHERE p.ref = 'rp-metering' LIMIT 1"
    ).fetchone()[0]
    device = sb.get(f"{DEVICES}/{uid}").json()
    assert device["appServersRoutingProfile"] == METERING
    profile = Device.model_validate(device).appServersRoutingProfile
    assert profile is not None and profile.model_extra == {}
    assert all("appServersRoutingProfile" not in d for d in sb.all_devices())


def test_deprecated_tags_route_still_works(sb: Sandbox) -> None:
    _create(sb, tags=[{"name": "water"}])
    response = sb.get(f"{DEVICES}/e{EUI}/tags")
    assert response.status_code == 200
    assert [t["name"] for t in response.json()["briefs"]] == ["water"]


def test_internal_errors_do_not_leak(sb: Sandbox, monkeypatch: Any) -> None:
    from lpwa_console.sandbox.store import devices as store

    def boom(*_: Any, **__: Any) -> None:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(store, "list_uids", boom)
    quiet = TestClient(sb.client.app, raise_server_exceptions=False)
    response = quiet.get(DEVICES, headers=sb.headers())
    assert response.status_code == 500
    assert response.json()["code"] == 50000
    assert "secret" not in response.text and "Traceback" not in response.text
