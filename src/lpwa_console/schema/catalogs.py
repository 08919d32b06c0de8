"""The operator's catalogs (Document 2 §2.2, §4.1, §7, §8): device and base-station profiles,
their vendors, RF regions, the LRR software versions of a base-station profile, the installed
catalog versions and the catalog file a new version comes in.

The device profiles are the rows the subscriber's profile picker reads
(`/subscriptions/mine/deviceProfiles`, schema/device_profiles.py): one catalog, two views.

The LoRaWAN rules of a device profile are written once here (`profile_rules`): the sandbox
refuses what breaks them and the console's profile editor applies them as the user types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, Self, TypeVar

from pydantic import AfterValidator, Field, field_validator, model_validator

from .common import ApiModel, ListEnvelope, QueryFilter, RequestModel, ResourceRequest
from .device_profiles import Connectivity, IsmBandID

CatalogSource = Literal["ALL", "CATALOG", "CUSTOM"]
ItemSource = Literal["CATALOG", "CUSTOM"]
CatalogKind = Literal["deviceProfiles", "baseStationProfiles", "rfRegions"]
CATALOG_KINDS: tuple[CatalogKind, ...] = ("deviceProfiles", "baseStationProfiles", "rfRegions")
SoftwareType = Literal["LRR_LINUX", "BASIC_STATION_LINUX", "LRR_FREERTOS"]
# Sectors, antennas and boards: the values a partner reads back (network-manager contract).
RfHardwareConfig = Literal["S1_A1_B1", "S1_A2_B1", "S1_A2_B2", "S1_A1_B4", "S3_A3_B3"]
RegionalParameterVersion = Literal["A", "B", "C", "D", "E"]
# Document 2 §2.2: the values named there; the others of the platform are not shown.
MtcLteCategory = Literal["CAT_M1", "CAT_NB1", "CAT_M2", "CAT_NB2"]
CompatibilityCriteria = Literal["FIRMWARE_VERSION", "FPGA_VERSION"]

CUSTOM_PREFIX = "CUSTOM/"
MAX_ID_LENGTH = 40  # with the prefix (§8)
# macMinorVersion -> LoRaWAN version (§2.2)
MAC_MINOR_VERSIONS: Mapping[int, str] = {
    0: "LoRaWAN 0.9",
    3: "LoRaWAN 1.0.0 or 1.0.1",
    4: "LoRaWAN 1.0.2",
    5: "LoRaWAN 1.0.3",
    6: "LoRaWAN 1.0.4",
    10: "LoRaWAN 1.1",
}
# macMinorVersion values that force some fields (§2.2), and those fields' values.
FORCING_VERSIONS = frozenset({6, 10})
FORCED_VALUES: Mapping[str, int] = {
    "allowedABPAutomaticReset": 0,
    "devNonceCounterBased": 1,
    "maxRedundancyForConfirmedUL": 0,
    "permanentlyListening": 0,
}
RELAY_FIELDS = ("defaultRelayActivation", "macNotifyNewEndDeviceReqExSupport")
TX_FIELDS = ("macMaxTxEIRP", "macMaxTxPower", "macMinTxEIRP", "macMinTxPower")
TX_RANGE = (0.0, 36.0)
DWELL_FIELDS = ("downlinkDwellTime", "uplinkDwellTime")
DWELL_BAND = "as923"
LORAWAN_FIELDS = (
    "typeMAC", "macMinorVersion", "regionalParameterVersion", "canOperateAsRelay",
    *RELAY_FIELDS, *TX_FIELDS, *DWELL_FIELDS, *FORCED_VALUES, "motionModelIndicator",
    "loraProfileIDs",
)  # fmt: skip
CELLULAR_FIELDS = ("mtcLteCategory",)
# The profile's parameters in the order a detail view shows them.
DETAIL_NAMES = (
    "typeMAC", "macMinorVersion", "regionalParameterVersion", *FORCED_VALUES,
    "canOperateAsRelay", *RELAY_FIELDS, *TX_FIELDS, *DWELL_FIELDS, "motionModelIndicator",
    "mtcLteCategory",
)  # fmt: skip

TxValue = Annotated[float, Field(ge=TX_RANGE[0], le=TX_RANGE[1])]
LanguageTag = Annotated[str, Field(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$", max_length=35)]


def custom_id(given: str) -> str:
    """The ID a created profile or RF region gets: `CUSTOM/` added when absent (§2.2)."""
    return given if given.startswith(CUSTOM_PREFIX) else CUSTOM_PREFIX + given


def id_problem(given: str) -> str:
    """Why this ID cannot be created ('' when it can): at most 40 characters with the prefix."""
    full = custom_id(given)
    if len(full) > MAX_ID_LENGTH:
        return (
            f"at most {MAX_ID_LENGTH} characters with the {CUSTOM_PREFIX} prefix"
            f" ({full} has {len(full)})"
        )
    return ""


def _checked_id(value: str) -> str:
    problem = id_problem(value)
    if problem:
        raise ValueError(problem)
    return value


# A new entry's ID (device profile, base station profile, RF region): no blank, and at most
# 40 characters once `CUSTOM/` is added (`id_problem`).
EntryID = Annotated[str, Field(min_length=1, pattern=r"^\S+$"), AfterValidator(_checked_id)]
Entry = TypeVar("Entry")


class CatalogPage(ListEnvelope[Entry], Generic[Entry]):
    """A page of a catalog's entries, with the installed catalog's version and the language
    of their texts."""

    catalogVersion: str | None = None
    languageTag: str | None = None


# --- the LoRaWAN rules of a device profile --------------------------------------------------


@dataclass(frozen=True)
class FieldRule:
    """What the rules say of one field for the values of the others."""

    applicable: bool = True
    forced: int | None = None  # the value it must take (None: free)
    reason: str = ""  # why it is forced or not applicable


def profile_rules(values: Mapping[str, Any]) -> dict[str, FieldRule]:
    """The rules the other values put on each field (only the constrained fields appear):
    forced by macMinorVersion 6 and 10, relay fields only for a relay, dwell times only
    with the AS923 band, LoRaWAN fields not for a cellular profile and the reverse."""
    rules: dict[str, FieldRule] = {}
    cellular = values.get("connectivity") == "CELLULAR"
    if cellular:
        why = "a cellular profile has no LoRaWAN parameters"
        rules.update({name: FieldRule(False, reason=why) for name in LORAWAN_FIELDS})
        return rules
    rules.update(
        {
            n: FieldRule(False, reason="only cellular profiles have an LTE-M category")
            for n in CELLULAR_FIELDS
        }
    )
    minor = values.get("macMinorVersion")
    if minor in FORCING_VERSIONS:
        version = MAC_MINOR_VERSIONS[int(minor)]
        for name, value in FORCED_VALUES.items():
            rules[name] = FieldRule(True, value, f"forced to {value} by {version}")
    if values.get("canOperateAsRelay") != 1:
        for name in RELAY_FIELDS:
            rules[name] = FieldRule(False, reason="applies only when the device can act as a relay")
    bands = {str(b).lower() for b in values.get("defaultIsmBands") or ()}
    if DWELL_BAND not in bands:
        for name in DWELL_FIELDS:
            rules[name] = FieldRule(False, reason="applies only to the AS923 ISM band")
    return rules


def rule_problems(values: Mapping[str, Any]) -> list[str]:
    """What breaks the rules in these values, one message per field ("name: why")."""
    problems: list[str] = []
    for name, rule in profile_rules(values).items():
        value = values.get(name)
        if value is None or value == []:
            continue
        if not rule.applicable:
            problems.append(f"{name}: {rule.reason}")
        elif rule.forced is not None and value != rule.forced:
            problems.append(f"{name}: {rule.reason}, not {value}")
    return problems


def apply_forced(values: dict[str, Any]) -> dict[str, Any]:
    """These values with the forced ones set and the not applicable ones removed."""
    out = dict(values)
    for name, rule in profile_rules(values).items():
        if not rule.applicable:
            out.pop(name, None)
        elif rule.forced is not None:
            out[name] = rule.forced
    return out


def _ism_ids(values: Any) -> list[str]:
    out = []
    for item in values or ():
        out.append(str(item.get("ID") if isinstance(item, dict) else getattr(item, "ID", item)))
    return out


# --- wire models: vendors -------------------------------------------------------------------


class CatalogVendorRef(ApiModel):
    """The vendor inside a profile. `name` is deprecated (and optional)."""

    ID: str
    name: str | None = None
    commercialName: str | None = None
    commercialDescription: str | None = None
    loraVendorID: str | None = None


class CatalogVendor(ApiModel):
    ID: str
    commercialName: str | None = None
    commercialDescription: str | None = None
    name: str | None = None  # deprecated: commercialName
    loraVendorID: str | None = None  # device vendors only
    source: ItemSource | None = None
    languageTag: str | None = None  # the language of the texts
    profileCount: int | None = None
    href: str | None = None


class CatalogVendorPage(ListEnvelope[CatalogVendor]):
    pass


class VendorCreate(ResourceRequest):
    ID: str = Field(min_length=1, max_length=MAX_ID_LENGTH, pattern=r"^[^\s/]+$")
    commercialName: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    loraVendorID: str | None = Field(None, max_length=16)
    read_only_fields = frozenset({"source", "languageTag", "profileCount", "href", "name"})


class VendorUpdate(ResourceRequest):
    commercialName: str | None = Field(None, min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    loraVendorID: str | None = Field(None, max_length=16)
    read_only_fields = frozenset({"source", "languageTag", "profileCount", "href", "name"})
    fixed_fields = frozenset({"ID"})


class LocalTexts(ApiModel):
    """The texts of a vendor, profile or RF region in one language."""

    languageTag: str
    commercialName: str | None = None
    commercialDescription: str | None = None


class LocalTextsUpdate(RequestModel):
    commercialName: str | None = Field(None, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    read_only_fields = frozenset({"languageTag"})


# --- device profiles ------------------------------------------------------------------------


class IsmBandRef(RequestModel):
    ID: IsmBandID
    read_only_fields = frozenset({"name"})


class VendorID(RequestModel):
    ID: str = Field(min_length=1)
    read_only_fields = frozenset(
        {"name", "commercialName", "commercialDescription", "loraVendorID"}
    )


class CatalogIsmBand(ApiModel):
    ID: str
    name: str | None = None


class _LorawanFields(ApiModel):
    typeMAC: str | None = None
    macMajorVersion: int | None = None
    macMinorVersion: int | None = None
    regionalParameterVersion: str | None = None
    loraProfileIDs: list[str] = Field(default_factory=list)
    canOperateAsRelay: int | None = None
    defaultRelayActivation: int | None = None
    macNotifyNewEndDeviceReqExSupport: int | None = None
    macMaxTxEIRP: list[float] | None = None
    macMaxTxPower: list[float] | None = None
    macMinTxEIRP: list[float] | None = None
    macMinTxPower: list[float] | None = None
    downlinkDwellTime: int | None = None
    uplinkDwellTime: int | None = None
    allowedABPAutomaticReset: int | None = None
    devNonceCounterBased: int | None = None
    maxRedundancyForConfirmedUL: int | None = None
    permanentlyListening: int | None = None
    motionModelIndicator: str | None = None
    mtcLteCategory: str | None = None


class OperatorDeviceProfile(_LorawanFields):
    """A device profile in the operator's view (list item and single)."""

    ID: str
    commercialName: str
    commercialDescription: str | None = None
    connectivity: Connectivity
    source: ItemSource = "CATALOG"
    vendor: CatalogVendorRef
    defaultIsmBands: list[CatalogIsmBand] = Field(default_factory=list)
    catalogVersion: str | None = None
    languageTag: str | None = None
    href: str | None = None


