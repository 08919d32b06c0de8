"""The AppSKey rules devices and multicast groups share (schema.keys)."""

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from pydantic import ValidationError

from lpwa_console.schema import devices, keys
from lpwa_console.schema.devices import DeviceCreate, DeviceUpdate
from lpwa_console.schema.keys import (
    app_skey_xml,
    check_app_keys,
    check_app_skey,
    deprecated_app_keys,
    effective_app_skey,
    hex_key,
)
from lpwa_console.schema.multicast import MulticastGroupCreate, MulticastGroupUpdate

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
OTHER = "000102030405060708090A0B0C0D0E0F"


def test_hex_key() -> None:
    assert hex_key(None, digits=8, what="DevAddr") is None
    assert hex_key(" 0a0b0c0d ", digits=8, what="DevAddr") == "0A0B0C0D"
    with pytest.raises(ValueError, match="DevAddr must be 8 hexadecimal digits"):
        hex_key("0a0b0c", digits=8, what="DevAddr")
    with pytest.raises(ValueError, match="DevAddr: 'G' is not a hexadecimal digit"):
        hex_key("0A0B0C0G", digits=8, what="DevAddr")


def test_check_app_skey() -> None:
    assert check_app_skey(None) is None
    assert check_app_skey(KEY.lower()) == KEY
    with pytest.raises(ValueError, match="AppSKey must be 32"):
        check_app_skey("00")


def test_check_app_keys_keeps_the_document() -> None:
    xml = app_skey_xml(KEY.lower())
    assert check_app_keys(None) is None
    assert check_app_keys(xml) == xml  # validated, not rewritten
    with pytest.raises(ValueError, match="not well-formed"):
        check_app_keys("<AppSKeys>")
    with pytest.raises(ValueError, match="appKeys AppSKey must be 32"):
        check_app_keys(app_skey_xml("00"))


def test_effective_app_skey_prefers_app_skey_and_never_warns() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        both = DeviceUpdate(appSKey=KEY, appKeys=app_skey_xml(OTHER))
        xml_only = MulticastGroupUpdate(appKeys=app_skey_xml(OTHER.lower()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert effective_app_skey(both) == KEY
        assert effective_app_skey(xml_only) == OTHER
        assert deprecated_app_keys(xml_only) == app_skey_xml(OTHER.lower())
        assert effective_app_skey(DeviceUpdate()) is None
        assert deprecated_app_keys(DeviceUpdate()) is None


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: DeviceCreate(EUI="70B3D5E75E000003", nwAddress="01020304", **kw),
        lambda **kw: MulticastGroupCreate(EUI="70B3D5E75E00FF01", nwAddress="01020304", **kw),
    ],
    ids=["device", "multicast"],
)
def test_devices_and_groups_apply_the_same_rules(make: Callable[..., Any]) -> None:
    assert make(appSKey=KEY.lower()).appSKey == KEY
    with pytest.raises(ValidationError, match="AppSKey must be 32"):
        make(appSKey="00")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert make(appKeys=app_skey_xml(KEY)).effective_app_skey() == KEY
        with pytest.raises(ValidationError, match="Port"):
            make(appKeys=f'<AppSKeys><AppSKey Port="1">{KEY}</AppSKey></AppSKeys>')


def test_devices_still_exports_the_helpers() -> None:
    # schema.device_import, schema.app_servers and tests import them from schema.devices.
    assert devices.hex_key is keys.hex_key
    assert devices.app_skey_from_xml is keys.app_skey_from_xml
    assert devices.app_skey_xml is keys.app_skey_xml
