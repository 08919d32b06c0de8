"""The operator's catalogs in the console (Document 2 §4.1): the lists of device and
base-station profiles, vendors and RF regions in a chosen language; the texts of a vendor or
RF region in the default language and another one, side by side; the device profile editor's
rules (`ProfileForm`: the values forced by the LoRaWAN version, the fields that do not apply,
each with the reason); catalog versions (installed, offered) with `selfUpdate`; the import of
a catalog file with its progress; an RF region's logo.

No widgets here (ui/panes/catalogs.py shows all this)."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient, NotFoundError
from ..api.resources.catalogs import ProgressReader, item_ref
from ..schema.catalogs import (
    CATALOG_KINDS,
    FORCED_VALUES,
    MAX_CATALOG_BYTES,
    MAX_LOGO_BYTES,
    TX_FIELDS,
    CatalogFile,
    CatalogKind,
    CatalogVersion,
    DeviceProfileCreate,
    DeviceProfileUpdate,
    FieldRule,
    LocalTextsUpdate,
    OperatorDeviceProfile,
    RfRegionLocalUpdate,
    logo_type,
    profile_rules,
    version_key,
)
from ..schema.common import ListEnvelope
from ..schema.labels import FieldWords, field_words
from .client_view_model import ClientViewModel
from .columns import name_and_id
from .errors import UserError
from .forms import FormField, Raw, error_text, form_data, form_fields, raw_of
from .paged_table import Column, PagedTableModel
from .tasks import TaskRunner, in_thread

LANGUAGE_NAMES = {"en": "English", "fr": "French", "de": "German", "es": "Spanish"}
CATALOG_WORDS: dict[str, str] = {
    "deviceProfiles": "Device profiles",
    "baseStationProfiles": "Base station profiles",
    "rfRegions": "RF regions",
}
# The same in a sentence: "the RF regions catalog"
CATALOG_NOUNS: dict[str, str] = {
    "deviceProfiles": "device profiles",
    "baseStationProfiles": "base station profiles",
    "rfRegions": "RF regions",
}
SOURCE_WORDS = {"ALL": "All", "CATALOG": "From the catalog", "CUSTOM": "Created by the operator"}
SOURCE_SHORT = {"CATALOG": "Catalog", "CUSTOM": "Custom"}
# The lists of the pane: key -> (title, catalog whose version they show or None)
TABLES: dict[str, tuple[str, str | None]] = {
    "deviceProfiles": ("Device profiles", "deviceProfiles"),
    "baseStationProfiles": ("Base station profiles", "baseStationProfiles"),
    "deviceVendors": ("Device vendors", None),
    "baseStationVendors": ("Base station vendors", None),
    "rfRegions": ("RF regions", "rfRegions"),
}
TEXT_KINDS = ("deviceVendors", "baseStationVendors", "rfRegions")  # texts editable per language
LOGO_SUFFIXES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}


def language_name(tag: str) -> str:
    return LANGUAGE_NAMES.get(tag, tag)


def _source(item: Any) -> str:
    return SOURCE_SHORT.get(getattr(item, "source", ""), "")


def _commercial_name(item: Any) -> str:
    return item.commercialName or ""


def _vendor(item: Any) -> str:
    vendor = getattr(item, "vendor", None)
    return (vendor.commercialName or vendor.ID) if vendor is not None else ""


def _versions(item: Any) -> str:
    return ", ".join(v.ID for v in getattr(item, "lrrSwVersions", []) or [])


def _bands(item: Any) -> str:
    return ", ".join(b.ID for b in getattr(item, "defaultIsmBands", []) or [])


def _lorawan(item: Any) -> str:
    minor = getattr(item, "macMinorVersion", None)
    if getattr(item, "connectivity", "") == "CELLULAR":
        return getattr(item, "mtcLteCategory", None) or "Cellular"
    words = field_words("macMinorVersion").choices
    return words.get(str(minor), "") if minor is not None else ""


# Where a catalog entry comes from (the platform, a file), in every catalog's list.
SOURCE: Column[Any] = Column("Source", _source, width=70)


def columns(kind: str) -> list[Column[Any]]:
    if kind == "deviceProfiles":
        return [
            *name_and_id(240, 230, name=_commercial_name),
            Column("Vendor", _vendor, width=130),
            Column("LoRaWAN", _lorawan, width=120),
            Column("Bands", _bands, width=110),
            SOURCE,
        ]
    if kind == "baseStationProfiles":
        return [
            *name_and_id(220, 200, name=_commercial_name),
            Column("Vendor", _vendor, width=110),
            Column(
                "Software",
                lambda p: field_words("softwareType").choice_words(p.softwareType or ""),
                width=170,
            ),
            Column("LRR versions", _versions, width=120),
            SOURCE,
        ]
    if kind == "rfRegions":
        return [
            *name_and_id(200, 180),
            Column("ISM band", lambda r: r.ismBand or "", width=90),
            Column("Description", lambda r: r.commercialDescription or "", width=220),
            Column("Logo", lambda r: "Yes" if r.logo else "", width=50),
            SOURCE,
        ]
    return [
        *name_and_id(180, 130, name=lambda v: v.commercialName or v.ID),
        Column("Description", lambda v: v.commercialDescription or "", width=260),
        Column("LoRa Alliance ID", lambda v: v.loraVendorID or "", width=110),
        Column(
            "Profiles", lambda v: v.profileCount if v.profileCount is not None else "", width=60
        ),
        SOURCE,
    ]


# --- the device profile editor's rules ------------------------------------------------------


@dataclass(frozen=True)
class FieldState:
    """How the editor shows one field for the values typed so far."""

    enabled: bool = True
    forced: str | None = None  # the text the field must hold (None: free)
    reason: str = ""  # why it is locked or forced, in words


def _tx_field(name: str) -> FormField:
    return FormField(name, name, "list", False, words=field_words(name))


class ProfileForm:
    """The device profile editor without widgets: its fields (from the request model, the
    TX power lists as comma-separated numbers), the state the LoRaWAN rules give each field
    for what is typed, and the request the form makes."""

    def __init__(self, creating: bool) -> None:
        self.creating = creating
        self.model: type[BaseModel] = DeviceProfileCreate if creating else DeviceProfileUpdate
        fields, _skipped = form_fields(self.model)
        by_name = {f.name: f for f in fields}
        for name in TX_FIELDS:
            by_name[name] = _tx_field(name)
        # a list of band references: typed as "eu868, as923"
        words = field_words("defaultIsmBands")
        by_name["defaultIsmBands"] = FormField(
            "defaultIsmBands", "defaultIsmBands", "refs", False, key="ID", words=words
        )
        order = [
            "ID", "commercialName", "commercialDescription", "connectivity", "vendor",
            "defaultIsmBands", "loraProfileIDs", "typeMAC", "macMinorVersion",
            "regionalParameterVersion", *FORCED_VALUES, "canOperateAsRelay",
            "defaultRelayActivation", "macNotifyNewEndDeviceReqExSupport", *TX_FIELDS,
            "uplinkDwellTime", "downlinkDwellTime", "motionModelIndicator", "mtcLteCategory",
        ]  # fmt: skip
        self.fields = [by_name[n] for n in order if n in by_name]

    def field(self, name: str) -> FormField:
        return next(f for f in self.fields if f.name == name)

    @staticmethod
    def rule_values(raws: dict[str, Raw], fixed: dict[str, Any] | None = None) -> dict[str, Any]:
        """The values the rules read from what the form holds."""

        def number(name: str) -> int | None:
            text = str(raws.get(name, "") or "").strip()
            return int(text) if text.lstrip("-").isdigit() else None

        values: dict[str, Any] = {
            "connectivity": str(raws.get("connectivity", "") or "") or "LORAWAN",
            "macMinorVersion": number("macMinorVersion"),
            "canOperateAsRelay": number("canOperateAsRelay"),
            "defaultIsmBands": [
                b.strip().lower() for b in str(raws.get("defaultIsmBands", "") or "").split(",")
                if b.strip()
            ],
        }  # fmt: skip
        values.update(fixed or {})
        return values

    def states(
        self, raws: dict[str, Raw], fixed: dict[str, Any] | None = None
    ) -> dict[str, FieldState]:
        """The state of each field the rules constrain (the others are free)."""
        rules: dict[str, FieldRule] = profile_rules(self.rule_values(raws, fixed))
        out: dict[str, FieldState] = {}
        for name, rule in rules.items():
            if not rule.applicable:
                out[name] = FieldState(False, None, f"Not used: {rule.reason}")
            elif rule.forced is not None:
                out[name] = FieldState(False, str(rule.forced), f"Locked: {rule.reason}")
        if not self.creating:
            for name in ("ID", "connectivity"):
                out[name] = FieldState(False, None, "Locked: set when the profile was created")
        return out

    def apply(self, raws: dict[str, Raw], fixed: dict[str, Any] | None = None) -> dict[str, Raw]:
        """What the form holds with the forced values set and the unused fields emptied."""
        out = dict(raws)
        for name, state in self.states(raws, fixed).items():
            if name in ("ID", "connectivity"):
                continue
            if state.forced is not None:
                out[name] = state.forced
            elif not state.enabled:
                out[name] = ""
        return out

    def request(
        self, raws: dict[str, Raw], fixed: dict[str, Any] | None = None
    ) -> tuple[BaseModel | None, dict[str, str]]:
        """The request the form makes, or the errors by field name (“” for the whole)."""
        held = self.apply(raws, fixed)
        fields = [f for f in self.fields if self.creating or f.name not in ("ID", "connectivity")]
        data = form_data(fields, held)
        try:
            return self.model.model_validate(data), {}
        except ValidationError as exc:
            errors: dict[str, str] = {}
            for error in exc.errors():
                loc = [str(p) for p in error["loc"]]
                name = loc[0] if loc else ""
                words: FieldWords | None = field_words(name) if name else None
                text = error_text(error, words)
                if not name:  # the rules, said "field: why; field: why"
                    for part in text.split("; "):
                        head, _sep, tail = part.partition(": ")
                        errors[head if tail else ""] = tail or part
                else:
                    errors.setdefault(name, text)
            return None, errors

    def raws_of(self, profile: OperatorDeviceProfile) -> dict[str, Raw]:
        """The form filled from a profile as read."""
        out: dict[str, Raw] = {}
        for spec in self.fields:
            if spec.name in TX_FIELDS:
                values = getattr(profile, spec.name, None) or []
                out[spec.name] = ", ".join(f"{v:g}" for v in values)
            elif spec.name == "defaultIsmBands":
                out[spec.name] = ", ".join(b.ID for b in profile.defaultIsmBands)
            elif spec.name == "vendor":
                out[spec.name] = profile.vendor.ID if profile.vendor else ""
            else:
                out[spec.name] = raw_of(spec, profile)
        return out


# --- catalog versions -----------------------------------------------------------------------


def compare_versions(installed: str | None, offered: str | None) -> str:
    """ "newer", "same", "older" (offered against installed) or "none" (nothing offered)."""
    if not offered:
        return "none"
    if not installed:
        return "newer"
    a, b = version_key(offered), version_key(installed)
    return "same" if a == b else ("newer" if a > b else "older")


def read_catalog_file(
    data: bytes, progress: Callable[[int, int], None] | None = None
) -> CatalogFile:
    """The catalog file in these bytes, checked as the platform will (UserError when it is
    not one, naming the first wrong item)."""
    if len(data) > MAX_CATALOG_BYTES:
        raise UserError(f"The file is over {MAX_CATALOG_BYTES // (1024 * 1024)} MB")
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise UserError(f"The file is not a readable gzip file ({exc})") from None
    try:
        raw = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UserError(f"The file is not a JSON catalog file ({exc})") from None
    try:
        return CatalogFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise UserError(f"The catalog file is not valid: {where}: {error_text(first)}") from None


# --- the view-model -------------------------------------------------------------------------


class CatalogsViewModel(ClientViewModel):
    error = Signal(str)
    client_changed = Signal(bool)
    languages_changed = Signal()
    language_changed = Signal(str)
    versions_changed = Signal()
    # kind, item ID, default-language texts (name, description), chosen-language texts
    texts_loaded = Signal(str, str, object, object)
    texts_saved = Signal(str, str)  # kind, item ID
    texts_failed = Signal(str)
    profile_saved = Signal(object)  # the profile as the server answered
    profile_failed = Signal(str)
    import_progress = Signal(int, str)  # percent, what is under way
    import_done = Signal(object)  # CatalogVersion
    import_failed = Signal(str)
    import_needs_force = Signal(str, str)  # catalog kind, version installed already
    import_needs_older = Signal(str, str, str)  # catalog kind, version installed, file's older one
    update_done = Signal(object)  # CatalogVersion
    update_failed = Signal(str)
    logo_loaded = Signal(str, bytes)  # RF region ID, image ('' bytes: none)
    logo_failed = Signal(str)

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(runner, client, parent)
        self.languages: list[str] = ["en"]
        self.default_language = "en"
        self.language = ""  # '' until the operator says its default
        self.source = "ALL"
        self.installed: dict[str, CatalogVersion] = {}
        self.offered: dict[str, CatalogVersion] = {}
        self.models: dict[str, PagedTableModel[Any]] = {
            kind: PagedTableModel(columns(kind), parent=self) for kind in TABLES
        }
        for model in self.models.values():
            model.error.connect(self.error)
        if client is not None:
            self.set_client(client)

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client
        self.installed, self.offered = {}, {}
        self.client_changed.emit(client is not None)
        if client is None:
            for model in self.models.values():
                model.clear()
            return

        def known(operator: Any) -> None:
            self.languages = list(operator.languages or ["en"])
            self.default_language = operator.defaultLanguage or self.languages[0]
            if self.language not in self.languages:
                self.language = self.default_language
            self.languages_changed.emit()
            self.reload()

        self.runner.run("Read the operator", client.catalogs.operator(), on_done=known,
                        on_error=lambda _e, m: self.error.emit(m))  # fmt: skip
        self.read_versions()

    # --- lists ----------------------------------------------------------------------------

    def set_language(self, language: str) -> None:
        if language == self.language:
            return
        self.language = language
        self.language_changed.emit(language)
        self.reload()

    def set_source(self, source: str) -> None:
        if source != self.source:
            self.source = source
            self.reload(("deviceProfiles", "baseStationProfiles", "rfRegions"))

    def reload(self, kinds: tuple[str, ...] | None = None) -> None:
        client = self.client
        if client is None:
            return
        for kind in kinds or tuple(TABLES):
            self.models[kind].set_fetcher(self._fetcher(client, kind))

    def _fetcher(self, client: LpwaClient, kind: str) -> Any:
        language = self.language or None
        source = None if self.source == "ALL" else self.source
        api = client.catalogs
        title = TABLES[kind][0]

        async def fetch(page: int, size: int, _s: str | None, _d: bool) -> ListEnvelope[Any]:
            call: Any
            if kind == "deviceProfiles":
                call = api.device_profiles(page, size, source=source, language=language)  # type: ignore[arg-type]
            elif kind == "baseStationProfiles":
                call = api.station_profiles(page, size, source=source, language=language)  # type: ignore[arg-type]
            elif kind == "rfRegions":
                call = api.rf_regions(page, size, source=source, language=language)  # type: ignore[arg-type]
            else:
                call = api.vendors(kind, page, size, language=language)  # type: ignore[arg-type]
            return await self.runner.track(f"{title} page {page}", call)

        return fetch

    # --- texts per language -----------------------------------------------------------------

    def load_texts(self, kind: str, item_id: str, language: str) -> None:
        """The texts of a vendor or RF region in the default language and in `language`
        (`texts_loaded`); the second is (None, None) where it has none there."""
        client = self.client
        if client is None or kind not in TEXT_KINDS:
            return
        api, ref, default = client.catalogs, item_ref(item_id), self.default_language

        async def read() -> tuple[Any, Any]:
            if kind == "rfRegions":
                base = await api.rf_region(ref, language=default)
                first: tuple[str | None, str | None] = (base.name, base.commercialDescription)
            else:
                vendor = await api.vendor(kind, ref, language=default)  # type: ignore[arg-type]
                first = (vendor.commercialName, vendor.commercialDescription)
            if language == default:
                return first, first
            try:
                if kind == "rfRegions":
                    local = await api.rf_region_local(ref, language)
                    return first, (local.name, local.commercialDescription)
                texts = await api.vendor_local(kind, ref, language)  # type: ignore[arg-type]
                return first, (texts.commercialName, texts.commercialDescription)
            except NotFoundError:
                return first, (None, None)

        self.runner.run(
            f"Texts of {item_id} ({language_name(language)})", read(),
            on_done=lambda pair: self.texts_loaded.emit(kind, item_id, pair[0], pair[1]),
            on_error=lambda _e, m: self.texts_failed.emit(m),
        )  # fmt: skip

    def save_texts(
        self, kind: str, item_id: str, language: str, name: str, description: str
    ) -> None:
        client = self.client
        if client is None:
            return
        api, ref = client.catalogs, item_ref(item_id)
        call: Any
        if kind == "rfRegions":
            body = RfRegionLocalUpdate(name=name or None, commercialDescription=description or None)
            call = api.put_rf_region_local(ref, language, body)
        else:
            texts = LocalTextsUpdate(
                commercialName=name or None, commercialDescription=description or None
            )
            call = api.put_vendor_local(kind, ref, language, texts)  # type: ignore[arg-type]

        def done(_answer: Any) -> None:
            self.texts_saved.emit(kind, item_id)
            self.reload((kind,))

        self.runner.run(f"Save the {language_name(language)} texts of {item_id}", call,
                        on_done=done, on_error=lambda _e, m: self.texts_failed.emit(m))  # fmt: skip

    # --- device profiles --------------------------------------------------------------------

    def save_profile(self, request: BaseModel, existing_id: str | None = None) -> None:
        client = self.client
        if client is None:
            return
        api = client.catalogs
        call: Any
        if existing_id is None:
            assert isinstance(request, DeviceProfileCreate)
            call = api.create_device_profile(request)
        else:
            assert isinstance(request, DeviceProfileUpdate)
            call = api.update_device_profile(item_ref(existing_id), request)

        def done(profile: Any) -> None:
            self.profile_saved.emit(profile)
            self.reload(("deviceProfiles", "deviceVendors"))

        self.runner.run("Save the device profile", call, on_done=done,
                        on_error=lambda _e, m: self.profile_failed.emit(m))  # fmt: skip

    # --- catalog versions, selfUpdate, import ----------------------------------------------------

    def read_versions(self) -> None:
        """The installed and offered version of each catalog (`versions_changed`)."""
        client = self.client
        if client is None:
            return

        async def read() -> None:
            for kind in CATALOG_KINDS:
                offered = await client.catalogs.offered(kind)
                self.offered[kind] = offered
                self.installed[kind] = CatalogVersion(
                    catalog=kind, version=offered.installedVersion,
                    installedAt=offered.installedAt,
                )  # fmt: skip

        self.runner.run("Read the catalog versions", read(),
                        on_done=lambda _r: self.versions_changed.emit(),
                        on_error=lambda _e, m: self.error.emit(m))  # fmt: skip

    def comparison(self, kind: str) -> str:
        installed = self.installed.get(kind)
        offered = self.offered.get(kind)
        return compare_versions(
            installed.version if installed else None, offered.version if offered else None
        )

    def self_update(self, kind: CatalogKind, *, force: bool = False) -> None:
        client = self.client
        if client is None:
            return

        def done(answer: CatalogVersion) -> None:
            self.update_done.emit(answer)
            self.read_versions()
            self.reload()

        self.runner.run(f"Update the {CATALOG_NOUNS[kind]} catalog",
                        client.catalogs.self_update(kind, force=force), on_done=done,
                        on_error=lambda _e, m: self.update_failed.emit(m))  # fmt: skip

    def import_file(self, path: Path, *, force: bool = False, older: bool = False) -> None:
        """Read and check a catalog file here (progress 0-40 %), send it (40-95 %), and let
        the platform install it. When its version is the installed one and `force` is not
        set, nothing is sent: `import_needs_force` asks. When it is older than the installed
        one and `older` is not set, nothing is sent either: `import_needs_older` asks (the
        platform installs a downgrade without a word)."""
        client = self.client
        if client is None:
            return

        def progress(percent: int, text: str) -> None:
            self.import_progress.emit(percent, text)

        async def run() -> CatalogVersion | None:
            progress(0, f"Reading {path.name}…")
            data = await in_thread(path.read_bytes)
            progress(10, "Checking the catalog file…")
            file = await in_thread(read_catalog_file, data)
            progress(40, f"Checked: {file.item_count:,} items, version {file.version}")
            installed = await client.catalogs.catalog(file.catalog)
            if installed.version == file.version and not force:
                self.import_needs_force.emit(file.catalog, file.version)
                return None
            if compare_versions(installed.version, file.version) == "older" and not older:
                assert installed.version is not None  # "older" compares with one
                self.import_needs_older.emit(file.catalog, installed.version, file.version)
                return None

            def sent(done: int, total: int) -> None:
                progress(40 + int(55 * done / max(total, 1)), "Sending the catalog…")

            reader = ProgressReader(data, sent)
            answer = await client.catalogs.import_catalog(
                file.catalog, reader, filename=path.name, force=force
            )
            progress(100, f"Installed version {answer.version}")
            return answer

        def done(answer: CatalogVersion | None) -> None:
            if answer is not None:
                self.import_done.emit(answer)
                self.read_versions()
                self.reload()

        self.runner.run(f"Import the catalog {path.name}", run(), on_done=done,
                        on_error=lambda _e, m: self.import_failed.emit(m))  # fmt: skip

    # --- RF region logos --------------------------------------------------------------------

    def load_logo(self, region_id: str) -> None:
        client = self.client
        if client is None:
            return

        async def read() -> bytes:
            try:
                data, _type = await client.catalogs.logo(item_ref(region_id))
            except NotFoundError:
                return b""
            return data

        self.runner.run(f"Logo of {region_id}", read(), quiet=True,
                        on_done=lambda data: self.logo_loaded.emit(region_id, data),
                        on_error=lambda _e, m: self.logo_failed.emit(m))  # fmt: skip

    def upload_logo(self, region_id: str, path: Path) -> None:
        """Send a PNG or JPEG file of at most 256 KB, checked here first."""
        client = self.client
        if client is None:
            return

        async def send() -> bytes:
            data = await in_thread(path.read_bytes)
            problem = logo_problem(data)
            if problem:
                raise UserError(problem)
            await client.catalogs.upload_logo(item_ref(region_id), data, path.name, logo_type(data))
            return data

        def done(data: bytes) -> None:
            self.logo_loaded.emit(region_id, data)
            self.reload(("rfRegions",))

        self.runner.run(f"Upload the logo of {region_id}", send(), on_done=done,
                        on_error=lambda _e, m: self.logo_failed.emit(m))  # fmt: skip


def logo_problem(data: bytes) -> str:
    """Why these bytes cannot be a logo ('' when they can)."""
    if len(data) > MAX_LOGO_BYTES:
        return (
            f"A logo is at most {MAX_LOGO_BYTES // 1024} KB (this file has {len(data) // 1024} KB)"
        )
    if not logo_type(data):
        return "A logo is a PNG or JPEG image"
    return ""
