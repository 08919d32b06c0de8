from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from lpwa_console.schema.alarms import (
    ALARM_SORT_CRITERIA,
    REFERENCE_SORT_CRITERIA,
    AlarmFilter,
    AlarmsAck,
    DeviceAlarmPage,
    MulticastAlarmPage,
    alarm_sort_param,
)
from lpwa_console.schema.common import Severity

BRIEF = {
    "alarmUid": "a1",
    "ID": 4,
    "state": 5,
    "level": 2,
    "occurrence": 3,
    "acked": False,
    "creationTimestamp": 1,
    "updateTimestamp": 2,
}


def test_device_alarm_brief_with_its_device() -> None:
    page = DeviceAlarmPage.model_validate(
        {
            "briefs": [{**BRIEF, "device": {"EUI": "0102", "name": "m", "domains": []}}],
            "count": 1,
            "more": True,
            "cursors": {"last": "YTE="},
            "futureField": 1,
        }
    )
    alarm = page.briefs[0]
    assert alarm.state is Severity.MAJOR and alarm.severity.label == "Major"
    assert alarm.code == "004" and alarm.active
    assert alarm.device.EUI == "0102"
    assert page.next_cursor == "YTE=" and page.count == 1


def test_multicast_alarm_brief_with_its_group() -> None:
    page = MulticastAlarmPage.model_validate(
        {"briefs": [{**BRIEF, "acked": True, "multicastGroup": {"EUI": "AA"}}], "more": False}
    )
    assert page.briefs[0].multicastGroup.EUI == "AA"
    assert not page.briefs[0].active
    assert page.count is None and page.next_cursor is None


@pytest.mark.parametrize("state", [0, 7])
def test_state_is_a_severity(state: int) -> None:
    with pytest.raises(ValidationError) as info:
        DeviceAlarmPage.model_validate(
            {"briefs": [{**BRIEF, "state": state, "device": {"EUI": "1"}}]}
        )
    assert "state" in str(info.value)


def test_ack_body_needs_uids() -> None:
    assert AlarmsAck(alarmUids=["a", " b ", "a"]).to_wire() == {"alarmUids": ["a", "b"]}
    with pytest.raises(ValidationError, match="alarmUids"):
        AlarmsAck(alarmUids=[])
    with pytest.raises(ValidationError, match="empty"):
        AlarmsAck(alarmUids=[" "])


def test_filter_params() -> None:
    filters = AlarmFilter.model_validate(
        {
            "state": 3,
            "acked": False,
            "ID": 4,
            "devEUI": ["01", "02"],
            "from": datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
        }
    )
    params = filters.to_params()
    assert ("state", "3") in params and ("acked", "false") in params and ("ID", "4") in params
    assert [v for k, v in params if k == "devEUI"] == ["01", "02"]
    assert ("from", "2024-01-02T03:04:05.000Z") in params
    assert {k for k, _ in filters.scoped_params()} == {"state", "acked", "ID", "from"}
    assert AlarmFilter().is_empty()


def test_scoped_state_means_the_same_as_on_the_collection() -> None:
    """One owner's list has no stateFiltering (1 = CLEARED only, 2..6 = or above): the same
    filter asks it for the same alarms as the collection, or refuses."""
    assert AlarmFilter(state=Severity.CLEARED).scoped_params() == []  # every alarm
    assert AlarmFilter(state=Severity.CLEARED, stateFiltering="EQUAL").scoped_params() == [
        ("state", "1")
    ]
    assert AlarmFilter(state=Severity.MINOR).scoped_params() == [("state", "4")]
    assert AlarmFilter(state=Severity.CRITICAL, stateFiltering="EQUAL").scoped_params() == [
        ("state", "6")
    ]
    with pytest.raises(ValueError, match="or above"):
        AlarmFilter(state=Severity.MINOR, stateFiltering="EQUAL").scoped_params()


def test_sort_criteria_include_the_references() -> None:
    assert set(REFERENCE_SORT_CRITERIA) <= set(ALARM_SORT_CRITERIA)
    assert alarm_sort_param("acked", descending=True) == "acked,desc"


def test_sort_param() -> None:
    assert alarm_sort_param("alarmUid") == "alarmUid,asc"
    assert alarm_sort_param("creationTimestamp", descending=True) == "creationTimestamp,desc"
    with pytest.raises(ValueError, match="criterion"):
        alarm_sort_param("name")  # type: ignore[arg-type]
