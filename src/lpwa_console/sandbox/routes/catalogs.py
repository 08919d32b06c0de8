"""The operator's catalogs (Document 2 §4.1, §2.2, §7, §8) under
`/admins/operators/{operatorUid}`: the operator; device and base-station profiles (filters
`source`, `language-tag`, `loraProfileID`; creation adds `CUSTOM/`); LRR software versions;
device and base-station vendors with their texts per language; RF regions with theirs and a
logo; and for each catalog its installed version, the import of a catalog file and
`selfUpdate` from the sandbox's repository (the installed version again only with `force`).

Identifiers: `mine`, `1` or `id:` + the operator's ID for the operator; the UID or `id:` + ID
for a profile, vendor or RF region (profile IDs hold slashes: sent percent-encoded)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Query, Request, Response
from pydantic import ValidationError

from ...schema import catalogs as wire
from ...schema.catalogs import MAX_CATALOG_BYTES, MAX_LOGO_BYTES
from ...schema.common import parse_identifier
from ...schema.device_profiles import Connectivity
from ...schema.images import image_problem
from ..auth import AppServices, ClientBodies
from ..errors import (
    DUPLICATE,
    ApiError,
    bad_request,
    forbidden,
    not_found,
    refuse_changed,
    too_large,
    validation_message,
)
from ..long_work import off_request
from ..store import catalogs as store
from ..store.clock import now_ms
from ._catalog_routes import (
    EntryRoutes,
    Lang,
    OfOperator,
    OperatorPath,
    add_collection_routes,
    add_entry_routes,
)
from ._common import PageParams, Paging, list_answer
from ._router import RecordedRouter
from ._upload import FRAMING, field_window, spool_body

router = RecordedRouter(
    prefix="/admins/operators/{operatorUid}",
    tags=["operator catalogs"],
    dependencies=[ClientBodies],
)
Force = Annotated[bool, Query()]
X: dict[str, Any] = {"response_model_exclude_none": True}
# A catalog file unpacks to at most this many times its gzip size (JSON compresses some
# 10-30 times; a bomb thousands of times), and never past MAX_CATALOG_BYTES.
MAX_GZIP_RATIO = 100
_TABLES = {"deviceProfiles": "device_models", "baseStationProfiles": "bs_profiles"}
_NOUN = {"deviceProfiles": "device profile", "baseStationProfiles": "base station profile",
         "rfRegions": "RF region"}  # fmt: skip


async def _upload(request: Request, limit: int, too_big: str) -> bytes:
    """The uploaded file: the multipart field `file`, or the raw body; refused (413) as
    soon as the body passes `limit` (plus room for the multipart framing), spooled to a
    temporary file meanwhile (routes/_upload.py)."""
    spool = await spool_body(request, limit + FRAMING, too_big)
    try:
        content_type = request.headers.get("content-type", "")
        return field_window(spool, content_type, "file", limit, too_big).read()
    finally:
        spool.close()


def _ident(text: str) -> tuple[int | None, str | None]:
    ident = parse_identifier(text)
    if ident.kind == "uid":
        return ident.uid, None
    if ident.kind == "id":
        return None, ident.value
    return None, None


def _table(kind: str) -> str:
    return _TABLES.get(kind, "rf_regions")


def _profile_uid(conn: sqlite3.Connection, kind: str, text: str) -> int:
    uid, ref = _ident(text)
    found = None
    if uid is not None or ref is not None:
        found = store.find_entry(conn, _table(kind), uid=uid, ref=ref)
    if found is None:
        raise not_found(f"{_NOUN[kind]} {text} not found")
    return found


def _vendor_uid(conn: sqlite3.Connection, kind: str, text: str) -> int:
    uid, ref = _ident(text)
    found = None
    if uid is not None:
        found = store.find_vendor(conn, kind, uid=uid)
    elif ref is not None:
        found = store.find_vendor(conn, kind, ref=ref)
    if found is None:
        raise not_found(f"vendor {text} not found")
    return found


def _page(
    items: list[dict[str, Any]], more: bool, paging: Any, count: Callable[[], int],
    catalog: str | None, lang: str, conn: sqlite3.Connection,
) -> dict[str, Any]:  # fmt: skip
    out = list_answer(items, more, first=paging.first, count=count)
    out["languageTag"] = lang
    if catalog is not None:
        out["catalogVersion"] = store.installed(conn, catalog)[0]
    return out


Rows = Callable[..., tuple[list[dict[str, Any]], bool]]
Items = Callable[[sqlite3.Connection, list[int], str, bool], list[dict[str, Any]]]
Write = Callable[..., int]


@dataclass(frozen=True)
class Entries:
    """One catalog resource of the recipe (device profiles, base station profiles, RF
    regions): its list, its entry answered in a language with the installed catalog's
    version, its creation (409 on a taken ID) and a change of one entry, each once."""

    kind: str  # the catalog: deviceProfiles, baseStationProfiles, rfRegions
    a_noun: str  # "a device profile", for the 409
    rows: Rows  # store: one page of items in a language (filters as keywords)
    count: Callable[..., int]  # store: how many (the same filters)
    items: Items  # store: the entries `ids` in a language
    write: Write  # store: insert (uid None) or replace an entry

    def page(
        self, op: OperatorPath, paging: Paging, language_tag: str | None, **filters: Any
    ) -> dict[str, Any]:
        conn = op.conn()
        op.check(conn)
        lang, default = store.language(conn, language_tag)
        items, more = self.rows(conn, lang, default, paging.offset, paging.size, **filters)
        count = lambda: self.count(conn, **filters)  # noqa: E731
        return _page(items, more, paging, count, self.kind, lang, conn)

    def entry(self, conn: sqlite3.Connection, uid: int, lang: str, default: bool) -> dict[str, Any]:
        item = self.items(conn, [uid], lang, default)[0]
        return item | {"catalogVersion": store.installed(conn, self.kind)[0]}

    def read(self, op: OperatorPath, text: str, language_tag: str | None) -> dict[str, Any]:
        conn = op.conn()
        op.check(conn)
        lang, default = store.language(conn, language_tag)
        return self.entry(conn, _profile_uid(conn, self.kind, text), lang, default)

    def written(self, op: OperatorPath, uid: int) -> dict[str, Any]:
        """The entry after a change, in the operator's default language."""
        conn = op.conn()
        lang, default = store.language(conn, None)
        return self.entry(conn, uid, lang, default)

    def create(
        self, op: OperatorPath, values: dict[str, Any], vendor_kind: str | None = None
    ) -> dict[str, Any]:
        """A CUSTOM entry of `values` (its `ID` already with `CUSTOM/`); `vendor_kind`: the
        vendors `values["vendor"]` must name one of."""
        with op.write() as conn:
            op.check(conn)
            if store.find_entry(conn, _table(self.kind), ref=values["ID"]) is not None:
                raise ApiError(409, DUPLICATE, f"ID: {self.a_noun} {values['ID']} exists")
            if vendor_kind is not None:
                _check_vendor(conn, vendor_kind, values["vendor"])
            uid = self.write(conn, values, source="CUSTOM")
        return self.written(op, uid)

    @contextmanager
    def changing(self, op: OperatorPath, text: str) -> Iterator[tuple[sqlite3.Connection, int]]:
        """A write transaction on the entry `text` names (404 unless there is one)."""
        with op.write() as conn:
            op.check(conn)
            yield conn, _profile_uid(conn, self.kind, text)

    def change(
        self, op: OperatorPath, text: str, update: Callable[[sqlite3.Connection, int], None]
    ) -> dict[str, Any]:
        """`update(conn, uid)` of the entry `text` names, then the entry as changed."""
        with self.changing(op, text) as (conn, uid):
            update(conn, uid)
        return self.written(op, uid)


