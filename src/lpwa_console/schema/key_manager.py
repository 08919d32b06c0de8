"""The key manager (Document 1 §2.7, §3, §4.4): `/kmSubscriptions/{kmSubscriptionUid}` with its
AS keys, HSM groups, public exchange keys, devices (root keys, ownership, states), the devices'
traffic and states distribution, key generation, and `/kmCustomers`.

Where Document 1 gives no shape, these are our choices, said per class. Root keys travel in
one of three encodings, per key:
  - in clear: 32 hexadecimal digits;
  - wrapped with an HSM group's AES key (RFC 3394 key wrap): 48 hexadecimal digits, with the
    key's version in `hsmAppKeyVersion` / `hsmNwkKeyVersion`;
  - encrypted with an RSA exchange key (RSAES-OAEP, SHA-256 and MGF1-SHA-256): base64, with the
    exchange key's version in `exchangeKeyVersion` (an HSM group's or the platform's).
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from .common import ApiModel, ListEnvelope, QueryFilter, RequestModel, ResourceRequest, is_hex
from .network import rsa_public_key_from_pem

KmDeviceState = Literal["PRE_COMMISSIONED", "GENERIC", "COMMISSIONED", "ACTIVATED"]
KM_DEVICE_STATES: tuple[KmDeviceState, ...] = (
    "PRE_COMMISSIONED",
    "GENERIC",
    "COMMISSIONED",
    "ACTIVATED",
)
LorawanVersion = Literal["1.0", "1.1"]
WrapAlgo = Literal["AES_CBC", "RFC_3394"]
# Secure element chip models the sandbox knows (`secureElement.type` of an answer): the model
# is the first `:`-separated field of the element's TKM information.
SECURE_ELEMENT_TYPES = ("ATECC608A-TNGLORA", "ATECC608B-TNGLORA", "STSAFE-A1XX", "SE050")
KEY_VERSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:\-]{0,63}$"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}$"
MAX_GENERATED_KEYS = 1000


# --- key encodings -------------------------------------------------------------------------------

KeyEncoding = Literal["CLEAR", "HSM", "RSA"]


def key_encoding(hsm_version: str | None, exchange_version: str | None) -> KeyEncoding:
    if hsm_version:
        return "HSM"
    return "RSA" if exchange_version else "CLEAR"


def check_key_text(value: str, encoding: KeyEncoding, what: str) -> str:
    """`value` in its encoding's form (hex upper-cased, base64 as given); ValueError saying
    which form was expected."""
    value = value.strip()
    if encoding == "CLEAR":
        if not is_hex(value, 32):
            raise ValueError(f"{what}: 32 hexadecimal digits expected (a key in clear)")
        return value.upper()
    if encoding == "HSM":
        if not is_hex(value, 48):
            raise ValueError(
                f"{what}: 48 hexadecimal digits expected (a key wrapped with an HSM AES key)"
            )
        return value.upper()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(f"{what}: base64 expected (a key encrypted with an RSA key)") from None
    if len(raw) < 64:
        raise ValueError(f"{what}: too short for an RSA ciphertext (base64 of an encrypted key)")
    return value


def _hex_id(value: str | None, digits: int, what: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not is_hex(value, digits):
        raise ValueError(f"{what} has {digits} hexadecimal digits")
    return value.upper()


def check_dev_eui(value: str) -> str:
    """A KM device's DevEUI (a creation's, a claim's): 16 hexadecimal digits, upper case."""
    checked = _hex_id(value, 16, "a DevEUI")
    assert checked is not None
    return checked


# --- KM subscription, customers ----------------------------------------------------------------


class KmSubscription(ApiModel):
    """GET /kmSubscriptions/{kmSubscriptionUid}. Our choice beyond §2.7: ID (the subscriber
    ID), name, hsm (the subscription's option), href."""

    ID: str
    name: str | None = None
    hsm: Literal["ACTIVATED", "DEACTIVATED"] | None = None
    platformExchangeKeyVersion: str | None = None
    href: str | None = None


PermissionLetter = Literal["x", "a", "ra", "rc", "s1"]


class KmGrantedSubscription(ApiModel):
    grantedPermissions: list[PermissionLetter]


class KmCustomer(ApiModel):
    """GET /kmCustomers item: the subscriptions the caller may manage keys of, with what it may
    do there. Our choice beyond §2.7: ID (subscriber ID), name, kmSubscriptionUid, href."""

    ID: str
    name: str | None = None
    kmSubscriptionUid: int | None = None
    href: str | None = None
    subscription: KmGrantedSubscription


class KmCustomerPage(ListEnvelope[KmCustomer]):
    pass


# --- HSM groups and exchange keys -------------------------------------------------------------