class OperatorDeviceProfilePage(CatalogPage[OperatorDeviceProfile]):
    pass


class _ProfileWritable(ResourceRequest):
    """The fields an operator writes on a device profile, with the LoRaWAN rules."""

    commercialDescription: str | None = Field(None, max_length=500)
    vendor: VendorID | None = None
    defaultIsmBands: list[IsmBandRef] | None = None
    typeMAC: str | None = Field(None, max_length=40)
    macMinorVersion: int | None = None
    regionalParameterVersion: RegionalParameterVersion | None = None
    loraProfileIDs: list[str] | None = None
    canOperateAsRelay: int | None = Field(None, ge=0, le=1)
    defaultRelayActivation: int | None = Field(None, ge=0, le=1)
    macNotifyNewEndDeviceReqExSupport: int | None = Field(None, ge=0, le=1)
    macMaxTxEIRP: list[TxValue] | None = None
    macMaxTxPower: list[TxValue] | None = None
    macMinTxEIRP: list[TxValue] | None = None
    macMinTxPower: list[TxValue] | None = None
    downlinkDwellTime: int | None = Field(None, ge=0, le=1)
    uplinkDwellTime: int | None = Field(None, ge=0, le=1)
    allowedABPAutomaticReset: int | None = Field(None, ge=0, le=1)
    devNonceCounterBased: int | None = Field(None, ge=0, le=1)
    maxRedundancyForConfirmedUL: int | None = Field(None, ge=0, le=15)
    permanentlyListening: int | None = Field(None, ge=0, le=1)
    motionModelIndicator: str | None = Field(None, max_length=40)
    mtcLteCategory: MtcLteCategory | None = None

    read_only_fields = frozenset(
        {"source", "catalogVersion", "languageTag", "href", "macMajorVersion"}
    )

    @field_validator("macMinorVersion")
    @classmethod
    def _known_version(cls, value: int | None) -> int | None:
        if value is not None and value not in MAC_MINOR_VERSIONS:
            known = ", ".join(str(v) for v in MAC_MINOR_VERSIONS)
            raise ValueError(f"one of {known}")
        return value

    def rule_values(self) -> dict[str, Any]:
        """The values the LoRaWAN rules read (band IDs for the bands)."""
        data = self.model_dump(exclude_none=True)
        data["defaultIsmBands"] = _ism_ids(data.get("defaultIsmBands"))
        return data


