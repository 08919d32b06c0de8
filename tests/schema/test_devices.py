import warnings
from collections.abc import Callable

import pytest
from pydantic import ValidationError

from lpwa_console.schema.common import accepting_deprecated_fields
from lpwa_console.schema.devices import (
    Alarm004Threshold,
    AlarmsConfiguration,
    DeviceBrief,
    DeviceCreate,
    DeviceFilter,
    DevicesTagRequest,
    DeviceUpdate,
    app_skey_from_xml,
    app_skey_xml,
    default_alarm004,
)
from lpwa_console.schema.multicast import MulticastGroupCreate, MulticastGroupUpdate
from lpwa_console.schema.subscription import SubscriptionUpdate

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"


def abp(**extra: object) -> DeviceCreate:
    return DeviceCreate.model_validate(
        {"EUI": "70b3d5e75e000001", "nwAddress": "0a0b0c0d", "appSKey": KEY.lower(), **extra}
    )


def error_fields(exc: ValidationError) -> set[str]:
    return {str(e["loc"][0]) if e["loc"] else "" for e in exc.errors()}


def test_abp_device_normalises_hex_and_defaults_name() -> None:
    device = abp()
    assert device.EUI == "70B3D5E75E000001"
    assert device.name == "70B3D5E75E000001"
    assert device.nwAddress == "0A0B0C0D"
    assert device.appSKey == KEY
    assert device.activation == "ABP"
    wire = device.to_wire()
    assert wire["name"] == "70B3D5E75E000001"
    assert "alarmsConfiguration" not in wire  # the server applies its default


def test_explicit_name_kept() -> None:
    assert abp(name="Meter 1").name == "Meter 1"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("EUI", "70B3D5E75E00000"),
        ("EUI", "70B3D5E75E00000G"),
        ("appSKey", "AB"),
        ("nwAddress", "123"),
    ],
)
def test_hex_rules_name_the_field(field: str, value: str) -> None:
    with pytest.raises(ValidationError) as info:
        abp(**{field: value})
    assert field in error_fields(info.value)


def test_abp_needs_keys() -> None:
    with pytest.raises(ValidationError, match="DevAddr"):
        DeviceCreate(EUI="70B3D5E75E000001", activation="ABP", appSKey=KEY)
    with pytest.raises(ValidationError, match="AppSKey"):
        DeviceCreate(EUI="70B3D5E75E000001", activation="ABP", nwAddress="01020304")


def test_otaa_device() -> None:
    device = DeviceCreate(EUI="70B3D5E75E000002", appEUI="70B3D57ED0000000", appKey=KEY)
    assert device.activation == "OTAA"
    with pytest.raises(ValidationError, match="OTAA"):
        DeviceCreate(EUI="70B3D5E75E000002", activation="OTAA", appSKey=KEY)


def test_cellular_imei_rules() -> None:
    # 15 digits with a valid Luhn digit: the check digit is dropped.
    assert DeviceCreate(EUI="490154203237518", connectivity="CELLULAR").EUI == "49015420323751"
    assert DeviceCreate(EUI="49015420323751", connectivity="CELLULAR").EUI == "49015420323751"
    with pytest.raises(ValidationError, match="Luhn"):
        DeviceCreate(EUI="490154203237519", connectivity="CELLULAR")
    with pytest.raises(ValidationError, match="not applicable"):
        DeviceCreate(EUI="49015420323751", connectivity="CELLULAR", appSKey=KEY)


def test_deprecated_app_keys_xml() -> None:
    xml = app_skey_xml(KEY)
    assert app_skey_from_xml(xml) == KEY
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        device = DeviceCreate(EUI="70B3D5E75E000003", nwAddress="01020304", appKeys=xml)
    assert device.effective_app_skey() == KEY
    with pytest.raises(ValueError, match="Port"):
        app_skey_from_xml(f'<AppSKeys><AppSKey Port="1">{KEY}</AppSKey></AppSKeys>')
    with pytest.raises(ValueError, match="one <AppSKey>"):
        app_skey_from_xml("<Keys/>")


def test_deprecated_fields_warn_on_access() -> None:
    with accepting_deprecated_fields():
        device = abp(markerID=3)
    with pytest.warns(DeprecationWarning):
        _ = device.markerID


def _deprecations(build: Callable[[], object]) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        build()
    return [w for w in caught if issubclass(w.category, DeprecationWarning)]


def test_setting_a_deprecated_field_warns_once_per_field_at_the_caller() -> None:
    caught = _deprecations(
        lambda: DeviceCreate(
            EUI="70B3D5E75E000001",
            nwAddress="0A0B0C0D",
            appKeys=app_skey_xml(KEY),
            markerID=3,
            verificationCode="v",
        )
    )
    assert sorted(str(w.message).split(" ")[0] for w in caught) == [
        "DeviceCreate.appKeys", "DeviceCreate.markerID", "DeviceCreate.verificationCode",
    ]  # fmt: skip
    assert {w.filename for w in caught} == {__file__}  # the line that built it
    # Sending it does not warn again (nor does the model's own use of the XML key).
    with accepting_deprecated_fields():
        device = DeviceCreate(
            EUI="70B3D5E75E000001", nwAddress="0A0B0C0D", appKeys=app_skey_xml(KEY)
        )
    assert _deprecations(device.to_wire) == []
    assert _deprecations(device.effective_app_skey) == []
    # From a dict too, and on updates: even null, since null is sent.
    update = _deprecations(lambda: DeviceUpdate.model_validate({"markerID": 1, "appKeys": None}))
    assert sorted(str(w.message).split(" ")[0] for w in update) == [
        "DeviceUpdate.appKeys", "DeviceUpdate.markerID",
    ]  # fmt: skip