class KmHsmGroup(ApiModel):
    """GET /kmSubscriptions/{uid}/hsmGroups item. Our choice beyond §2.7: ID, name, href and
    the versions of the group's current AES keys (`hsmAppKeyVersion`, `hsmNwkKeyVersion`), to
    name when sending a key wrapped with one."""

    ID: str
    name: str | None = None
    hsmExchangeKeyVersion: str | None = None
    hsmAppKeyVersion: str | None = None
    hsmNwkKeyVersion: str | None = None
    href: str | None = None


class KmHsmGroupPage(ListEnvelope[KmHsmGroup]):
    pass


class KmPublicExchangeKey(ApiModel):
    """GET /kmSubscriptions/{uid}/publicExchangeKey item: an RSA public key (X.509
    SubjectPublicKeyInfo PEM) and its version; `hsmGroupID` when it is an HSM group's, none
    for the platform's."""

    version: str
    pem: str
    hsmGroupID: str | None = None


class KmPublicExchangeKeys(ApiModel):
    briefs: list[KmPublicExchangeKey] = Field(default_factory=list)


# --- AS keys -------------------------------------------------------------------------------------


class HsmSecurity(RequestModel):
    """How the AS key protects AppSKeys sent to the application server: `asKeyLabel` (label
    of the generated AS transport key) and `asKeyWrapAlgo` (RFC_3394 only when an HSM group
    generates the key)."""

    asKeyLabel: str | None = Field(default=None, min_length=1, max_length=64)
    asKeyWrapAlgo: WrapAlgo = "AES_CBC"


class KmAsKey(ApiModel):
    """An AS key. Our choice beyond §2.7: UID, ID, name, hsmGroupID (the HSM group that
    generated the key, none: the platform did), href. The key itself is never returned."""

    UID: int
    ID: str
    name: str | None = None
    hsmGroupID: str | None = None
    hsmSecurity: HsmSecurity | None = None
    href: str | None = None


class KmAsKeyPage(ListEnvelope[KmAsKey]):
    pass


def _rfc3394_rule(hsm_group: str | None, security: HsmSecurity | None) -> None:
    if security is not None and security.asKeyWrapAlgo == "RFC_3394" and not hsm_group:
        raise ValueError(
            "hsmSecurity.asKeyWrapAlgo: RFC_3394 needs a key generated by an HSM group"
            " (set hsmGroupID)"
        )


class KmAsKeyCreate(ResourceRequest):
    read_only_fields = frozenset({"UID", "href", "occContext"})

    ID: str = Field(pattern=ID_PATTERN)
    name: str | None = Field(default=None, max_length=128)
    hsmGroupID: str | None = None
    hsmSecurity: HsmSecurity | None = None

    @model_validator(mode="after")
    def _rules(self) -> Self:
        _rfc3394_rule(self.hsmGroupID, self.hsmSecurity)
        return self


class KmAsKeyUpdate(ResourceRequest):
    """The HSM group is fixed at creation: the sandbox checks RFC_3394 against it."""

    read_only_fields = frozenset({"UID", "href", "occContext"})
    fixed_fields = frozenset({"ID", "hsmGroupID"})

    name: str | None = Field(default=None, max_length=128)
    hsmSecurity: HsmSecurity | None = None


# --- devices -------------------------------------------------------------------------------------


class AsKeyRef(RequestModel):
    read_only_fields = frozenset({"href", "name"})

    ID: str = Field(pattern=ID_PATTERN)


class SecureElementRequest(RequestModel):
    lorawanVersion: LorawanVersion = "1.0"
    tkmInfo: str = Field(min_length=1, max_length=4096)

    @field_validator("tkmInfo")
    @classmethod
    def _model(cls, value: str) -> str:
        if secure_element_type(value) is None:
            raise ValueError(
                "tkmInfo should start with the element's model and ':' (one of "
                + ", ".join(SECURE_ELEMENT_TYPES)
                + ")"
            )
        return value


def secure_element_type(tkm_info: str) -> str | None:
    model = tkm_info.split(":", 1)[0].strip().upper()
    return model if model in SECURE_ELEMENT_TYPES and ":" in tkm_info else None


class SecureElement(ApiModel):
    type: str


class AsKeyBrief(ApiModel):
    ID: str
    href: str | None = None


class KmDeviceBrief(ApiModel):
    """A KM device as listed. Our choice beyond §2.7: UID, EUI (DevEUI), name, appEUI
    (JoinEUI), lorawanVersion, creationDate, href. `appKey` and `nwkKey` are never returned."""

    UID: int
    EUI: str
    state: KmDeviceState
    name: str | None = None
    appEUI: str | None = None
    lorawanVersion: LorawanVersion = "1.0"
    ownerID: str | None = None
    creationDate: int | None = None
    href: str | None = None

    @property
    def path_ref(self) -> str:
        return "e" + self.EUI.upper()


