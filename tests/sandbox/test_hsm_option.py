"""The subscription option `hsm` (Document 1 §2.2) is enforced (issue 21): with DEACTIVATED,
root keys cannot be protected by an HSM, so HSM key versions, keys encrypted with an HSM
group's exchange key, `hsmGroupID` on devices and AS keys, and new HSM groups are refused
with the reason. The demo subscription is ACTIVATED (it uses HSM groups)."""

from __future__ import annotations

from typing import Any

from cryptography.hazmat.primitives.keywrap import aes_key_wrap

from lpwa_console.sandbox.store import key_manager as key_store

from .conftest import API, DEVICES, Sandbox
from .test_device_import import line
from .test_key_manager import _conn, _keys, _rsa_encrypt

KM = f"{API}/kmSubscriptions/mine"
SUB = f"{API}/subscriptions/mine"
APP_KEY = "000102030405060708090A0B0C0D0E0F"
GROUP = "hsm-eu-west-1"


def _deactivate(sb: Sandbox) -> None:
    assert sb.get(SUB).json()["options"]["hsm"] == "ACTIVATED"
    done = sb.put(SUB, json={"options": {"hsm": "DEACTIVATED"}})
    assert done.status_code == 200, done.text


def _refused(response: Any, field: str) -> None:
    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert message.startswith(f"{field}:") and "hsm is DEACTIVATED" in message, message


def test_devices_take_no_hsm_group_when_deactivated(sb: Sandbox) -> None:
    otaa = {"EUI": "0018B2000000AA01", "activation": "OTAA", "appEUI": "70B3D57ED0000000",
            "appKey": APP_KEY}  # fmt: skip
    with_group = sb.post(DEVICES, json=otaa | {"hsmGroupID": GROUP})
    assert with_group.status_code == 201, with_group.text  # ACTIVATED: accepted
    _deactivate(sb)
    _refused(sb.post(DEVICES, json=otaa | {"EUI": "0018B2000000AA02", "hsmGroupID": GROUP}),
             "hsmGroupID")  # fmt: skip
    path = f"{DEVICES}/{with_group.json()['ref']}"
    _refused(sb.put(path, json={"hsmGroupID": GROUP}), "hsmGroupID")
    assert sb.put(path, json={"hsmGroupID": None}).status_code == 200  # clearing is fine
    text = line("UPDATE_OTAA", B="0018B2000000AA01", R=GROUP)
    answer = sb.post(f"{DEVICES}/import", files={"csv": ("d.csv", text, "text/csv")})
    assert "hsm is DEACTIVATED" in answer.text, answer.text
    assert "hsmGroupID" not in sb.get(path).json()


def test_key_manager_refuses_hsm_keys_when_deactivated(sb: Sandbox) -> None:
    keys = _keys(sb).briefs
    platform = next(k for k in keys if k.version == "platform-v1")
    west = next(k for k in keys if k.hsmGroupID == GROUP)
    kek = key_store.hsm_key_hex(_conn(sb), 1, f"{GROUP}-app-v1")
    assert kek
    wrapped = aes_key_wrap(bytes.fromhex(kek), bytes.fromhex(APP_KEY)).hex()
    _deactivate(sb)
    hsm_wrapped = sb.post(
        f"{KM}/devices",
        json={"EUI": "00112233445566B1", "appKey": wrapped, "hsmAppKeyVersion": f"{GROUP}-app-v1"},
    )
    _refused(hsm_wrapped, "hsmAppKeyVersion")
    group_rsa = sb.post(f"{KM}/devices", json={
        "EUI": "00112233445566B2", "appKey": _rsa_encrypt(west.pem, APP_KEY),
        "exchangeKeyVersion": west.version})  # fmt: skip
    _refused(group_rsa, "exchangeKeyVersion")
    # The platform's own exchange key and clear keys still work.
    platform_rsa = sb.post(f"{KM}/devices", json={
        "EUI": "00112233445566B3", "appKey": _rsa_encrypt(platform.pem, APP_KEY),
        "exchangeKeyVersion": platform.version})  # fmt: skip
    assert platform_rsa.status_code == 201, platform_rsa.text
    assert sb.post(f"{KM}/devices", json={"EUI": "00112233445566B4", "appKey": APP_KEY}
                   ).status_code == 201  # fmt: skip
    _refused(sb.post(f"{KM}/asKeys", json={"ID": "k-hsm", "hsmGroupID": GROUP}), "hsmGroupID")
    assert sb.post(f"{KM}/asKeys", json={"ID": "k-plain"}).status_code == 201
    # The import's HSM-wrapped keys are refused the same way.
    text = line("CREATE_OTAA", B="00112233445566B5", F=wrapped, S=f"{GROUP}-app-v1")
    answer = sb.post(f"{KM}/devices/import", files={"csv": ("k.csv", text, "text/csv")})
    assert answer.status_code == 200 and "hsm is DEACTIVATED" in answer.text, answer.text


def test_no_hsm_group_for_a_deactivated_subscription(sb: Sandbox) -> None:
    _deactivate(sb)
    ops = f"{API}/admins/operators/mine/hsmGroups"
    made = sb.post(ops, "operator", json={"ID": "hsm-x", "name": "X", "subscriberID": "100"})
    _refused(made, "subscriberID")
