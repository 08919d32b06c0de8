"""Field words: one label per field (API name kept for tooltips), per-model meanings,
internals hidden, durations in numbers, units and words."""

from __future__ import annotations

import pytest

from lpwa_console.schema.devices import DeviceCreate
from lpwa_console.schema.durations import (
    duration_words,
    join_duration,
    parse_duration,
    split_duration,
)
from lpwa_console.schema.labels import (
    FIELD_WORDS,
    REFERENCE_NOUNS,
    field_words,
    is_hidden,
    label_of,
    words_from_name,
)
from lpwa_console.schema.multicast import MulticastGroupCreate


def test_labels_are_words_not_schema_names() -> None:
    assert label_of("nwAddress", DeviceCreate) == "Network address (DevAddr)"
    assert label_of("maxTimestampDeviation") == "Maximum clock difference"
    assert field_words("pingSlotPeriod").unit == "s"
    assert field_words("downlinkFrequency").unit == "MHz"
    assert field_words("alarmLevel").choice_words(4) == "Minor"
    assert field_words("type").choice_words("KAFKA") == "Kafka bus"
    assert field_words("ipVersion").choice_words("IPV4V6") == "IPv4 and IPv6"
    assert field_words("strategy").choice_words("UNKNOWN") == "UNKNOWN"  # a newer value
    for name, words in FIELD_WORDS.items():
        assert (words.label and words.label != name) or name in ("ID", "EUI"), name
        assert not words.reference or words.reference in REFERENCE_NOUNS, name


def test_one_name_may_mean_another_thing_in_one_model() -> None:
    assert label_of("EUI", DeviceCreate) == "DevEUI"
    assert label_of("EUI", MulticastGroupCreate) == "Group EUI"
    assert label_of("EUI", "_MulticastGroupFields") == "Group EUI"  # by class name too
    assert label_of("nwAddress", MulticastGroupCreate).endswith("(McAddr)")


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("pingSlotPeriod", "Ping slot period"),
        ("downlinkSecurity.someNewField", "Some new field"),
        ("gatewayID", "Gateway ID"),
        ("fooURLBar", "Foo URL bar"),
        ("x", "X"),
    ],
)
def test_unknown_names_still_read_as_words(name: str, words: str) -> None:
    assert words_from_name(name) == words
    assert label_of(name) == words


def test_internals_are_hidden_and_references_known() -> None:
    assert is_hidden("occContext") and is_hidden("occContext.version") and is_hidden("href")
    assert not is_hidden("name")
    assert field_words("model").reference == "deviceProfiles"
    assert field_words("appServers").reference == "appServers"


@pytest.mark.parametrize(
    ("iso", "parts", "words"),
    [
        ("PT1H", (1, "H"), "1 hour"),
        ("P2D", (2, "D"), "2 days"),
        ("P1W", (1, "W"), "7 days"),
        ("PT36H", (36, "H"), "1 day 12 hours"),
        ("PT90M", (90, "M"), "1 hour 30 minutes"),
        ("P30D", (30, "D"), "30 days"),
        ("PT45S", (45, "S"), "45 seconds"),
    ],
)
def test_durations_round_trip(iso: str, parts: tuple[int, str], words: str) -> None:
    assert split_duration(iso) == parts
    assert parse_duration(join_duration(*parts)) == parse_duration(iso)
    assert duration_words(iso) == words


def test_duration_words_leave_other_text_alone() -> None:
    assert duration_words("soon") == "soon"
    with pytest.raises(ValueError):
        split_duration("P1Y")


def test_a_value_with_its_unit_and_long_seconds_in_words() -> None:
    from lpwa_console.schema.labels import FieldWords

    seconds, mhz, degrees = (
        FieldWords("T", unit="s"),
        FieldWords("F", unit="MHz"),
        FieldWords("L", unit="°"),
    )
    assert seconds.with_unit(30, "30") == "30 s"
    assert seconds.with_unit(172_800, "172800") == "2 days (172,800 s)"
    assert mhz.with_unit(868.1, "868.1") == "868.1 MHz"
    assert degrees.with_unit(45.2, "45.2") == "45.2°"
    assert FieldWords("N").with_unit(3, "3") == "3" and seconds.with_unit(None, "") == ""