class DeviceProfileCreate(_ProfileWritable):
    ID: EntryID
    commercialName: str = Field(min_length=1, max_length=100)
    connectivity: Connectivity = "LORAWAN"

    @model_validator(mode="after")
    def _rules(self) -> Self:
        problems = rule_problems(self.rule_values())
        if problems:
            raise ValueError("; ".join(problems))
        return self


class DeviceProfileUpdate(_ProfileWritable):
    """A PUT: the rules are checked on the profile as it will be (the sandbox merges it with
    what it holds), not on this body alone."""

    commercialName: str | None = Field(None, min_length=1, max_length=100)
    fixed_fields = frozenset({"ID", "connectivity"})


class DeviceProfileFilterOp(QueryFilter):
    """The operator's profile list filters (§4.1)."""

    source: CatalogSource | None = None
    loraProfileID: str | None = None
    language_tag: str | None = Field(None, alias="language-tag")
    vendorID: str | None = None
    connectivity: Connectivity | None = None

    def to_params(self) -> list[tuple[str, str]]:
        data = self.model_dump(exclude_none=True, by_alias=True)
        return [(k, str(v)) for k, v in data.items() if v != ""]


# --- base-station profiles and LRR software versions ----------------------------------------


class Compatibility(RequestModel):
    criteria: CompatibilityCriteria
    value: str = Field(min_length=1, max_length=64)