@router.reads("", wire.Operator)
def get_operator(op: OfOperator) -> dict[str, Any]:
    conn = op.conn()
    op.check(conn)
    return store.operator(conn)


# --- catalogs: versions, import, selfUpdate (one set of routes per catalog) -----------------


async def _read_file(request: Request) -> bytes:
    """The catalog file of the body: the multipart field `file` or the raw body."""
    too_big = f"file: at most {MAX_CATALOG_BYTES // (1024 * 1024)} MB"
    return await _upload(request, MAX_CATALOG_BYTES, too_big)


def gunzip_bounded(body: bytes) -> bytes:
    """A gzip file's content, refused (413) past MAX_CATALOG_BYTES or MAX_GZIP_RATIO times
    its compressed size: inflated in steps, never past the bound (a 509 KB upload had
    unpacked to 512 MB)."""
    bound = min(MAX_CATALOG_BYTES, max(len(body) * MAX_GZIP_RATIO, 1024 * 1024))
    unpack = zlib.decompressobj(wbits=31)  # gzip framing
    parts: list[bytes] = []  # joined once whole: a refused file is never copied
    size = 0
    data = body
    try:
        while data and not unpack.eof:
            part = unpack.decompress(data, min(_GUNZIP_STEP, bound + 1 - size))
            size += len(part)
            parts.append(part)
            if size > bound:
                raise too_large(
                    f"file: unpacks to more than {bound // (1024 * 1024)} MB (at most"
                    f" {MAX_CATALOG_BYTES // (1024 * 1024)} MB, and {MAX_GZIP_RATIO} times"
                    " its compressed size)"
                )
            data = unpack.unconsumed_tail
    except zlib.error:
        raise bad_request("file: not a readable gzip file") from None
    if not unpack.eof:
        raise bad_request("file: not a readable gzip file (it ends early)")
    return b"".join(parts)


