from datetime import timedelta

import pytest

from lpwa_console.schema.common import ErrorBody, ListEnvelope, Severity, TagRef
from lpwa_console.schema.durations import format_duration, parse_duration


def test_severity_numbering() -> None:
    assert [s.value for s in Severity] == [1, 2, 3, 4, 5, 6]
    assert Severity(3).label == "Warning"
    assert Severity.CRITICAL > Severity.MAJOR


def test_list_envelope_first_and_later_pages() -> None:
    first = ListEnvelope[int].model_validate({"briefs": [1, 2], "count": 10, "more": True})
    assert (first.count, first.more, first.next_cursor) == (10, True, None)
    later = ListEnvelope[int].model_validate(
        {"briefs": [3], "more": False, "cursors": {"last": "eyJFVUkiOiIwMSJ9"}}
    )
    assert later.count is None
    assert later.next_cursor == "eyJFVUkiOiIwMSJ9"


def test_error_body() -> None:
    body = ErrorBody.model_validate({"code": 25, "message": "unknown error"})
    assert (body.code, body.message) == (25, "unknown error")


@pytest.mark.parametrize("name", ["a", "tag1", "two words", "x" * 40, "été"])
def test_tag_names_valid(name: str) -> None:
    assert TagRef(name=name).name == name


@pytest.mark.parametrize("name", ["", "x" * 41, "a<b", "tab\there", "\x7f"])
def test_tag_names_invalid(name: str) -> None:
    with pytest.raises(ValueError):
        TagRef(name=name)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("PT1H", timedelta(hours=1)),
        ("P2D", timedelta(days=2)),
        ("P1DT12H", timedelta(days=1, hours=12)),
        ("p1w", timedelta(weeks=1)),
        ("PT90M", timedelta(minutes=90)),
    ],
)
def test_parse_duration(text: str, span: timedelta) -> None:
    assert parse_duration(text) == span


@pytest.mark.parametrize("text", ["", "P", "PT", "2D", "P1Y", "P1DT", "PXD"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)


def test_format_duration_round_trip() -> None:
    for text in ["PT1H", "P2D", "P1DT12H", "PT30M"]:
        assert format_duration(parse_duration(text)) == text
