import pytest
from pydantic import ValidationError

from lpwa_console.schema.station_admin import (
    COMMAND_NAMES,
    COMMANDS,
    DISRUPTIVE,
    STATUS_MODELS,
    AdminSettings,
    LastCmdStatus,
    SupportPasswordChange,
    UpdateLocationCommand,
    command_type,
    parse_command,
    version_key,
)

OCC = {"occContext": {"version": 3, "lastUpdate": 1, "who": "x"}}


def test_the_nineteen_commands_of_document_2() -> None:
    assert len(COMMAND_NAMES) == 19
    assert {"reboot", "restart", "restore", "upgrade", "updateRfRegion"} == DISRUPTIVE
    assert len(STATUS_MODELS) == 12


@pytest.mark.parametrize("name", COMMAND_NAMES)
def test_occ_context_is_accepted_and_dropped(name: str) -> None:
    body = {
        "upgrade": {"version": "2.4.18"},
        "downloadLrrVersion": {"version": "2.4.18"},
        "updateAntennasGainAndLoss": {"chains": [{"index": 0, "gain": 2, "cableLoss": 0.5}]},
        "updateFineTimestampKeys": {"fpgaBoards": [{"index": 0, "key": "ab" * 16}]},
        "updateLocation": {"locationType": 2},
        "updateLog": {"traceLevel": 1},
        "updateRfRegion": {"rfRegionID": "EU868"},
    }.get(name, {})
    parsed = parse_command(name, body | OCC)
    assert "occContext" not in parsed.to_wire()
    assert command_type(name, parsed) == COMMANDS[name][0] or name == "updateLocation"


def test_unknown_fields_are_refused_by_name() -> None:
    with pytest.raises(ValidationError, match="colour"):
        parse_command("reboot", {"colour": 1})


@pytest.mark.parametrize(
    ("name", "body", "field"),
    [
        ("upgrade", {}, "version"),
        ("upgrade", {"version": "latest"}, "version"),
        ("updateLog", {"traceLevel": 4}, "traceLevel"),
        ("updateRfRegion", {"rfRegionID": "EU 868"}, "rfRegionID"),
        ("updateRfRegion", {"rfRegionID": "x" * 33}, "rfRegionID"),
        ("updateLocation", {"locationType": 1, "adminLon": 2.0}, "adminLat"),
        ("updateLocation", {"locationType": 3}, "locationType"),
        ("updateLocation", {"locationType": 1, "adminLat": 91, "adminLon": 0}, "adminLat"),
        ("scanRadio", {"frequency": {"start": 868, "stop": 867, "step": 100}}, "stop"),
        ("scanRadio", {"frequency": {"start": 0, "stop": 867, "step": 100}}, "start"),
        ("updateFineTimestampKeys", {"fpgaBoards": [{"index": 0, "key": "12"}]}, "key"),
        ("updateAntennasGainAndLoss", {"chains": []}, "chains"),
    ],
)
def test_parameters_are_checked_and_named(name: str, body: dict[str, object], field: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_command(name, body)
    assert field in str(info.value)


def test_duplicate_chain_indexes_refused() -> None:
    chain = {"index": 1, "gain": 2, "cableLoss": 1}
    with pytest.raises(ValidationError, match="chains"):
        parse_command("updateAntennasGainAndLoss", {"chains": [chain, chain]})


def test_gps_location_is_its_own_command_type() -> None:
    gps = UpdateLocationCommand(locationType=2)
    admin = UpdateLocationCommand(locationType=1, adminLat=48.8, adminLon=2.3)
    assert command_type("updateLocation", gps) == "LOCATION_GPS"
    assert command_type("updateLocation", admin) == "LOCATION_ADMIN"


def test_support_password_rules_and_secrecy() -> None:
    good = SupportPasswordChange.model_validate({"password": "Str0ng-pass"})
    assert "Str0ng-pass" not in repr(good) and "Str0ng-pass" not in str(good)
    assert good.to_wire() == {"password": "Str0ng-pass"}
    for bad in ("short1A", "alllowercase", "has space 1A", "x" * 65):
        with pytest.raises(ValidationError, match="password") as info:
            SupportPasswordChange.model_validate({"password": bad})
        assert bad not in str(info.value)


def test_settings_deprecated_fields_are_accepted_quietly_server_side() -> None:
    from lpwa_console.schema.common import accepting_deprecated_fields

    with accepting_deprecated_fields():
        s = AdminSettings.model_validate(
            {"activateBeaconTransmission": True, "allowClassB": False} | OCC
        )
    assert s.activateBeaconTransmission is True
    with pytest.warns(DeprecationWarning):
        AdminSettings(upgradePolicy="MANUAL")


def test_last_command_status_reads_progress() -> None:
    status = LastCmdStatus.model_validate(
        {"now": 5, "lastCmdType": "REBOOT", "lastCmdCompletionStatus": "PROCESSING"}
    )
    assert not status.finished
    done = status.model_copy(update={"lastCmdCompletionStatus": "ERR_EXEC"})
    assert done.finished and not done.succeeded


def test_versions_sort_numerically() -> None:
    assert version_key("2.10.1") > version_key("2.9.7") > version_key("2.9")
