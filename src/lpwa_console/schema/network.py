"""Network resources of a subscription (Document 1 §2.6, §4.3): cellular network contexts,
AS transport keys, HSM groups, network subscriptions and the public exchange key.

Fields of network contexts, AS transport keys (beyond ID and name) and HSM groups are not
given by the specification; the ones here are our choice (documented per class).
"""

from __future__ import annotations

import base64
import re
from typing import Literal

from pydantic import Field, field_validator

from .common import ApiModel, ListEnvelope, QueryFilter, ResourceRequest
from .devices import Connectivity
from .multicast import SupplierRef

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._\-]{0,63}$"
_APN = re.compile(
    r"[A-Za-z0-9]([A-Za-z0-9\-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9\-]*[A-Za-z0-9])?)*"
)


def check_apn(value: str | None) -> str | None:
    """An APN: dot-separated labels of letters, digits and inner hyphens, at most 100."""
    if value is None:
        return None
    value = value.strip()
    if len(value) > 100 or not _APN.fullmatch(value):
        raise ValueError("an APN is dot-separated labels of letters, digits and hyphens")
    return value


def check_plmn(value: str | None) -> str | None:
    """A PLMN ID: MCC (3 digits) + MNC (2 or 3 digits)."""
    if value is None:
        return None
    value = value.strip()
    if not (value.isdigit() and len(value) in (5, 6)):
        raise ValueError("a PLMN ID has 5 or 6 digits (MCC + MNC)")
    return value


# --- cellular network contexts -----------------------------------------------------------------


class CellularNetworkContext(ApiModel):
    """`/subscriptions/mine/cellularNetworkContexts/{networkContextID}`.

    Our choice of fields: ID, name, apn (access point name), plmnID (home network), ipVersion
    and description."""

    ID: str
    name: str
    href: str | None = None
    apn: str | None = None
    plmnID: str | None = None
    ipVersion: Literal["IPV4", "IPV6", "IPV4V6"] | None = None
    description: str | None = None


class CellularNetworkContextPage(ListEnvelope[CellularNetworkContext]):
    pass


class _NetworkContextWritable(ResourceRequest):
    apn: str | None = None
    plmnID: str | None = None
    ipVersion: Literal["IPV4", "IPV6", "IPV4V6"] | None = None
    description: str | None = Field(default=None, max_length=1024)

    @field_validator("apn")
    @classmethod
    def _apn(cls, value: str | None) -> str | None:
        return check_apn(value)

    @field_validator("plmnID")
    @classmethod
    def _plmn(cls, value: str | None) -> str | None:
        return check_plmn(value)


class CellularNetworkContextCreate(_NetworkContextWritable):
    """POST /subscriptions/mine/cellularNetworkContexts (201)."""

    read_only_fields = frozenset({"href"})

    ID: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1, max_length=128)


class CellularNetworkContextUpdate(_NetworkContextWritable):
    """PUT .../cellularNetworkContexts/{networkContextID}: the ID cannot change (sent back with
    the rest of an answer, it must be the same)."""

    read_only_fields = frozenset({"href"})
    fixed_fields = frozenset({"ID"})

    name: str | None = Field(default=None, min_length=1, max_length=128)


# --- AS transport keys ---------------------------------------------------------------------------


class AsTransportKey(ApiModel):
    """`/subscriptions/mine/asTransportKeys/{asTransportKeyID}`: ID and name."""

    ID: str
    name: str
    href: str | None = None


class AsTransportKeyPage(ListEnvelope[AsTransportKey]):
    pass


class AsTransportKeyCreate(ResourceRequest):
    read_only_fields = frozenset({"href"})

    ID: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1, max_length=128)


class AsTransportKeyUpdate(ResourceRequest):
    read_only_fields = frozenset({"href"})
    fixed_fields = frozenset({"ID"})

    name: str | None = Field(default=None, min_length=1, max_length=128)


# --- HSM groups ----------------------------------------------------------------------------------