_GUNZIP_STEP = 1024 * 1024


def parse_catalog(body: bytes) -> wire.CatalogFile:
    if body[:2] == b"\x1f\x8b":
        body = gunzip_bounded(body)
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise bad_request(f"file: not a JSON catalog file ({exc})") from None
    try:
        return wire.CatalogFile.model_validate(data)
    except ValidationError as exc:
        raise bad_request("file: " + validation_message(list(exc.errors()))) from None  # type: ignore[arg-type]


def _version_answer(conn: sqlite3.Connection, kind: str) -> dict[str, Any]:
    version, at = store.installed(conn, kind)
    return {"catalog": kind, "version": version, "installedVersion": version, "installedAt": at,
            "itemCount": store.item_count(conn, kind)}  # fmt: skip


def _install(svc: Any, kind: str, file: wire.CatalogFile, force: bool) -> dict[str, Any]:
    if file.catalog != kind:
        raise bad_request(f"catalog: the file is a {file.catalog} catalog, not {kind}")
    with svc.db.write() as conn:
        version, _at = store.installed(conn, kind)
        if version == file.version and not force:
            raise ApiError(
                409, DUPLICATE,
                f"version: {file.version} is the installed version (force to install it again)",
            )  # fmt: skip
        added = store.missing_ids(conn, file)
        written = store.import_file(conn, file, now_ms())
    answer = _version_answer(svc.db.conn(), kind)
    return answer | {"imported": written, "added": added}


def _catalog_routes(kind: wire.CatalogKind) -> None:
    base = f"/{kind}/catalog"

    def get_catalog(op: OfOperator) -> dict[str, Any]:
        conn = op.conn()
        op.check(conn)
        return _version_answer(conn, kind)

    async def import_catalog(
        op: OfOperator, request: Request, svc: AppServices,
        force: Force = False,
    ) -> dict[str, Any]:  # fmt: skip
        op.check(op.conn())
        body = await _read_file(request)
        # Unpacking, parsing and installing off the request thread (long_work.py).
        file = await off_request(request, parse_catalog, body)
        return await off_request(request, _install, svc, kind, file, force)

    def get_offered(op: OfOperator) -> dict[str, Any]:
        conn = op.conn()
        op.check(conn)
        installed, at = store.installed(conn, kind)
        found = store.offered(conn, kind)
        answer: dict[str, Any] = {"catalog": kind, "installedVersion": installed, "installedAt": at}
        if found is not None:
            file = parse_catalog(found[1])
            answer |= {"version": found[0], "itemCount": file.item_count,
                       "added": store.missing_ids(conn, file)}  # fmt: skip
        return answer

    def self_update(op: OfOperator, svc: AppServices, force: Force = False) -> dict[str, Any]:
        conn = op.conn()
        op.check(conn)
        found = store.offered(conn, kind)
        if found is None:
            raise not_found(f"the repository holds no {kind} catalog")
        return _install(svc, kind, parse_catalog(found[1]), force)

    opts: dict[str, Any] = {"response_model": wire.CatalogVersion, **X}
    router.get(base, **opts)(get_catalog)
    again: dict[int | str, dict[str, Any]] = {
        409: {"description": "This version is installed already (`force` installs it again)"}
    }
    router.post(base, status_code=201, openapi_extra=_FILE_BODY, responses=again, **opts)(
        import_catalog
    )
    router.get(f"{base}/selfUpdate", **opts)(get_offered)
    router.post(f"{base}/selfUpdate", status_code=201, responses=again, **opts)(self_update)