class KmDevice(KmDeviceBrief):
    asKey: AsKeyBrief | None = None
    homeNsNetID: str | None = None
    homeNsNSID: str | None = None
    ownerToken: str | None = None
    secureElement: SecureElement | None = None
    hsmAppKeyVersion: str | None = None
    hsmNwkKeyVersion: str | None = None


class KmDevicePage(ListEnvelope[KmDeviceBrief]):
    pass


class KmDeviceFilter(QueryFilter):
    """`state`: exactly one state; without it every state."""

    state: KmDeviceState | None = None


class _KeyFields(ResourceRequest):
    # In the order forms show them: what people type most first, key encodings last.
    name: str | None = Field(default=None, max_length=128)
    appKey: str | None = None
    nwkKey: str | None = None
    appEUI: str | None = None
    homeNsNetID: str | None = None
    homeNsNSID: str | None = None
    asKey: AsKeyRef | None = None
    hsmAppKeyVersion: str | None = Field(default=None, pattern=KEY_VERSION_PATTERN)
    hsmNwkKeyVersion: str | None = Field(default=None, pattern=KEY_VERSION_PATTERN)
    exchangeKeyVersion: str | None = Field(default=None, pattern=KEY_VERSION_PATTERN)

    @field_validator("homeNsNetID")
    @classmethod
    def _net_id(cls, value: str | None) -> str | None:
        return _hex_id(value, 6, "a NetID")

    @field_validator("homeNsNSID")
    @classmethod
    def _nsid(cls, value: str | None) -> str | None:
        return _hex_id(value, 16, "an NSID (IEEE EUI64)")

    @field_validator("appEUI")
    @classmethod
    def _app_eui(cls, value: str | None) -> str | None:
        return _hex_id(value, 16, "a JoinEUI")

    def _check_keys(self) -> None:
        if self.hsmAppKeyVersion and not self.appKey:
            raise ValueError("hsmAppKeyVersion: only with an appKey it encrypts")
        if self.hsmNwkKeyVersion and not self.nwkKey:
            raise ValueError("hsmNwkKeyVersion: only with a nwkKey it encrypts")
        # An HSM key version says how its key is wrapped; exchangeKeyVersion is for the others.
        rsa_keys = (self.appKey and not self.hsmAppKeyVersion) or (
            self.nwkKey and not self.hsmNwkKeyVersion
        )
        if self.exchangeKeyVersion and not rsa_keys:
            raise ValueError(
                "exchangeKeyVersion: only with an appKey or nwkKey it encrypts (one without an"
                " HSM key version)"
            )
        if self.appKey:
            encoding = key_encoding(self.hsmAppKeyVersion, self.exchangeKeyVersion)
            self.appKey = check_key_text(self.appKey, encoding, "appKey")
        if self.nwkKey:
            encoding = key_encoding(self.hsmNwkKeyVersion, self.exchangeKeyVersion)
            self.nwkKey = check_key_text(self.nwkKey, encoding, "nwkKey")

    def check_state_rules(self, state: str) -> None:
        """§2.7: asKey.ID, homeNsNetID and homeNsNSID cannot be set on a PRE_COMMISSIONED
        device."""
        if state == "PRE_COMMISSIONED":
            for name, value in (
                ("asKey.ID", self.asKey),
                ("homeNsNetID", self.homeNsNetID),
                ("homeNsNSID", self.homeNsNSID),
            ):
                if value is not None:
                    raise ValueError(f"{name}: cannot be set on a PRE_COMMISSIONED device")