class HsmGroup(ApiModel):
    """GET /subscriptions/mine/hsmGroups items. Our choice: ID, name, hsmExchangeKeyVersion
    (the version of the RSA exchange key of the group's HSM: a string, §2.7; it is the `kid`
    of the group's public exchange key), href. A number some server sends is read as its
    text."""

    ID: str
    name: str | None = None
    hsmExchangeKeyVersion: str | None = None
    href: str | None = None

    @field_validator("hsmExchangeKeyVersion", mode="before")
    @classmethod
    def _version_text(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value


class HsmGroupPage(ListEnvelope[HsmGroup]):
    pass


# --- network subscriptions -----------------------------------------------------------------------


class NetworkSubscriptionBrief(ApiModel):
    """A network subscription (list item). The routing booleans say which connections are
    allowed: platformCloudRouting (cloud platform), platformKafkaRouting (basic Kafka),
    thirdPartyAppServersRouting (basic HTTPS)."""

    ID: str
    name: str | None = None
    commercialName: str | None = None
    href: str | None = None
    connectivity: Connectivity | None = None
    communicationType: Literal["UNICAST", "MULTICAST"] | None = None
    hsmGroupID: str | None = None
    platformCloudRouting: bool = False
    platformKafkaRouting: bool = False
    thirdPartyAppServersRouting: bool = False
    supplier: SupplierRef | None = None
    granted: int | None = None
    used: int | None = None
    maxDestinationPerRoute: int | None = None
    nwGeolocalization: bool | None = None
    prAllowed: bool | None = None

    @property
    def label(self) -> str:
        return self.name or self.commercialName or self.ID


class NetworkSubscription(NetworkSubscriptionBrief):
    """GET /networkSubscriptions/{networkSubscriptionUid}: LoRaWAN and cellular details
    beyond these are kept as extra fields."""

    commercialDescription: str | None = None
    uplinkRate: float | None = None
    uplinkRateUnit: Literal["HOUR", "DAY", "WEEK"] | None = None
    downlinkRate: float | None = None
    downlinkRateUnit: Literal["HOUR", "DAY", "WEEK"] | None = None
    downlinkTransmission: bool | None = None


class NetworkSubscriptionPage(ListEnvelope[NetworkSubscriptionBrief]):
    pass


class NetworkSubscriptionFilter(QueryFilter):
    """Filters of the list: connectivity and communicationType exact; connectivitySupplier
    and networkSubscriptionID exact."""

    connectivity: Connectivity | None = None
    communicationType: Literal["UNICAST", "MULTICAST"] | None = None
    connectivitySupplier: str | None = None
    networkSubscriptionID: str | None = None


# --- public exchange key -------------------------------------------------------------------------

# The two representations GET /publicExchangeKey offers (reference contract), by Accept.
PEM_MEDIA_TYPE = "application/x-pem-file"
JWK_MEDIA_TYPE = "application/jwk+json"
PEM_BEGIN = "-----BEGIN PUBLIC KEY-----"
PEM_END = "-----END PUBLIC KEY-----"
# PKCS#1 (RFC 8017): what `openssl rsa -RSAPublicKey_out` and many HSM tools write.
PKCS1_BEGIN = "-----BEGIN RSA PUBLIC KEY-----"
PKCS1_END = "-----END RSA PUBLIC KEY-----"


class PublicRsaJsonWebKey(ApiModel):
    """GET /subscriptions/mine/publicExchangeKey as `application/jwk+json`: the RSA public key
    to encrypt keys of an import file. With `hsmGroupID` (exact match) the key of that HSM
    group; without, the platform's exchange key (used when no HSM is). `kid` is the key
    version; `n` and `e` are base64url."""

    kid: str
    kty: Literal["RSA"] = "RSA"
    n: str
    e: str

    def pem(self) -> str:
        """The same key as the `application/x-pem-file` representation: X.509
        SubjectPublicKeyInfo in PEM."""
        return rsa_public_key_pem(b64url_int(self.n), b64url_int(self.e))


def b64url_int(text: str) -> int:
    """A JWK number (base64url, padding optional) as an integer."""
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def _der(tag: int, body: bytes) -> bytes:
    size = len(body)
    if size < 0x80:
        head = bytes([size])
    else:
        raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
        head = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + head + body


def _der_int(value: int) -> bytes:
    # Big-endian, with a leading zero byte when the high bit is set (DER INTEGERs are signed).
    return _der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


RSA_ENCRYPTION_OID = bytes.fromhex("2a864886f70d010101")  # 1.2.840.113549.1.1.1


def rsa_public_key_pem(n: int, e: int) -> str:
    """SubjectPublicKeyInfo { rsaEncryption, RSAPublicKey { n, e } } in PEM (RFC 5280/7468)."""
    algorithm = _der(0x30, _der(0x06, RSA_ENCRYPTION_OID) + b"\x05\x00")
    key = _der(0x30, _der_int(n) + _der_int(e))
    spki = _der(0x30, algorithm + _der(0x03, b"\x00" + key))
    text = base64.b64encode(spki).decode()
    lines = [text[i : i + 64] for i in range(0, len(text), 64)]
    return "\n".join([PEM_BEGIN, *lines, PEM_END]) + "\n"


def rsa_public_key_from_pem(pem: str) -> tuple[int, int]:
    """(n, e) of an RSA public key in PEM, either encoding OpenSSL writes: X.509
    SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`) or PKCS#1 RSAPublicKey (`BEGIN RSA PUBLIC
    KEY`, RFC 8017 A.1.1: the bare {n, e}); ValueError when it is neither."""
    text = pem.strip()
    forms = {PEM_BEGIN: (PEM_END, False), PKCS1_BEGIN: (PKCS1_END, True)}
    begin = next((b for b, (e, _) in forms.items() if text.startswith(b) and text.endswith(e)), "")
    if not begin:
        raise ValueError("not a PEM public key (BEGIN PUBLIC KEY or BEGIN RSA PUBLIC KEY)")
    end, pkcs1 = forms[begin]
    try:
        der = base64.b64decode("".join(text[len(begin) : -len(end)].split()), validate=True)
    except ValueError:
        raise ValueError("the PEM body is not base64") from None
    kind = "an RSA PKCS#1 public key" if pkcs1 else "an RSA SubjectPublicKeyInfo"

    def read(data: bytes, at: int, tag: int) -> tuple[bytes, int]:
        if at + 2 > len(data) or data[at] != tag:
            raise ValueError(f"not {kind}")
        size, at = data[at + 1], at + 2
        if size & 0x80:
            count = size & 0x7F
            size, at = int.from_bytes(data[at : at + count], "big"), at + count
        if at + size > len(data):
            raise ValueError(f"not {kind}")
        return data[at : at + size], at + size

    if pkcs1:
        key, _ = read(der, 0, 0x30)
    else:
        spki, _ = read(der, 0, 0x30)
        algorithm, at = read(spki, 0, 0x30)
        oid, _ = read(algorithm, 0, 0x06)
        if oid != RSA_ENCRYPTION_OID:
            raise ValueError("not an RSA public key")
        bits, _ = read(spki, at, 0x03)
        key, _ = read(bits[1:], 0, 0x30)
    n, at = read(key, 0, 0x02)
    e, _ = read(key, at, 0x02)
    return int.from_bytes(n, "big"), int.from_bytes(e, "big")