_FILE_BODY = {
    "requestBody": {
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            },
        }
    }
}
for _kind in wire.CATALOG_KINDS:
    _catalog_routes(_kind)


# --- device profiles ------------------------------------------------------------------------

DEVICE_PROFILES = Entries(
    "deviceProfiles", "a device profile", store.device_profiles, store.device_profile_count,
    store.device_profile_items, store.write_device_profile,
)  # fmt: skip
BS_PROFILES = Entries(
    "baseStationProfiles", "a base station profile", store.bs_profiles, store.bs_profile_count,
    store.bs_profile_items, store.write_bs_profile,
)  # fmt: skip
RF_REGIONS = Entries(
    "rfRegions", "an RF region", store.rf_regions, store.rf_region_count,
    store.rf_region_items, store.write_rf_region,
)  # fmt: skip


@router.reads("/deviceProfiles", wire.OperatorDeviceProfilePage)
def list_device_profiles(
    op: OfOperator, paging: PageParams,
    source: wire.CatalogSource | None = None, loraProfileID: str | None = None,
    vendorID: str | None = None, connectivity: Connectivity | None = None, language_tag: Lang = None,
) -> dict[str, Any]:  # fmt: skip
    return DEVICE_PROFILES.page(
        op, paging, language_tag, source=source, lora_id=loraProfileID, vendor=vendorID,
        connectivity=connectivity,
    )  # fmt: skip


def _check_vendor(conn: sqlite3.Connection, kind: str, ref: str | None) -> None:
    if ref and store.find_vendor(conn, kind, ref=ref) is None:
        raise bad_request(f"vendor.ID: no vendor {ref}")


def _sent_values(
    conn: sqlite3.Connection,
    current: dict[str, Any],
    body: wire.DeviceProfileUpdate | wire.BaseStationProfileUpdate,
    vendor_kind: str,
) -> dict[str, Any]:
    """A profile update's values as sent, once none changes a fixed field of `current`; a
    vendor named by its ID, which must be one of `vendor_kind`."""
    refuse_changed(current, body.fixed_values())
    sent = body.model_dump(exclude_unset=True)
    if "vendor" in sent:
        sent["vendor"] = body.vendor.ID if body.vendor else None
        _check_vendor(conn, vendor_kind, sent["vendor"])
    return sent


def _created(
    values: dict[str, Any], body: wire.DeviceProfileCreate | wire.BaseStationProfileCreate
) -> dict[str, Any]:
    """A new profile's `values`, its ID with `CUSTOM/`, its vendor named by its ID."""
    return values | {
        "ID": wire.custom_id(body.ID),
        "vendor": body.vendor.ID if body.vendor else None,
    }


def _update_device_profile(
    conn: sqlite3.Connection, uid: int, body: wire.DeviceProfileUpdate
) -> None:
    current = store.device_profile_values(conn, uid)
    sent_values = _sent_values(conn, current, body, store.DEVICE_VENDOR)
    if sent_values.get("commercialName", "") is None:  # a name cannot be emptied
        del sent_values["commercialName"]
    if "defaultIsmBands" in sent_values:
        sent_values["defaultIsmBands"] = [b.ID for b in body.defaultIsmBands or ()]
    merged = current | sent_values
    sent_rules = {k: v for k, v in merged.items() if k in sent_values or k not in _FORCED}
    problems = wire.rule_problems(sent_rules)
    if problems:
        raise bad_request("; ".join(problems))
    store.write_device_profile(conn, merged, source="", uid=uid)