class CompatibilityView(ApiModel):
    criteria: str
    value: str


class LrrSwVersion(ApiModel):
    ID: str
    compatibilities: list[CompatibilityView] = Field(default_factory=list)
    href: str | None = None


class LrrSwVersionUpdate(ResourceRequest):
    compatibilities: list[Compatibility] = Field(default_factory=list)
    read_only_fields = frozenset({"href"})
    fixed_fields = frozenset({"ID"})


class OperatorBaseStationProfile(ApiModel):
    ID: str
    commercialName: str
    commercialDescription: str | None = None
    softwareType: SoftwareType | None = None
    rfHardwareConfig: str | None = None  # read liberally: a newer platform's value
    source: ItemSource = "CATALOG"
    vendor: CatalogVendorRef
    lrrSwVersions: list[LrrSwVersion] = Field(default_factory=list)
    catalogVersion: str | None = None
    languageTag: str | None = None
    href: str | None = None


class OperatorBaseStationProfilePage(CatalogPage[OperatorBaseStationProfile]):
    pass


class BaseStationProfileCreate(ResourceRequest):
    ID: EntryID
    commercialName: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    vendor: VendorID
    softwareType: SoftwareType
    # Required: a partner's reading of the profile always has it (the 7.3 network-manager
    # contract's BsProfiles brief requires it).
    rfHardwareConfig: RfHardwareConfig
    read_only_fields = frozenset(
        {"source", "catalogVersion", "languageTag", "href", "lrrSwVersions"}
    )
    # Deprecated and ignored (§2.2): accepted, never stored.
    not_modelled_fields = frozenset({"disks", "lrcs", "powerConfig"})


