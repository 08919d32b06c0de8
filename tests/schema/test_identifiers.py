import pytest

from lpwa_console.schema.common import (
    Identifier,
    device_ref,
    format_identifier,
    parse_identifier,
    path_segment,
)


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("123", "uid", "123"),
        ("0", "uid", "0"),
        ("mine", "mine", ""),
        ("id:my-app", "id", "my-app"),
        ("id:tenant/app", "id", "tenant/app"),
        ("id:sub:100042", "sub", "100042"),
        ("id:sup:acme", "sup", "acme"),
        ("auth0|5f7c8ec7c33c6c004bbafe82", "text", "auth0|5f7c8ec7c33c6c004bbafe82"),
    ],
)
def test_parse_identifier_forms(text: str, kind: str, value: str) -> None:
    ident = parse_identifier(text)
    assert (ident.kind, ident.value) == (kind, value)
    assert format_identifier(ident) == text


def test_device_eui_form_only_where_allowed() -> None:
    assert parse_identifier("e70B3D5E75E000001", allow_eui=True) == Identifier(
        "eui", "70B3D5E75E000001"
    )
    # Lower-case hex is not the EUI form: the EUI must be upper case after the `e`.
    assert parse_identifier("e70b3d5e75e000001", allow_eui=True).kind == "text"
    assert parse_identifier("e70B3D5E75E000001").kind == "text"


def test_uid_property_only_for_uids() -> None:
    assert parse_identifier("42").uid == 42
    with pytest.raises(ValueError):
        _ = parse_identifier("mine").uid


def test_device_ref_upper_cases() -> None:
    assert device_ref("70b3d5e75e000001") == "e70B3D5E75E000001"


@pytest.mark.parametrize(
    ("raw", "encoded"),
    [
        ("id:tenant/app", "id%3Atenant%2Fapp"),
        ("id:sub:100", "id%3Asub%3A100"),
        ("mine", "mine"),
        (42, "42"),
        (Identifier("id", "a/b"), "id%3Aa%2Fb"),
    ],
)
def test_path_segment_percent_encodes_colon_and_slash(raw: object, encoded: str) -> None:
    assert path_segment(raw) == encoded  # type: ignore[arg-type]