DEVICE_PROFILE_ROUTES = EntryRoutes(
    DEVICE_PROFILES, "/deviceProfiles", "profileUid", "device_profile",
    wire.OperatorDeviceProfile, wire.DeviceProfileCreate, wire.DeviceProfileUpdate,
    "A device profile with this ID exists", lambda body: _created(body.rule_values(), body),
    _update_device_profile, vendor_kind=store.DEVICE_VENDOR,
    create_doc="The ID gets `CUSTOM/` when it has not; at most 40 characters with it.",
    update_doc="The fields sent replace those held; the LoRaWAN rules are checked on the"
    " result\n(a forced value may be left out: it is set).",
)  # fmt: skip
add_collection_routes(router, DEVICE_PROFILE_ROUTES)
add_entry_routes(router, DEVICE_PROFILE_ROUTES)


_FORCED = frozenset({"allowedABPAutomaticReset", "devNonceCounterBased",
                     "maxRedundancyForConfirmedUL", "permanentlyListening",
                     "defaultRelayActivation", "macNotifyNewEndDeviceReqExSupport",
                     "downlinkDwellTime", "uplinkDwellTime"})  # fmt: skip


# --- base-station profiles ------------------------------------------------------------------


def _update_bs_profile(
    conn: sqlite3.Connection, uid: int, body: wire.BaseStationProfileUpdate
) -> None:
    current = store.bs_profile_values(conn, uid)
    sent = _sent_values(conn, current, body, store.BS_VENDOR)
    merged = current | {k: v for k, v in sent.items() if v is not None or k == "vendor"}
    store.write_bs_profile(conn, merged, source="", uid=uid)


BS_PROFILE_ROUTES = EntryRoutes(
    BS_PROFILES, "/baseStationProfiles", "profileUid", "bs_profile",
    wire.OperatorBaseStationProfile, wire.BaseStationProfileCreate,
    wire.BaseStationProfileUpdate, "A base station profile with this ID exists",
    lambda body: _created(body.model_dump(exclude_none=True), body), _update_bs_profile,
    vendor_kind=store.BS_VENDOR,
    page_model=wire.OperatorBaseStationProfilePage,
)  # fmt: skip
add_collection_routes(router, BS_PROFILE_ROUTES)


@router.replaces(
    "/baseStationProfiles/{profileUid:path}/lrrSwVersions/{versionUid}", wire.LrrSwVersion
)
def put_lrr_version(
    op: OfOperator, profileUid: str, versionUid: str, body: wire.LrrSwVersionUpdate,
) -> dict[str, Any]:  # fmt: skip
    """Creates the version when the profile has not got it, else replaces its
    compatibilities."""
    if not versionUid.strip() or len(versionUid) > 40:
        raise bad_request("versionUid: 1 to 40 characters")
    with BS_PROFILES.changing(op, profileUid) as (conn, uid):
        compat = [c.model_dump() for c in body.compatibilities]
        store.put_lrr_version(conn, uid, versionUid, compat)
    return next(v for v in store.lrr_versions(op.conn(), uid) if v["ID"] == versionUid)


add_entry_routes(router, BS_PROFILE_ROUTES)


# --- vendors --------------------------------------------------------------------------------


