"""The catalogs' wire models and rules (Document 2 §2.2, §8): the CUSTOM/ prefix and the
40-character limit, the LoRaWAN rules (forced values, relay and dwell fields, enumerations,
TX ranges), the catalog file."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lpwa_console.schema.catalogs import (
    BaseStationProfileCreate,
    CatalogFile,
    DeviceProfileCreate,
    DeviceProfileUpdate,
    FileDeviceProfile,
    OperatorDeviceProfile,
    apply_forced,
    custom_id,
    id_problem,
    logo_type,
    profile_rules,
    rule_problems,
    version_key,
)


def test_custom_prefix_and_length() -> None:
    assert custom_id("abc") == "CUSTOM/abc"
    assert custom_id("CUSTOM/abc") == "CUSTOM/abc"
    assert id_problem("x" * 33) == ""
    assert "40 characters" in id_problem("x" * 34)
    assert id_problem("CUSTOM/" + "x" * 33) == ""
    with pytest.raises(ValidationError, match="40 characters"):
        DeviceProfileCreate(ID="x" * 34, commercialName="n")
    with pytest.raises(ValidationError, match="40 characters"):
        BaseStationProfileCreate.model_validate(
            {"ID": "y" * 40, "commercialName": "n", "vendor": {"ID": "v"},
             "softwareType": "LRR_LINUX"}
        )  # fmt: skip


@pytest.mark.parametrize("minor", [6, 10])
def test_versions_1_0_4_and_1_1_force_four_fields(minor: int) -> None:
    rules = profile_rules({"macMinorVersion": minor})
    forced = {name: rule.forced for name, rule in rules.items() if rule.forced is not None}
    assert forced == {
        "allowedABPAutomaticReset": 0,
        "devNonceCounterBased": 1,
        "maxRedundancyForConfirmedUL": 0,
        "permanentlyListening": 0,
    }
    assert all("forced" in rules[n].reason for n in forced)
    assert (
        apply_forced({"macMinorVersion": minor, "devNonceCounterBased": 0})["devNonceCounterBased"]
        == 1
    )
    for name, value in forced.items():
        assert rule_problems({"macMinorVersion": minor, name: 1 - value if value < 2 else 3})


def test_earlier_versions_leave_them_free() -> None:
    rules = profile_rules({"macMinorVersion": 5})
    assert not any(r.forced is not None for r in rules.values())
    assert rule_problems({"macMinorVersion": 5, "allowedABPAutomaticReset": 1}) == []


def test_relay_and_dwell_fields_apply_only_when_they_can() -> None:
    problems = rule_problems({"defaultRelayActivation": 1, "macNotifyNewEndDeviceReqExSupport": 1})
    assert len(problems) == 2 and all("relay" in p for p in problems)
    assert rule_problems({"canOperateAsRelay": 1, "defaultRelayActivation": 1}) == []
    assert rule_problems({"uplinkDwellTime": 1, "defaultIsmBands": ["eu868"]})
    assert rule_problems({"uplinkDwellTime": 1, "defaultIsmBands": ["as923"]}) == []
    assert rule_problems({"connectivity": "CELLULAR", "macMinorVersion": 5})
    assert rule_problems({"connectivity": "LORAWAN", "mtcLteCategory": "CAT_M2"})


def test_enumerations_and_ranges() -> None:
    ok = DeviceProfileCreate.model_validate(
        {"ID": "a", "commercialName": "A", "macMinorVersion": 0, "regionalParameterVersion": "E",
         "macMaxTxEIRP": [0, 36], "macMinTxPower": [2.5]}
    )  # fmt: skip
    assert ok.macMaxTxEIRP == [0, 36]
    for bad in (
        {"macMinorVersion": 7},
        {"regionalParameterVersion": "F"},
        {"macMaxTxEIRP": [36.5]},
        {"macMinTxPower": [-1]},
        {"canOperateAsRelay": 2},
    ):
        with pytest.raises(ValidationError):
            DeviceProfileCreate.model_validate({"ID": "a", "commercialName": "A"} | bad)
    for category in ("CAT_M2", "CAT_NB2"):
        made = DeviceProfileCreate.model_validate(
            {
                "ID": "c",
                "commercialName": "C",
                "connectivity": "CELLULAR",
                "mtcLteCategory": category,
            }
        )
        assert made.mtcLteCategory == category


def test_update_takes_back_what_was_read() -> None:
    read = OperatorDeviceProfile.model_validate(
        {"ID": "CUSTOM/a", "commercialName": "A", "connectivity": "LORAWAN", "source": "CUSTOM",
         "vendor": {"ID": "v", "commercialName": "V"}, "defaultIsmBands": [{"ID": "eu868", "name": "EU"}],
         "catalogVersion": "1", "macMajorVersion": 0, "href": "/x"}
    )  # fmt: skip
    update = DeviceProfileUpdate.model_validate(read.model_dump(exclude_none=True))
    assert update.fixed_values() == {"ID": "CUSTOM/a", "connectivity": "LORAWAN"}
    assert "source" not in update.to_wire()


def test_catalog_file() -> None:
    file = CatalogFile.model_validate(
        {"format": "lpwa-catalog/1", "catalog": "deviceProfiles", "version": "2027.1",
         "profiles": [{"ID": "A/b", "commercialName": "B", "vendorID": "a",
                       "locals": {"fr": {"commercialName": "Bé"}}}]}
    )  # fmt: skip
    assert file.item_count == 1 and file.profiles[0].locals["fr"].commercialName == "Bé"
    with pytest.raises(ValidationError):
        CatalogFile.model_validate({"format": "other", "catalog": "deviceProfiles", "version": "1"})
    with pytest.raises(ValidationError, match="permanentlyListening"):
        FileDeviceProfile.model_validate(
            {"ID": "a", "commercialName": "A", "vendorID": "v", "macMinorVersion": 10,
             "permanentlyListening": 1}
        )  # fmt: skip
    with pytest.raises(ValidationError):
        FileDeviceProfile.model_validate(
            {"ID": "a", "commercialName": "A", "vendorID": "v", "colour": 1}
        )


def test_versions_order_numbers_as_numbers() -> None:
    assert version_key("2026.9") < version_key("2026.10") < version_key("2027.1")
    assert logo_type(b"\x89PNG\r\n\x1a\nxx") == "image/png"
    assert logo_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert logo_type(b"GIF89a") == ""