class KmDeviceCreate(_KeyFields):
    """POST /kmSubscriptions/{uid}/devices. `state` may ask for PRE_COMMISSIONED; otherwise the
    device is COMMISSIONED when a home network is set (homeNsNetID or homeNsNSID), else
    GENERIC. `lorawanVersion` (our choice) is the version of a device without a secure
    element; with one, `secureElement.lorawanVersion` is, and the element holds the keys."""

    read_only_fields = frozenset(
        {"UID", "href", "ownerID", "ownerToken", "creationDate", "occContext"}
    )

    EUI: str
    state: Literal["PRE_COMMISSIONED", "GENERIC", "COMMISSIONED"] | None = None
    lorawanVersion: LorawanVersion | None = None
    secureElement: SecureElementRequest | None = None
    rsaPublicKey: str | None = None

    _eui = field_validator("EUI")(check_dev_eui)

    @field_validator("rsaPublicKey")
    @classmethod
    def _pem(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            n, _ = rsa_public_key_from_pem(value)
        except ValueError as exc:
            raise ValueError(f"an RSA public key in PEM is expected ({exc})") from None
        if n.bit_length() < 1024:
            raise ValueError("the RSA key should have at least 1024 bits")
        return value.strip() + "\n"

    @property
    def version(self) -> str:
        if self.secureElement is not None:
            return self.secureElement.lorawanVersion
        return self.lorawanVersion or "1.0"

    @property
    def effective_state(self) -> str:
        if self.state == "PRE_COMMISSIONED":
            return "PRE_COMMISSIONED"
        return "COMMISSIONED" if (self.homeNsNetID or self.homeNsNSID) else "GENERIC"

    @model_validator(mode="after")
    def _rules(self) -> Self:
        self.check_state_rules(self.effective_state)
        if self.state == "COMMISSIONED" and not (self.homeNsNetID or self.homeNsNSID):
            raise ValueError("state: COMMISSIONED needs a home network (homeNsNetID or homeNsNSID)")
        if self.state == "GENERIC" and (self.homeNsNetID or self.homeNsNSID):
            # Never replaced silently: the device would be COMMISSIONED, not what was asked.
            raise ValueError(
                "state: a GENERIC device has no home network (a device with homeNsNetID or"
                " homeNsNSID is COMMISSIONED)"
            )
        se = self.secureElement
        if se is not None:
            if self.lorawanVersion is not None and self.lorawanVersion != se.lorawanVersion:
                raise ValueError(
                    "lorawanVersion: differs from secureElement.lorawanVersion (give one)"
                )
            for name in ("appKey", "nwkKey"):
                if getattr(self, name):
                    raise ValueError(
                        f"{name}: a device with a secure element keeps its keys in the element"
                    )
        else:
            if not self.appKey:
                raise ValueError("appKey: required for a device without a secure element")
            if self.version == "1.1" and not self.nwkKey:
                raise ValueError("nwkKey: required for a LoRaWAN 1.1 device")
        if self.version != "1.1" and self.nwkKey:
            raise ValueError("nwkKey: only for a LoRaWAN 1.1 device")
        self._check_keys()
        pre = self.effective_state == "PRE_COMMISSIONED"
        if pre and se is None and not self.rsaPublicKey:
            raise ValueError(
                "rsaPublicKey: required to pre-commission a device without a secure element"
                " (its owner token is encrypted with it)"
            )
        if self.rsaPublicKey and not (pre and se is None):
            raise ValueError(
                "rsaPublicKey: only for a pre-commissioned device without a secure element"
            )
        return self


class KmDeviceUpdate(_KeyFields):
    """PUT /kmSubscriptions/{uid}/devices/{device}. The state follows the home network
    (set: COMMISSIONED, cleared: GENERIC) except PRE_COMMISSIONED and ACTIVATED devices;
    the sandbox checks the PRE_COMMISSIONED rules against the device's state. A `state`
    sent must be the one the update leaves (the key manager sets it): another is refused."""

    read_only_fields = frozenset(
        {"UID", "href", "ownerID", "ownerToken", "creationDate", "occContext", "secureElement"}
    )
    fixed_fields = frozenset({"EUI", "lorawanVersion"})

    # Sent back as read, or asked for: the sandbox refuses a state this update cannot give.
    state: KmDeviceState | None = None

    @model_validator(mode="after")
    def _rules(self) -> Self:
        self._check_keys()
        return self


class KmClaim(RequestModel):
    """POST /kmSubscriptions/{uid}/devices/claim: the device (EUI), the owner claiming it and,
    for a device without a secure element, its owner token in clear (decrypted with the
    owner's RSA private key)."""

    EUI: str
    ownerID: str = Field(min_length=1, max_length=128)
    ownerToken: str | None = Field(default=None, max_length=1024)

    _eui = field_validator("EUI")(check_dev_eui)


# --- states, traffic, key generation ------------------------------------------------------------


class KmStateCount(ApiModel):
    state: KmDeviceState
    count: int


class KmStatesDistribution(ApiModel):
    """GET /devices/states (our shape): every state with its count, and the total."""

    states: list[KmStateCount] = Field(default_factory=list)
    total: int = 0

    def count(self, state: str) -> int:
        return next((s.count for s in self.states if s.state == state), 0)


class KmFrame(ApiModel):
    """A message the key manager served (our shape): JOIN_REQUEST or JOIN_ACCEPT."""

    time: int
    type: str
    deviceUID: int
    EUI: str


class KmFramePage(ListEnvelope[KmFrame]):
    pass


class KeyGenRequest(RequestModel):
    """POST /appKeyGen and /nwkKeyGen (our shape): how many keys."""

    count: int = Field(default=1, ge=1, le=MAX_GENERATED_KEYS)


class GeneratedKeys(ApiModel):
    keys: list[str] = Field(default_factory=list)