def _vendor_routes(path: str, kind: str) -> None:
    def list_vendors(
        op: OfOperator, paging: PageParams,
        language_tag: Lang = None, loraVendorID: str | None = None,
    ) -> dict[str, Any]:  # fmt: skip
        conn = op.conn()
        op.check(conn)
        lang, default = store.language(conn, language_tag)
        items, more = store.vendors(
            conn, kind, lang, default, paging.offset, paging.size, lora_vendor_id=loraVendorID
        )
        count = lambda: store.vendor_count(conn, kind, loraVendorID)  # noqa: E731
        return _page(items, more, paging, count, None, lang, conn)

    def create_vendor(op: OfOperator, body: wire.VendorCreate) -> dict[str, Any]:
        with op.write() as conn:
            op.check(conn)
            if store.find_vendor(conn, kind, ref=body.ID) is not None:
                raise ApiError(409, DUPLICATE, f"ID: a vendor {body.ID} exists")
            uid = store.create_vendor(conn, kind, body.model_dump(exclude_none=True))
        conn = op.conn()
        lang, default = store.language(conn, None)
        return store.vendor_items(conn, kind, [uid], lang, default)[0]

    def get_vendor(
        op: OfOperator, vendorUid: str,
        language_tag: Lang = None,
    ) -> dict[str, Any]:  # fmt: skip
        conn = op.conn()
        op.check(conn)
        lang, default = store.language(conn, language_tag)
        return store.vendor_items(conn, kind, [_vendor_uid(conn, kind, vendorUid)], lang, default)[
            0
        ]

    def update_vendor(
        op: OfOperator, vendorUid: str, body: wire.VendorUpdate,
    ) -> dict[str, Any]:  # fmt: skip
        with op.write() as conn:
            op.check(conn)
            uid = _vendor_uid(conn, kind, vendorUid)
            store.update_vendor(conn, kind, uid, body.model_dump(exclude_none=True))
        conn = op.conn()
        lang, default = store.language(conn, None)
        return store.vendor_items(conn, kind, [uid], lang, default)[0]

    def get_local(
        op: OfOperator, vendorUid: str, languageTag: str,
    ) -> dict[str, Any]:  # fmt: skip
        conn = op.conn()
        op.check(conn)
        uid = _vendor_uid(conn, kind, vendorUid)
        lang = _language(conn, languageTag)
        texts = store.local(conn, kind, uid, lang)
        if texts is None:
            raise not_found(f"vendor {vendorUid} has no texts in {languageTag}")
        return {"languageTag": lang, "commercialName": texts[0], "commercialDescription": texts[1]}

    def put_local(
        op: OfOperator, vendorUid: str, languageTag: str, body: wire.LocalTextsUpdate,
    ) -> dict[str, Any]:  # fmt: skip
        with op.write() as conn:
            op.check(conn)
            uid = _vendor_uid(conn, kind, vendorUid)
            lang = _language(conn, languageTag)
            if store.operator(conn)["defaultLanguage"] == lang:
                store.update_vendor(conn, kind, uid, body.model_dump(exclude_none=True))
            else:
                store.set_local(conn, kind, uid, lang, body.commercialName,
                                body.commercialDescription)  # fmt: skip
        conn = op.conn()
        item = store.vendor_items(conn, kind, [uid], lang, False)[0]
        return {"languageTag": lang, "commercialName": item["commercialName"],
                "commercialDescription": item["commercialDescription"]}  # fmt: skip

    router.get(path, response_model=wire.CatalogVendorPage, **X)(list_vendors)
    router.post(path, status_code=201, response_model=wire.CatalogVendor, **X,
                responses={409: {"description": "A vendor with this ID exists"}})(create_vendor)  # fmt: skip
    router.get(f"{path}/{{vendorUid}}/locals/{{languageTag}}", response_model=wire.LocalTexts, **X)(
        get_local
    )
    router.put(f"{path}/{{vendorUid}}/locals/{{languageTag}}", response_model=wire.LocalTexts, **X)(
        put_local
    )
    router.get(f"{path}/{{vendorUid}}", response_model=wire.CatalogVendor, **X)(get_vendor)
    router.put(f"{path}/{{vendorUid}}", response_model=wire.CatalogVendor, **X)(update_vendor)


def _language(conn: sqlite3.Connection, tag: str) -> str:
    """A language the operator has (its primary subtag), else 404."""
    lang = tag.split("-", 1)[0].lower()
    if lang not in store.operator(conn)["languages"]:
        raise not_found(f"languageTag: the operator has no language {tag}")
    return lang


_vendor_routes("/deviceVendors", store.DEVICE_VENDOR)
_vendor_routes("/baseStationVendors", store.BS_VENDOR)


# --- RF regions -----------------------------------------------------------------------------


def _update_rf_region(conn: sqlite3.Connection, uid: int, body: wire.RfRegionUpdate) -> None:
    fixed_id, fixed_band = store.rf_region_fixed(conn, uid)
    current = {"ID": fixed_id, "ismBand": fixed_band}
    refuse_changed(current, body.fixed_values(), null_keeps=True)
    store.write_rf_region(conn, body.model_dump(exclude_none=True), source="", uid=uid)


RF_REGION_ROUTES = EntryRoutes(
    RF_REGIONS, "/rfRegions", "rfRegionUid", "rf_region", wire.RfRegion, wire.RfRegionCreate,
    wire.RfRegionUpdate, "An RF region with this ID exists",
    lambda body: body.model_dump(exclude_none=True) | {"ID": wire.custom_id(body.ID)},
    _update_rf_region, page_model=wire.RfRegionPage,
)  # fmt: skip
add_collection_routes(router, RF_REGION_ROUTES)


