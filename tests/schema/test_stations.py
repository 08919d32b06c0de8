"""Base station request rules: lrrID, alarmsConfiguration (§2.4), readOnly and unknown names."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lpwa_console.schema.partners import Partner, PartnerUpdate
from lpwa_console.schema.stations import (
    AlarmsConfiguration,
    BaseStation,
    BaseStationBrief,
    BaseStationCreate,
    BaseStationFilter,
    BaseStationUpdate,
    StationsTagRequest,
    normalise_lrr_id,
    station_ref,
)

MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}


@pytest.mark.parametrize("text", ["0a1b2c3d", "0A1B2C3D", " 0a1B2c3D "])
def test_lrr_id_is_upper_case(text: str) -> None:
    assert normalise_lrr_id(text) == "0A1B2C3D"
    assert BaseStationCreate(model=MODEL, lrrID=text).lrrID == "0A1B2C3D"


@pytest.mark.parametrize("text", ["00000000", "FFFE0001", "fffe1234", "FFFF0000", "ffffffff"])
def test_reserved_lrr_ids_are_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="reserved"):
        BaseStationCreate(model=MODEL, lrrID=text)


@pytest.mark.parametrize("text", ["1234567", "123456789", "1234567G", ""])
def test_lrr_id_needs_8_hex_digits(text: str) -> None:
    with pytest.raises(ValidationError, match="8 hexadecimal"):
        BaseStationCreate(model=MODEL, lrrID=text)


def test_lrr_id_is_optional_at_creation() -> None:
    assert BaseStationCreate(model=MODEL).lrrID is None


def test_alarm102_defaults_to_critical_after_30_seconds() -> None:
    for body in (
        BaseStationCreate(model=MODEL),
        BaseStationCreate(model=MODEL, alarmsConfiguration={"alarm102": None}),
        BaseStationCreate(model=MODEL, alarmsConfiguration={}),
    ):
        config = body.alarmsConfiguration
        assert config is not None and config.alarm102 is not None
        [threshold] = config.alarm102
        assert (threshold.duration, threshold.severity) == ("PT30S", 6)
        assert body.to_wire()["alarmsConfiguration"]["alarm102"] == [
            {"duration": "PT30S", "severity": 6}
        ]


def test_alarm102_has_at_most_one_threshold() -> None:
    two = [{"duration": "PT30S", "severity": 5}, {"duration": "PT1M", "severity": 6}]
    with pytest.raises(ValidationError, match="alarm102 has at most one"):
        AlarmsConfiguration(alarm102=two)


def test_alarm103_second_threshold_longer_and_more_severe() -> None:
    ok = AlarmsConfiguration(
        alarm103=[{"duration": "PT1H", "severity": 3}, {"duration": "P1D", "severity": 5}]
    )
    assert ok.alarm103 is not None and [t.severity for t in ok.alarm103] == [3, 5]
    with pytest.raises(ValidationError, match="duration must be longer"):
        AlarmsConfiguration(
            alarm103=[{"duration": "PT2H", "severity": 3}, {"duration": "PT1H", "severity": 5}]
        )
    with pytest.raises(ValidationError, match="severity must be higher"):
        AlarmsConfiguration(
            alarm103=[{"duration": "PT1H", "severity": 5}, {"duration": "PT2H", "severity": 5}]
        )
    with pytest.raises(ValidationError, match="at most two"):
        AlarmsConfiguration(
            alarm103=[{"duration": f"PT{i}H", "severity": i + 2} for i in (1, 2, 3)]
        )


@pytest.mark.parametrize(
    ("threshold", "message"),
    [
        ({"duration": "30 seconds", "severity": 6}, "ISO 8601"),
        ({"duration": "PT0S", "severity": 6}, "more than 0"),
        ({"duration": "PT30S", "severity": 1}, "greater than or equal to 2"),
        ({"duration": "PT30S", "severity": 7}, "less than or equal to 6"),
    ],
)
def test_threshold_rules(threshold: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AlarmsConfiguration(alarm102=[threshold])


def test_read_only_fields_are_accepted_and_dropped() -> None:
    answer = BaseStation.model_validate(
        {
            "lrrID": "0A1B2C3D",
            "name": "Roof",
            "model": {"ID": "KERLINK_WIRNET_ISTATION", "commercialName": "Kerlink"},
            "cnxState": "CNX",
            "healthState": "ACTIVE",
            "alarm1": 0,
            "alarmsConfiguration": {"alarm102": [{"duration": "PT30S", "severity": 6}]},
            "now": 5,
            "tags": [{"name": "x", "multicastVisibility": True}],
            "vendor": {"ID": "KERLINK"},
            "owner": {"ID": "100"},
        }
    )
    sent = answer.model_dump(mode="json", exclude_none=True)
    update = BaseStationUpdate.model_validate(sent | {"name": "New"})
    assert update.name == "New"
    assert update.fixed_values()["lrrID"] == "0A1B2C3D"
    assert "cnxState" not in update.to_wire()


def test_deprecated_hardware_strings_are_ignored_and_passed_on() -> None:
    body = BaseStationCreate.model_validate(
        {"model": MODEL, "diskConfig": "x", "powerConfig": "MAINS"}
    )
    assert body.not_modelled() == {"diskConfig": "x", "powerConfig": "MAINS"}


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ValidationError, match="colour"):
        BaseStationCreate.model_validate({"model": MODEL, "colour": "red"})
    with pytest.raises(ValidationError, match="colour"):
        BaseStationUpdate.model_validate({"colour": "red"})


def test_deprecated_alarm103_string_warns_for_the_caller() -> None:
    with pytest.warns(DeprecationWarning, match="alarm103"):
        BaseStationUpdate(alarm103="<xml/>")


def test_filter_params_and_station_ref() -> None:
    f = BaseStationFilter(LRRID=["0a", "1B"], healthState=["ACTIVE"], domain=["Site:France/Paris"])
    assert ("LRRID", "0a") in f.to_params() and ("healthState", "ACTIVE") in f.to_params()
    with pytest.raises(ValidationError):
        BaseStationFilter(domain=["no-group"])
    assert station_ref("0a1b2c3d") == "i0A1B2C3D"


def test_tag_request_normalises_lrr_ids() -> None:
    assert StationsTagRequest(name="t", LRRIDs=["0a1b2c3d"]).LRRIDs == ["0A1B2C3D"]


def test_partner_answer_and_update() -> None:
    partner = Partner.model_validate(
        {
            "partner": {"ID": "100", "name": "Acme", "grantedPermissions": ["x", "a"]},
            "totalBaseStationsUsed": 3,
            "totalBaseStationsGranted": 5,
        }
    )
    assert partner.stations_left == 2 and partner.permissions == {"x", "a"}
    update = PartnerUpdate.model_validate(
        partner.model_dump(mode="json", exclude_none=True)
        | {"showTagSuggestionsWhenDomainRestrictions": False, "occContext": {"version": 1}}
    )
    assert update.to_wire() == {
        "showTagSuggestionsWhenDomainRestrictions": False,
        "occContext": {"version": 1},
        # Required back by the reference's PUT: its {ID, name}, nothing of ours.
        "partner": {"ID": "100", "name": "Acme"},
    }


# The property names of the reference's Bs and BsBrief (network-manager 7.3), and of Partner.
REFERENCE_BS = {
    "activateBeaconTransmission", "activateRX2Optimization", "activateSupportFor802_15_4",
    "adminAltGround", "alarm1", "alarm103", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6",
    "alarmCount", "alarmLevel", "allowClassB", "alt", "antennasConfig", "ants", "appServers",
    "backup", "beacons", "bsSecurity", "classBState", "cnxState", "cnxStateSince",
    "contactInfo", "cpu", "creationDate", "customerAdminData", "customs", "diskConfig",
    "domains", "dwFrame", "fpgaBoards", "gpsAntennaConfig", "gpsReceiverConfig", "gpsSync",
    "healthState", "host", "href", "identificationMode", "ints", "ismBand", "lastGeoAlt",
    "lastGeoLat", "lastGeoLon", "lastReboot", "lastRebootCause", "lastReport",
    "lastSystemReboot", "lat", "locationType", "log", "logicalChannels", "lon", "lrcConfig",
    "lrcs", "lrrID", "lrrUUID", "mfs", "model", "name", "now", "occContext", "owner", "power",
    "powerConfig", "publicKey", "ram", "reverseSshState", "rfCoverageType", "rfHardwareConfig",
    "rfRegionHref", "rfRegionID", "rfRegionIDVersion", "rfRegionName", "rfScanState",
    "rfcellState", "smn", "state", "stateSince", "staticAddress", "tags", "temp", "timeSync",
    "upFrame", "upgradePolicy", "vendor", "version", "wanConfig",
    # Document 2 §2.4 (release 8.1)
    "alarmsConfiguration", "rfProbe", "supportPassword",
}  # fmt: skip
REFERENCE_PARTNER = {
    "alarmStateNotifications", "allowedAdministration", "allowedBsTagging",
    "baseStationTagsNamespace", "baseStationsNetID", "creationTimestamp", "defaultBsSecurity",
    "defaultIsmBand", "defaultIsmBands", "delegateAdministration", "delegateBsTagging",
    "delegateBsValidation", "installationID", "keyInstallerPubkeyAuthentication", "occContext",
    "operator", "options", "partner", "segregationID", "state", "supplier",
    "totalBaseStationsGranted", "totalBaseStationsUsed", "type",
    "showTagSuggestionsWhenDomainRestrictions", "href",
}  # fmt: skip


def _accepted(model: type) -> set[str]:
    fields = {info.alias or name for name, info in model.model_fields.items()}  # type: ignore[attr-defined]
    return fields | model._declared  # type: ignore[attr-defined]


@pytest.mark.parametrize("model", [BaseStationCreate, BaseStationUpdate])
def test_every_reference_station_property_is_accepted(model: type) -> None:
    missing = REFERENCE_BS - _accepted(model)
    assert not missing, f"{model.__name__} refuses {sorted(missing)}"
    answers = set(BaseStation.model_fields) | set(BaseStationBrief.model_fields)
    assert not (answers - _accepted(model)), sorted(answers - _accepted(model))


def test_every_reference_partner_property_is_accepted() -> None:
    missing = REFERENCE_PARTNER - _accepted(PartnerUpdate)
    assert not missing, sorted(missing)
