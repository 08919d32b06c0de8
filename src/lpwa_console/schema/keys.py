"""Hex keys and the AppSKey rules that devices and multicast groups share.

A writable device or group carries its AppSKey as `appSKey` (32 hex digits) or, deprecated,
as `appKeys`: the XML `<AppSKeys><AppSKey Port="*">HEX</AppSKey></AppSKeys>`. The models
declare the two fields themselves and reuse the validators here:

    _app_skey = field_validator("appSKey")(check_app_skey)
    _app_keys = field_validator("appKeys")(check_app_keys)
"""

from __future__ import annotations

from typing import Protocol
from xml.etree import ElementTree

from .common import hex_problem, is_hex


def hex_key(value: str | None, *, digits: int, what: str) -> str | None:
    """`value` stripped and upper-cased when it has `digits` hex digits (None stays None)."""
    if value is None:
        return None
    value = value.strip()
    if not is_hex(value, digits):
        problem = hex_problem(value, digits)
        if "not a hexadecimal digit" in problem:  # the character at fault, named
            raise ValueError(f"{what}: {problem}")
        raise ValueError(f"{what} must be {digits} hexadecimal digits")
    return value.upper()


def app_skey_from_xml(document: str) -> str:
    """The AppSKey inside the deprecated `<AppSKeys><AppSKey Port="*">HEX</AppSKey></AppSKeys>`."""
    try:
        root = ElementTree.fromstring(document)
    except ElementTree.ParseError as exc:
        raise ValueError(f"appKeys is not well-formed XML: {exc}") from None
    keys = root.findall("AppSKey") if root.tag == "AppSKeys" else []
    if root.tag != "AppSKeys" or len(keys) != 1:
        raise ValueError("appKeys must be one <AppSKey> inside <AppSKeys>")
    if keys[0].get("Port") != "*":
        raise ValueError('appKeys: the AppSKey Port attribute must be "*"')
    key = hex_key(keys[0].text or "", digits=32, what="appKeys AppSKey")
    assert key is not None
    return key


def app_skey_xml(app_skey: str) -> str:
    return f'<AppSKeys><AppSKey Port="*">{app_skey}</AppSKey></AppSKeys>'


# --- field validators ------------------------------------------------------------------------


def check_app_skey(value: str | None) -> str | None:
    """Validator of `appSKey`: 32 hex digits, upper-cased."""
    return hex_key(value, digits=32, what="AppSKey")


def check_app_keys(value: str | None) -> str | None:
    """Validator of the deprecated `appKeys`: its XML must hold one valid AppSKey. The
    document is kept as given."""
    if value is not None:
        app_skey_from_xml(value)
    return value


# --- reading a model's key -------------------------------------------------------------------


class HasAppSKey(Protocol):
    """A model with the two fields (appKeys being deprecated, reading it warns)."""

    @property
    def appSKey(self) -> str | None: ...

    @property
    def appKeys(self) -> str | None: ...


def deprecated_app_keys(model: HasAppSKey) -> str | None:
    """`model.appKeys` without the DeprecationWarning that reading it raises."""
    value = vars(model).get("appKeys")  # see common.deprecated_value
    return value if isinstance(value, str) else None


def effective_app_skey(model: HasAppSKey) -> str | None:
    """`appSKey`, or the one in the deprecated XML document, or None."""
    if model.appSKey:
        return model.appSKey
    xml = deprecated_app_keys(model)
    return app_skey_from_xml(xml) if xml else None
