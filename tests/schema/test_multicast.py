import warnings

import pytest
from pydantic import ValidationError

from lpwa_console.schema.devices import app_skey_xml
from lpwa_console.schema.frames import (
    MULTICAST_RATIO_LABELS,
    MULTICAST_RATIO_RANGES,
    MulticastFramesAggregation,
    ratio_index,
)
from lpwa_console.schema.multicast import (
    MulticastGroup,
    MulticastGroupCreate,
    MulticastGroupFilter,
    MulticastGroupPage,
    MulticastGroupUpdate,
)

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
ALARMS = {f"alarm{i}": i for i in range(1, 7)}


def error_fields(exc: ValidationError) -> set[str]:
    return {str(e["loc"][0]) if e["loc"] else "" for e in exc.errors()}


def test_create_normalises_and_names_by_eui() -> None:
    group = MulticastGroupCreate.model_validate(
        {"EUI": "70b3d5e75e00ff01", "nwAddress": "0a0b0c0d", "appSKey": KEY.lower(), "class": "C"}
    )
    wire = group.to_wire()
    assert wire["EUI"] == "70B3D5E75E00FF01" and wire["name"] == "70B3D5E75E00FF01"
    assert wire["nwAddress"] == "0A0B0C0D" and wire["appSKey"] == KEY
    assert wire["class"] == "C"


@pytest.mark.parametrize(
    ("field", "value"), [("EUI", "123"), ("nwAddress", "XYZ"), ("appSKey", "00"), ("nwKey", "1")]
)
def test_hex_rules_name_the_field(field: str, value: str) -> None:
    data = {"EUI": "70B3D5E75E00FF01", "nwAddress": "01020304", "appSKey": KEY, field: value}
    with pytest.raises(ValidationError) as info:
        MulticastGroupCreate.model_validate(data)
    assert field in error_fields(info.value)


def test_create_needs_a_key_in_one_form() -> None:
    with pytest.raises(ValidationError, match="AppSKey"):
        MulticastGroupCreate(EUI="70B3D5E75E00FF01", nwAddress="01020304")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        group = MulticastGroupCreate(
            EUI="70B3D5E75E00FF01", nwAddress="01020304", appKeys=app_skey_xml(KEY)
        )
        assert group.effective_app_skey() == KEY
        with pytest.raises(ValidationError, match="not both"):
            MulticastGroupUpdate(appSKey=KEY, appKeys=app_skey_xml(KEY))
    with pytest.raises(ValidationError, match="Port"):
        MulticastGroupUpdate(appKeys=f'<AppSKeys><AppSKey Port="2">{KEY}</AppSKey></AppSKeys>')


def test_update_cannot_change_eui_or_devaddr() -> None:
    assert MulticastGroupUpdate(name="n", appServers=[{"ID": "as-1"}]).to_wire() == {
        "name": "n",
        "appServers": [{"ID": "as-1"}],
    }
    # Sent back with the rest of a group, they are kept aside for the server to compare.
    sent_back = MulticastGroupUpdate.model_validate({"nwAddress": "01020304", "name": "n"})
    assert sent_back.to_wire() == {"name": "n"}
    assert sent_back.fixed_values() == {"nwAddress": "01020304"}


def test_list_items_require_alarm_counts() -> None:
    item = {"EUI": "70B3D5E75E00FF01", "name": "g", **ALARMS}
    page = MulticastGroupPage.model_validate({"briefs": [item], "count": 1, "now": 5})
    assert page.briefs[0].alarm_counts == (1, 2, 3, 4, 5, 6)
    assert page.briefs[0].path_ref == "e70B3D5E75E00FF01"
    without = {k: v for k, v in item.items() if k != "alarm6"}
    with pytest.raises(ValidationError, match="alarm6"):
        MulticastGroupPage.model_validate({"briefs": [without]})


def test_single_group_reads_class_alias() -> None:
    group = MulticastGroup.model_validate({"EUI": "01", "name": "g", "class": "B", **ALARMS})
    assert group.class_ == "B"
    assert group.alarm_counts == (1, 2, 3, 4, 5, 6)


def test_single_group_does_not_require_alarm_counts() -> None:
    """§2.4 requires alarm1..alarm6 in list items only."""
    group = MulticastGroup.model_validate({"EUI": "01", "name": "g", "alarm3": 2})
    assert group.alarm3 == 2 and group.alarm1 is None and group.alarm_counts is None
    assert group.path_ref == "e01"


def test_filter_repeats_app_server_id() -> None:
    params = MulticastGroupFilter(appServerID=["a", "b"], name="").to_params()
    assert params == [("appServerID", "a"), ("appServerID", "b")]


def test_multicast_ratio_ranges_of_the_platform() -> None:
    assert [ratio_index(r) for r in (1.0, 0.99, 0.8, 0.79, 0.3, 0.29, 0.0)] == [0, 1, 1, 2, 2, 3, 3]
    with pytest.raises(ValueError):
        ratio_index(1.5)
    body = MulticastFramesAggregation.model_validate(
        {"briefs": [{"timestamp": 1, "successfulTransmissionValues": [{"count": 2, "size": 9}]}],
         "ratioRangeDefinitions": [r.model_dump() for r in MULTICAST_RATIO_RANGES[:1]]}
    )  # fmt: skip
    assert body.ranges == MULTICAST_RATIO_RANGES[:1]
    assert body.briefs[0].downlinks == body.briefs[0].fully_sent == 2
    assert len(MULTICAST_RATIO_LABELS) == len(MULTICAST_RATIO_RANGES)
