"""Device profiles (the device "model") and device vendors of the catalog a subscription may
use (`/subscriptions/mine/deviceProfiles`, `/subscriptions/mine/deviceVendors`), and the rule
for changing a device's profile."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import ApiModel, ListEnvelope, QueryFilter

Connectivity = Literal["LORAWAN", "CELLULAR"]
IsmBandID = Literal[
    "eu868", "eu433", "cn779", "as923", "kr920", "us915", "au915", "cn470", "in865", "ru864",
    "ww2g4",
]  # fmt: skip
ISM_BAND_NAMES: dict[str, str] = {
    "eu868": "EU863-870 (EU868)",
    "eu433": "EU433",
    "cn779": "CN779-787 (CN779)",
    "as923": "AS923",
    "kr920": "KR920-923 (KR920)",
    "us915": "US902-915 (US915)",
    "au915": "AU915-928 (AU915)",
    "cn470": "CN470-510 (CN470)",
    "in865": "IN865-867 (IN865)",
    "ru864": "RU864-870 (RU864)",
    "ww2g4": "WW2400",
}
TypeMAC = Literal["LoRaMAC", "802.15.4", "WattecoMAC_3.1", "WattecoMAC_3.2"]
# LoRaWAN versions by macMinorVersion (macMajorVersion 0 is LoRaWAN 1.x).
LORAWAN_VERSIONS: dict[int, str] = {3: "1.0.1", 4: "1.0.2", 5: "1.0.3", 6: "1.0.4", 10: "1.1"}
VendorSort = Literal["BY_NAME", "BY_LAST_CREATED"]


class DeviceProfileVendor(ApiModel):
    ID: str
    commercialName: str | None = None
    commercialDescription: str | None = None


class IsmBand(ApiModel):
    ID: str
    name: str | None = None


class DeviceProfile(ApiModel):
    ID: str
    commercialName: str
    connectivity: Connectivity
    typeMAC: str | None = None
    macMajorVersion: int | None = None
    macMinorVersion: int | None = None
    vendor: DeviceProfileVendor
    defaultIsmBands: list[IsmBand] = Field(default_factory=list)
    motionModelIndicator: str | None = None

    @property
    def lorawan_version(self) -> str:
        """ "1.0.3", "1.1"...; '' when not LoRaWAN or unknown."""
        if self.macMinorVersion is None:
            return ""
        return LORAWAN_VERSIONS.get(self.macMinorVersion, f"1.x ({self.macMinorVersion})")

    @property
    def label(self) -> str:
        """What a picker shows before the ID: vendor and name, and the LoRaWAN version."""
        vendor = self.vendor.commercialName or self.vendor.ID
        name = self.commercialName
        if not name.casefold().startswith(vendor.casefold()):
            name = f"{vendor} {name}"
        if self.lorawan_version and "LoRaWAN" not in self.commercialName:
            name += f", LoRaWAN {self.lorawan_version}"
        return name


class DeviceProfilePage(ListEnvelope[DeviceProfile]):
    pass


class DeviceVendor(ApiModel):
    """A vendor as listed. The reference spells the commercial name `commecialName`; the
    sandbox sends both spellings and `commercial_name` reads whichever came."""

    ID: str
    logo: str | None = None
    commercialName: str | None = None
    commecialName: str | None = None
    commercialDescription: str | None = None

    @property
    def commercial_name(self) -> str:
        return self.commercialName or self.commecialName or self.ID


class DeviceVendorPage(ListEnvelope[DeviceVendor]):
    pass


class DeviceProfileFilter(QueryFilter):
    """Filters of the profile list; ID and ismBandID match any of their values."""

    typeMAC: str | None = None
    vendorID: str | None = None
    ismBandID: list[IsmBandID] = Field(default_factory=list)
    connectivity: Connectivity | None = None
    ID: list[str] = Field(default_factory=list)


class DeviceVendorFilter(QueryFilter):
    """Filters of the vendor list: vendors with at least one profile of that connectivity
    or ISM band (any of them)."""

    ID: list[str] = Field(default_factory=list)
    connectivity: Connectivity | None = None
    ismBandID: list[IsmBandID] = Field(default_factory=list)
    sort: VendorSort | None = None


def _family(minor: int | None) -> str:
    """LoRaWAN 1.0.x and 1.1 are not compatible (different keys and join procedure)."""
    return "" if minor is None else ("1.1" if minor >= 10 else "1.0")


def model_change_refusal(current: DeviceProfile | None, new: DeviceProfile) -> str:
    """Why a device on `current` cannot move to `new` ('' when it can): the same
    connectivity; for LoRaWAN the same MAC type and a compatible LoRaWAN version (1.0.x
    among themselves, 1.1 with 1.1). A device without a profile may take any of its
    connectivity."""
    if current is None or current.ID == new.ID:
        return ""
    if current.connectivity != new.connectivity:
        return f"{new.ID} is a {new.connectivity.lower()} model; the device is not"
    if current.connectivity != "LORAWAN":
        return ""
    if (current.typeMAC or "LoRaMAC") != (new.typeMAC or "LoRaMAC"):
        return f"{new.ID} uses the MAC layer {new.typeMAC}, the device {current.typeMAC}"
    if _family(current.macMinorVersion) != _family(new.macMinorVersion):
        return (
            f"{new.ID} implements LoRaWAN {new.lorawan_version}, not compatible with"
            f" the device's LoRaWAN {current.lorawan_version}"
        )
    return ""