@router.reads("/rfRegions/{rfRegionUid:path}/locals/{languageTag}", wire.RfRegionLocal)
def get_rf_local(
    op: OfOperator, rfRegionUid: str, languageTag: str,
) -> dict[str, Any]:  # fmt: skip
    conn = op.conn()
    op.check(conn)
    uid = _profile_uid(conn, "rfRegions", rfRegionUid)
    lang = _language(conn, languageTag)
    texts = store.local(conn, store.RF_REGION, uid, lang)
    if texts is None:
        raise not_found(f"RF region {rfRegionUid} has no texts in {languageTag}")
    return {"languageTag": lang, "name": texts[0], "commercialDescription": texts[1]}


@router.replaces("/rfRegions/{rfRegionUid:path}/locals/{languageTag}", wire.RfRegionLocal)
def put_rf_local(
    op: OfOperator, rfRegionUid: str, languageTag: str, body: wire.RfRegionLocalUpdate,
) -> dict[str, Any]:  # fmt: skip
    with RF_REGIONS.changing(op, rfRegionUid) as (conn, uid):
        lang = _language(conn, languageTag)
        if store.operator(conn)["defaultLanguage"] == lang:
            store.write_rf_region(conn, body.model_dump(exclude_none=True), source="", uid=uid)
        else:
            store.set_local(conn, store.RF_REGION, uid, lang, body.name, body.commercialDescription)
    item = store.rf_region_items(op.conn(), [uid], lang, False)[0]
    return {"languageTag": lang, "name": item["name"],
            "commercialDescription": item["commercialDescription"]}  # fmt: skip


@router.get(
    "/rfRegions/{rfRegionUid:path}/logo",
    response_class=Response,
    responses={200: {"content": {"image/png": {}, "image/jpeg": {}}}},
)
def get_logo(op: OfOperator, rfRegionUid: str) -> Response:
    conn = op.conn()
    op.check(conn)
    found = store.logo(conn, _profile_uid(conn, "rfRegions", rfRegionUid))
    if found is None:
        raise not_found(f"RF region {rfRegionUid} has no logo")
    # nosniff: a browser shows it as the image it is said to be, never as a page.
    return Response(found[0], media_type=found[1], headers={"X-Content-Type-Options": "nosniff"})


@router.creates("/rfRegions/{rfRegionUid:path}/logo", wire.RfRegion, openapi_extra={"requestBody": {"content": {"multipart/form-data": {"schema": {
                 "type": "object", "properties": {"file": {"type": "string",
                                                            "format": "binary"}}}}}}})  # fmt: skip
async def post_logo(
    op: OfOperator, rfRegionUid: str, request: Request,
) -> dict[str, Any]:  # fmt: skip
    """A PNG or JPEG image (told by its bytes, not its name), at most 256 KB: the multipart
    field `file` or the raw body."""
    data = await _upload(request, MAX_LOGO_BYTES, f"file: at most {MAX_LOGO_BYTES // 1024} KB")
    kind = wire.logo_type(data)
    if not kind:
        raise bad_request("file: a logo is a PNG or JPEG image")
    if (problem := image_problem(data, kind)) is not None:
        raise bad_request(f"file: {problem}")
    with RF_REGIONS.changing(op, rfRegionUid) as (conn, uid):
        store.set_logo(conn, uid, data, kind)
    return RF_REGIONS.written(op, uid)


add_entry_routes(router, RF_REGION_ROUTES)


@router.delete("/rfRegions/{rfRegionUid:path}", status_code=204)
def delete_rf_region(op: OfOperator, rfRegionUid: str) -> Response:
    """Only a CUSTOM region no station uses: a CATALOG one is the installed catalog's (it
    would come back with the next install), so it is refused (403)."""
    with RF_REGIONS.changing(op, rfRegionUid) as (conn, uid):
        if store.rf_region_source(conn, uid) != "CUSTOM":
            raise forbidden(
                f"rfRegionUid: {rfRegionUid} comes from the installed catalog (source CATALOG);"
                " only an RF region the operator created (CUSTOM) can be deleted"
            )
        users = store.rf_region_users(conn, uid)
        if users:
            raise bad_request(f"rfRegionUid: still used by {users} base station(s)")
        store.delete_rf_region(conn, uid)
    return Response(status_code=204)