class BaseStationProfileUpdate(ResourceRequest):
    commercialName: str | None = Field(None, min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    vendor: VendorID | None = None
    softwareType: SoftwareType | None = None
    rfHardwareConfig: RfHardwareConfig | None = None
    read_only_fields = frozenset(
        {"source", "catalogVersion", "languageTag", "href", "lrrSwVersions"}
    )
    not_modelled_fields = frozenset({"disks", "lrcs", "powerConfig"})
    fixed_fields = frozenset({"ID"})


# --- RF regions ----------------------------------------------------------------------------


class RfRegion(ApiModel):
    ID: str
    name: str
    commercialDescription: str | None = None
    ismBand: str | None = None
    source: ItemSource = "CATALOG"
    logo: str | None = None  # the path of its logo, when it has one
    catalogVersion: str | None = None
    languageTag: str | None = None
    href: str | None = None


class RfRegionPage(CatalogPage[RfRegion]):
    pass


class RfRegionCreate(ResourceRequest):
    ID: EntryID
    name: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    ismBand: IsmBandID
    read_only_fields = frozenset({"source", "logo", "catalogVersion", "languageTag", "href"})


class RfRegionUpdate(ResourceRequest):
    name: str | None = Field(None, min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    read_only_fields = frozenset({"source", "logo", "catalogVersion", "languageTag", "href"})
    fixed_fields = frozenset({"ID", "ismBand"})


class RfRegionLocal(ApiModel):
    languageTag: str
    name: str | None = None
    commercialDescription: str | None = None


class RfRegionLocalUpdate(RequestModel):
    name: str | None = Field(None, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    read_only_fields = frozenset({"languageTag"})


LOGO_TYPES: Mapping[str, bytes] = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
MAX_LOGO_BYTES = 256 * 1024


def logo_type(data: bytes) -> str:
    """The image type of these bytes by their signature ('' when neither PNG nor JPEG)."""
    return next((kind for kind, magic in LOGO_TYPES.items() if data.startswith(magic)), "")


# --- operator and catalog versions -----------------------------------------------------------


class Operator(ApiModel):
    ID: str
    name: str | None = None
    catalogUpdateMethod: str | None = None
    defaultLanguage: str | None = None
    languages: list[str] = Field(default_factory=list)


class CatalogVersion(ApiModel):
    """A catalog's installed version (GET .../catalog) or the newest one the repository offers
    (GET .../catalog/selfUpdate), and what an import did."""

    catalog: CatalogKind
    version: str | None = None
    installedVersion: str | None = None
    installedAt: int | None = None
    itemCount: int | None = None  # the items of that version (offered) or installed
    imported: int | None = None  # the items the import wrote (POST only)
    added: list[str] = Field(default_factory=list)  # IDs new with the offered version


# --- the catalog file (docs/catalogs.md) ----------------------------------------------------

CATALOG_FORMAT = "lpwa-catalog/1"
MAX_CATALOG_BYTES = 32 * 1024 * 1024


class FileTexts(RequestModel):
    commercialName: str | None = Field(None, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    name: str | None = Field(None, max_length=100)  # an RF region's


class FileVendor(RequestModel):
    ID: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    commercialName: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    loraVendorID: str | None = None
    locals: dict[str, FileTexts] = Field(default_factory=dict)


class FileDeviceProfile(RequestModel, _LorawanFields):
    model_config = RequestModel.model_config
    ID: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    commercialName: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    connectivity: Connectivity = "LORAWAN"
    vendorID: str
    defaultIsmBands: list[IsmBandID] = Field(default_factory=list)
    locals: dict[str, FileTexts] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _rules(self) -> Self:
        data = self.model_dump(exclude_none=True, exclude={"locals"})
        problems = rule_problems(data)
        if self.macMinorVersion is not None and self.macMinorVersion not in MAC_MINOR_VERSIONS:
            problems.append(f"macMinorVersion: {self.macMinorVersion} is not a known version")
        for name in TX_FIELDS:
            for v in getattr(self, name) or ():
                if not TX_RANGE[0] <= v <= TX_RANGE[1]:
                    problems.append(f"{name}: {v} is outside [0, 36]")
        if problems:
            raise ValueError("; ".join(problems))
        return self


class FileBaseStationProfile(RequestModel):
    ID: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    commercialName: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    vendorID: str
    softwareType: SoftwareType
    rfHardwareConfig: RfHardwareConfig  # as BaseStationProfileCreate
    lrrSwVersions: list[FileLrrVersion] = Field(default_factory=list)
    locals: dict[str, FileTexts] = Field(default_factory=dict)


class FileLrrVersion(RequestModel):
    ID: str = Field(min_length=1, max_length=40)
    compatibilities: list[Compatibility] = Field(default_factory=list)


class FileRfRegion(RequestModel):
    ID: str = Field(min_length=1, max_length=MAX_ID_LENGTH)
    name: str = Field(min_length=1, max_length=100)
    commercialDescription: str | None = Field(None, max_length=500)
    ismBand: IsmBandID
    locals: dict[str, FileTexts] = Field(default_factory=dict)


class CatalogFile(RequestModel):
    """A catalog version as a file: what `POST .../catalog` takes (JSON, or the same JSON
    gzip-compressed). Items are upserted with source CATALOG; see docs/catalogs.md."""

    format: Literal["lpwa-catalog/1"]
    catalog: CatalogKind
    version: str = Field(min_length=1, max_length=40)
    languages: list[str] = Field(default_factory=list)
    vendors: list[FileVendor] = Field(default_factory=list)
    profiles: list[FileDeviceProfile] = Field(default_factory=list)
    baseStationProfiles: list[FileBaseStationProfile] = Field(default_factory=list)
    rfRegions: list[FileRfRegion] = Field(default_factory=list)

    @property
    def item_count(self) -> int:
        return len(self.profiles) + len(self.baseStationProfiles) + len(self.rfRegions)


FileBaseStationProfile.model_rebuild()


def version_key(version: str) -> tuple[tuple[int, str], ...]:
    """Orders versions "2026.9" < "2026.10" (numbers as numbers)."""
    parts = version.replace("-", ".").split(".")
    return tuple((int(p), "") if p.isdigit() else (-1, p) for p in parts)
