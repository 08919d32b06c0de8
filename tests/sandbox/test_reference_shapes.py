"""One shape to read and to write (the reference's readOnly fields): a client that reads a
resource and sends it all back changes nothing; the reference's own POST examples are
accepted; a name the reference does not know is still refused, saying so."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, DEVICES, Sandbox

MINE = f"{API}/subscriptions/mine"
APP_SERVERS = f"{MINE}/appServers"
GROUPS = f"{MINE}/multicastGroups"

# The values of the reference's POST examples (device-manager 7.3, components/examples); the
# IDs of the application server and the device profile are the demo's, the rest as given.
OTAA_EXAMPLE = {
    "EUI": "000000000522D8EB",
    "activation": "OTAA",
    "appKey": "8D67B0D6359D11ACFC45AD4BB9CE2D4F",
    "appServers": [{"ID": "as-metering"}],
    "model": {"ID": "itron-cyble-lw"},
    "name": "My LoRaWAN OTAA device",
    "networkSubscription": {"nwGeolocalization": True, "prAllowed": False},
}
ABP_EXAMPLE = {
    "EUI": "000000000522D8EC",
    "activation": "ABP",
    "appKeys": '<AppSKeys><AppSKey Port="*">8D67B0D6359D11ACFC45AD4BB9CE2D4F</AppSKey></AppSKeys>',
    "appServers": [{"ID": "as-metering"}],
    "model": {"ID": "itron-cyble-lw"},
    "name": "My LoRaWAN ABP device",
    "nwAddress": "0070C5BB",
    "nwKey": "46DFD544535CC01B6B1EE7DFED8910FD",
    "networkSubscription": {"nwGeolocalization": True, "prAllowed": False},
}
APP_SERVER_EXAMPLE = {
    "contentType": "json",
    "destinations": [
        {"addresses": ["https://www.example.com/myApp"], "ports": "*", "strategy": "SEQUENTIAL"}
    ],
    "downlinkSecurity": {
        "downlinkAsKey": "C72C6F867B150B1210ACDA5F3CDFB449",
        "maxTimestampDeviation": 10,
        "status": "DOWNLINK_AS_KEY",
    },
    "name": "My HTTP LoRaWAN app server",
}

# What changes on every answer or every update by design: the server's clock, and the
# optimistic-concurrency context an update moves on.
VOLATILE = {"now", "occContext"}


def _stable(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in VOLATILE}


def _round_trip(sb: Sandbox, path: str, role: str = "subscriber") -> dict[str, Any]:
    """GET `path`, PUT the very JSON back, GET again: returns what PUT answered."""
    before = sb.get(path, role)
    assert before.status_code == 200, before.text
    put = sb.put(path, role, json=before.json())
    assert put.status_code == 200, put.text
    after = sb.get(path, role).json()
    assert _stable(after) == _stable(before.json())
    assert _stable(put.json()) == _stable(before.json())
    return dict(put.json())


def _refused(response: Any, name: str) -> None:
    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert message.startswith(name) and "unknown field" in message, message


# --- devices ---------------------------------------------------------------------------------


def test_a_device_read_and_written_back_changes_nothing(sb: Sandbox) -> None:
    devices = sb.all_devices()
    lora = next(d for d in devices if d["connectivity"] == "LORAWAN" and d["tags"] and d["domains"])
    cellular = next(d for d in devices if d["connectivity"] == "CELLULAR")
    for brief in (lora, cellular):
        answer = _round_trip(sb, f"{DEVICES}/{brief['ref']}")
        assert answer["EUI"] == brief["EUI"]
    # With a routing profile and AS transport key, whose answers describe them (name, key).
    ref = f"{DEVICES}/{lora['ref']}"
    set_profile = {"appServersRoutingProfile": {"ID": "rp-metering"}}
    assert sb.put(ref, json=set_profile).status_code == 200
    assert sb.put(ref, json={"asTransportKey": {"ID": "atk-default"}}).status_code == 200
    answer = _round_trip(sb, ref)
    assert answer["appServersRoutingProfile"]["name"] and answer["asTransportKey"]["name"]


def test_a_restricted_writer_may_send_back_the_routing_profile_it_cannot_change(
    sb: Sandbox,
) -> None:
    """WRITE_NODE without ADMIN_NODE: the profile as read is no change; another one is."""
    brief = sb.all_devices("subscriber-restricted", connectivity="LORAWAN")[0]
    ref = f"{DEVICES}/{brief['ref']}"
    set_profile = {"appServersRoutingProfile": {"ID": "rp-metering"}}
    assert sb.put(ref, json=set_profile).status_code == 200
    _round_trip(sb, ref, "subscriber-restricted")
    other = sb.put(ref, "subscriber-restricted", json={"appServersRoutingProfile": None})
    assert other.status_code == 403


def test_fields_set_at_creation_may_be_sent_only_unchanged(sb: Sandbox) -> None:
    brief = sb.all_devices(connectivity="LORAWAN")[0]
    ref = f"{DEVICES}/{brief['ref']}"
    same = sb.put(ref, json={"EUI": brief["EUI"].lower(), "connectivity": "LORAWAN"})
    assert same.status_code == 200, same.text
    for field, value in [("EUI", "0018B2000000FFFF"), ("connectivity", "CELLULAR")]:
        changed = sb.put(ref, json={field: value})
        assert changed.status_code == 400
        assert changed.json()["message"].startswith(f"{field}: cannot change after creation")
    assert sb.get(ref).json()["EUI"] == brief["EUI"]


def test_the_reference_device_examples_are_accepted(sb: Sandbox) -> None:
    for example in (OTAA_EXAMPLE, ABP_EXAMPLE):
        created = sb.post(DEVICES, json=example)
        assert created.status_code == 201, created.text
        device = created.json()
        assert device["name"] == example["name"] and device["activation"] == example["activation"]
        assert [s["ID"] for s in device["appServers"]] == ["as-metering"]
    abp = sb.get(f"{DEVICES}/e{ABP_EXAMPLE['EUI']}").json()
    assert abp["nwAddress"] == "0070C5BB"
    assert "nwKey" not in abp and "networkSubscription" not in abp  # accepted, not modelled


def test_other_writable_reference_fields_are_accepted(sb: Sandbox) -> None:
    """Written by the reference, not modelled by the sandbox (docs/architecture.md)."""
    created = sb.post(
        DEVICES,
        json={
            **OTAA_EXAMPLE,
            "EUI": "000000000522D8ED",
            "appKeyEncryptionMode": "LRC_CLUSTER_KEY",
            "exchangeKeyVersion": "1",
            "motionIndicator": "NEAR_STATIC",
        },
    )
    assert created.status_code == 201, created.text
    ref = f"{DEVICES}/{created.json()['ref']}"
    updated = sb.put(ref, json={"occContext": {"version": 0}, "name": "renamed"})
    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "renamed"


def test_unknown_device_fields_are_refused_by_name(sb: Sandbox) -> None:
    _refused(sb.post(DEVICES, json={**OTAA_EXAMPLE, "colour": "red"}), "colour")
    brief = sb.all_devices()[0]
    _refused(sb.put(f"{DEVICES}/{brief['ref']}", json={"nmae": "typo"}), "nmae")
    # Nested too: a name a reference object does not have.
    servers = [{"ID": "as-metering", "colour": "red"}]
    _refused(
        sb.put(f"{DEVICES}/{brief['ref']}", json={"appServers": servers}), "appServers.0.colour"
    )


def test_devices_carry_now_and_app_server_hrefs(sb: Sandbox) -> None:
    page = sb.get(DEVICES, params={"pageSize": 10}).json()
    assert page["now"].endswith("Z")  # the list's now is a date-time (the reference's choice)
    linked = next(d for d in sb.all_devices() if d["appServers"])
    device = sb.get(f"{DEVICES}/{linked['ref']}").json()
    assert isinstance(device["now"], int) and device["now"] > device["creationDate"]
    for server in device["appServers"]:
        assert server["href"].startswith("/subscriptions/mine/appServers/")
        by_href = sb.get(API + server["href"])
        assert by_href.status_code == 200 and by_href.json()["ID"] == server["ID"]


# --- application servers, multicast groups, the subscription ----------------------------------


@pytest.mark.parametrize("server", ["as-parking", "as-analytics"])  # HTTP and KAFKA
def test_an_app_server_read_and_written_back_changes_nothing(sb: Sandbox, server: str) -> None:
    answer = _round_trip(sb, f"{APP_SERVERS}/id%3A{server}")
    assert answer["ID"] == server


def test_the_reference_app_server_example_is_accepted(sb: Sandbox) -> None:
    created = sb.post(APP_SERVERS, json=APP_SERVER_EXAMPLE)
    assert created.status_code == 201, created.text
    assert created.json()["name"] == APP_SERVER_EXAMPLE["name"]
    _round_trip(sb, f"{APP_SERVERS}/{created.json()['href'].rsplit('/', 1)[1]}")
    _refused(sb.post(APP_SERVERS, json={**APP_SERVER_EXAMPLE, "colour": "red"}), "colour")


def test_a_multicast_group_read_and_written_back_changes_nothing(sb: Sandbox) -> None:
    group = next(g for g in sb.get(GROUPS).json()["briefs"] if g["appServers"])
    path = f"{GROUPS}/e{group['EUI']}"
    answer = _round_trip(sb, path)
    for server in answer["appServers"]:  # as on devices: each with its href
        assert sb.get(API + server["href"]).json()["ID"] == server["ID"]
    moved = sb.put(path, json={"nwAddress": "0A0B0C0D"})
    assert moved.status_code == 400
    assert moved.json()["message"].startswith("nwAddress: cannot change after creation")
    _refused(sb.put(path, json={"colour": "red"}), "colour")


def test_the_subscription_read_and_written_back_changes_nothing(sb: Sandbox) -> None:
    _round_trip(sb, MINE)
    _refused(sb.put(MINE, json={"colour": "red"}), "colour")


def test_network_contexts_and_keys_read_and_written_back_change_nothing(sb: Sandbox) -> None:
    for kind in ("cellularNetworkContexts", "asTransportKeys"):
        first = sb.get(f"{MINE}/{kind}").json()["briefs"][0]
        path = f"{MINE}/{kind}/{first['ID']}"
        _round_trip(sb, path)
        renamed = sb.put(path, json={"ID": first["ID"] + "-2"})
        assert renamed.status_code == 400 and renamed.json()["message"].startswith("ID:")
