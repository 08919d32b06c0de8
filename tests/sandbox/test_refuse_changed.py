"""'Cannot change after creation' is one rule for every resource (`errors.refuse_changed`):
what was read may be sent back; another value of a fixed field is refused, naming each."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.sandbox.errors import STATION_ANY_CASE, ApiError, refuse_changed

STATION = {"lrrID": "0A1B2C3D", "lrrUUID": "UUID-1", "model": {"ID": "KERLINK_WIRNET"}}


def _message(current: dict[str, Any], sent: dict[str, Any], **options: Any) -> str | None:
    try:
        refuse_changed(current, sent, **options)
    except ApiError as refused:
        assert refused.status == 400
        return refused.message
    return None


def test_what_was_read_may_be_sent_back() -> None:
    assert _message({"EUI": "70B3D5FFFE000001"}, {"EUI": " 70b3d5fffe000001 "}) is None
    assert _message(STATION, dict(STATION), any_case=STATION_ANY_CASE) is None
    sent = {"lrrID": "0a1b2c3d", "model": {"ID": "kerlink_wirnet", "name": "read back"}}
    assert _message(STATION, sent, any_case=STATION_ANY_CASE) is None


@pytest.mark.parametrize(
    ("current", "sent", "options", "message"),
    [
        ({"ID": "a"}, {"ID": "b"}, {}, "ID: cannot change after creation (it is a)"),
        ({"ID": "a"}, {"ID": "A"}, {}, "ID: cannot change after creation (it is a)"),
        ({"ID": "a"}, {"ID": None}, {}, "ID: cannot change after creation (it is a)"),
        ({"ID": "a"}, {"ID": None}, {"null_keeps": True}, None),
        (
            STATION,
            {"lrrID": "0A1B2C3E", "model": {"ID": "OTHER"}},
            {"any_case": STATION_ANY_CASE},
            "lrrID: cannot change after creation (it is 0A1B2C3D);"
            " model: cannot change after creation (it is KERLINK_WIRNET)",
        ),
    ],
)
def test_another_value_is_refused_naming_each_field(
    current: dict[str, Any], sent: dict[str, Any], options: dict[str, Any], message: str | None
) -> None:
    assert _message(current, sent, **options) == message