def test_nw_address_is_deprecated_for_otaa_creation_only() -> None:
    otaa = _deprecations(
        lambda: DeviceCreate(EUI="70B3D5E75E000001", activation="OTAA", nwAddress="0A0B0C0D")
    )
    assert [str(w.message).split(" ")[0] for w in otaa] == ["DeviceCreate.nwAddress"]
    assert "at join" in str(otaa[0].message)
    assert _deprecations(lambda: abp()) == []  # ABP needs its DevAddr
    assert _deprecations(lambda: DeviceCreate(EUI="70B3D5E75E000001", activation="OTAA")) == []


def test_requests_without_deprecated_fields_never_warn() -> None:
    """What the console builds (its forms leave deprecated fields out) stays silent."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        abp(name="n", tags=[{"name": "t"}]).to_wire()
        DeviceCreate(EUI="70B3D5E75E000001", appEUI="70B3D5E75E000002", appKey=KEY).to_wire()
        DeviceUpdate(name="n", appSKey=KEY, hsmGroupID=None).to_wire()
        MulticastGroupCreate(EUI="70B3D5E75E00FF01", nwAddress="01020304", appSKey=KEY).to_wire()
        MulticastGroupUpdate(name="g").to_wire()
        SubscriptionUpdate.model_validate(
            {"options": {"hsm": "ACTIVATED"}, "showTagSuggestionsWhenDomainRestrictions": False}
        ).to_wire()


def test_other_request_models_warn_too() -> None:
    group = _deprecations(
        lambda: MulticastGroupCreate(
            EUI="70B3D5E75E00FF01",
            nwAddress="01020304",
            appKeys=app_skey_xml(KEY),
            verificationCode="v",
        )
    )
    assert sorted(str(w.message).split(" ")[0] for w in group) == [
        "MulticastGroupCreate.appKeys", "MulticastGroupCreate.verificationCode",
    ]  # fmt: skip
    nested = _deprecations(
        lambda: SubscriptionUpdate.model_validate({"options": {"devEUIValidation": "ADM-VC"}})
    )
    assert [str(w.message).split(" ")[0] for w in nested] == [
        "SubscriptionOptionsUpdate.devEUIValidation"
    ]
    assert {w.filename for w in nested} == {__file__}


def test_default_alarm004_thresholds() -> None:
    first, second = default_alarm004()
    assert (first.level, first.duration, second.level, second.duration) == (3, "P2D", 5, "P4D")


@pytest.mark.parametrize(
    ("thresholds", "message"),
    [
        ([{"level": 5, "duration": "P2D"}, {"level": 3, "duration": "P4D"}], "level"),
        ([{"level": 3, "duration": "P4D"}, {"level": 5, "duration": "P2D"}], "duration"),
        (
            [{"status": "DISABLE", "level": 3, "duration": "P2D"}, {"level": 5, "duration": "P4D"}],
            "second threshold",
        ),
        ([{"level": 3, "duration": "PT30M"}], "between"),
        ([{"level": 3, "duration": "P31D"}], "between"),
        ([{"level": 7, "duration": "P1D"}], "less than or equal"),
    ],
)
def test_alarm004_rules(thresholds: list[dict[str, object]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        AlarmsConfiguration.model_validate({"alarm004": thresholds})


def test_alarm004_valid() -> None:
    config = AlarmsConfiguration.model_validate(
        {"alarm004": [{"level": 4, "duration": "PT12H"}, {"level": 6, "duration": "P7D"}]}
    )
    assert config.alarm004 is not None
    assert config.alarm004[0] == Alarm004Threshold(level=4, duration="PT12H")


def test_one_domain_per_group() -> None:
    with pytest.raises(ValidationError, match="one domain per group"):
        abp(
            domains=[
                {"name": "France/Paris", "group": {"name": "Site"}},
                {"name": "France/Lyon", "group": {"name": "Site"}},
            ]
        )


def test_update_sends_only_what_changed() -> None:
    update = DeviceUpdate(name="New name")
    assert update.to_wire() == {"name": "New name"}
    # The EUI cannot change: sent back with the rest of a device, it is kept aside for the
    # server to compare, never sent as a change.
    sent_back = DeviceUpdate.model_validate({"EUI": "70B3D5E75E000001", "name": "New name"})
    assert sent_back.to_wire() == {"name": "New name"}
    assert sent_back.fixed_values() == {"EUI": "70B3D5E75E000001"}


def test_location_goes_in_pairs() -> None:
    with pytest.raises(ValidationError, match="together"):
        DeviceUpdate(adminLat=45.0)


def test_filter_params_repeat_and_skip_empty() -> None:
    params = DeviceFilter(
        appServerID=["as-1", "as-2"], connectivity="CELLULAR", name=""
    ).to_params()
    assert params == [
        ("appServerID", "as-1"),
        ("appServerID", "as-2"),
        ("connectivity", "CELLULAR"),
    ]
    assert DeviceFilter().is_empty()


def test_tag_request() -> None:
    request = DevicesTagRequest(name="water", action="UNTAG", devEUIs=["70B3D5E75E000001"])
    assert request.to_wire()["action"] == "UNTAG"
    with pytest.raises(ValidationError):
        DevicesTagRequest(name="water", devEUIs=[])


def test_brief_keeps_unknown_fields_from_newer_platforms() -> None:
    brief = DeviceBrief.model_validate({"EUI": "01", "name": "n", "futureField": 1})
    assert brief.model_extra == {"futureField": 1}
    assert brief.path_ref == "e01"
