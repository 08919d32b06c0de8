"""The operator's catalogs: `/admins/operators/{operatorUid}/...` (Document 2 §4.1).
`operator` is `mine` unless said; profiles, vendors and RF regions are addressed by UID or
`id:` + ID (`item_ref`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, Literal

from ...schema.catalogs import (
    BaseStationProfileCreate,
    BaseStationProfileUpdate,
    CatalogKind,
    CatalogSource,
    CatalogVendor,
    CatalogVendorPage,
    CatalogVersion,
    DeviceProfileCreate,
    DeviceProfileUpdate,
    LocalTexts,
    LocalTextsUpdate,
    LrrSwVersion,
    LrrSwVersionUpdate,
    Operator,
    OperatorBaseStationProfile,
    OperatorBaseStationProfilePage,
    OperatorDeviceProfile,
    OperatorDeviceProfilePage,
    RfRegion,
    RfRegionCreate,
    RfRegionLocal,
    RfRegionLocalUpdate,
    RfRegionPage,
    RfRegionUpdate,
    VendorCreate,
    VendorUpdate,
)
from ...schema.common import path_segment
from ..pagination import page_params
from ._resource import APIResource

MINE = "mine"
VendorKind = Literal["deviceVendors", "baseStationVendors"]


def item_ref(ID: str) -> str:
    """How a path names a catalog item by its ID: `id:` + ID (slashes percent-encoded)."""
    return "id:" + ID


class ProgressReader:
    """A file object that tells how much of it was read (an upload's progress)."""

    def __init__(self, data: bytes, on_read: Callable[[int, int], None] | None = None) -> None:
        self._data = data
        self._at = 0
        self._on_read = on_read

    def read(self, size: int = -1) -> bytes:
        end = len(self._data) if size < 0 else min(len(self._data), self._at + size)
        chunk = self._data[self._at : end]
        self._at = end
        if self._on_read is not None:
            self._on_read(self._at, len(self._data))
        return chunk

    def seek(self, offset: int, whence: int = 0) -> int:
        self._at = (
            offset
            if whence == 0
            else (len(self._data) + offset if whence == 2 else self._at + offset)
        )
        return self._at

    def tell(self) -> int:
        return self._at


def _params(
    page_index: int, page_size: int, language: str | None, **more: str | None
) -> list[tuple[str, str]]:
    params = page_params(page_index, page_size)
    if language:
        params.append(("language-tag", language))
    params.extend((k, v) for k, v in more.items() if v)
    return params


class CatalogsResource(APIResource):
    def _base(self, operator: str) -> str:
        return f"/admins/operators/{path_segment(operator)}"

    async def operator(self, operator: str = MINE) -> Operator:
        return await self._client.get(self._base(operator), Operator)

    # --- device profiles ----------------------------------------------------------------

    async def device_profiles(
        self, page_index: int = 1, page_size: int = 100, *, source: CatalogSource | None = None,
        language: str | None = None, lora_profile_id: str | None = None,
        vendor: str | None = None, operator: str = MINE,
    ) -> OperatorDeviceProfilePage:  # fmt: skip
        params = _params(page_index, page_size, language, source=source,
                         loraProfileID=lora_profile_id, vendorID=vendor)  # fmt: skip
        return await self._client.get(
            f"{self._base(operator)}/deviceProfiles", OperatorDeviceProfilePage, params=params
        )

    async def device_profile(
        self, ref: str, *, language: str | None = None, operator: str = MINE
    ) -> OperatorDeviceProfile:
        params = [("language-tag", language)] if language else None
        return await self._client.get(
            f"{self._base(operator)}/deviceProfiles/{path_segment(ref)}",
            OperatorDeviceProfile,
            params=params,
        )

    async def create_device_profile(
        self, body: DeviceProfileCreate, *, operator: str = MINE
    ) -> OperatorDeviceProfile:
        return await self._client.post(
            f"{self._base(operator)}/deviceProfiles", OperatorDeviceProfile, json=body.to_wire()
        )

    async def update_device_profile(
        self, ref: str, body: DeviceProfileUpdate, *, operator: str = MINE
    ) -> OperatorDeviceProfile:
        return await self._client.put(
            f"{self._base(operator)}/deviceProfiles/{path_segment(ref)}",
            OperatorDeviceProfile,
            json=body.to_wire(),
        )

    # --- base-station profiles ----------------------------------------------------------

    async def station_profiles(
        self, page_index: int = 1, page_size: int = 100, *, source: CatalogSource | None = None,
        language: str | None = None, operator: str = MINE,
    ) -> OperatorBaseStationProfilePage:  # fmt: skip
        return await self._client.get(
            f"{self._base(operator)}/baseStationProfiles",
            OperatorBaseStationProfilePage,
            params=_params(page_index, page_size, language, source=source),
        )

    async def station_profile(
        self, ref: str, *, language: str | None = None, operator: str = MINE
    ) -> OperatorBaseStationProfile:
        params = [("language-tag", language)] if language else None
        return await self._client.get(
            f"{self._base(operator)}/baseStationProfiles/{path_segment(ref)}",
            OperatorBaseStationProfile,
            params=params,
        )

    async def create_station_profile(
        self, body: BaseStationProfileCreate, *, operator: str = MINE
    ) -> OperatorBaseStationProfile:
        return await self._client.post(
            f"{self._base(operator)}/baseStationProfiles",
            OperatorBaseStationProfile,
            json=body.to_wire(),
        )

    async def update_station_profile(
        self, ref: str, body: BaseStationProfileUpdate, *, operator: str = MINE
    ) -> OperatorBaseStationProfile:
        return await self._client.put(
            f"{self._base(operator)}/baseStationProfiles/{path_segment(ref)}",
            OperatorBaseStationProfile,
            json=body.to_wire(),
        )

    async def put_lrr_version(
        self, ref: str, version: str, body: LrrSwVersionUpdate, *, operator: str = MINE
    ) -> LrrSwVersion:
        return await self._client.put(
            f"{self._base(operator)}/baseStationProfiles/{path_segment(ref)}"
            f"/lrrSwVersions/{path_segment(version)}",
            LrrSwVersion,
            json=body.to_wire(),
        )

    # --- vendors ------------------------------------------------------------------------

    async def vendors(
        self, kind: VendorKind, page_index: int = 1, page_size: int = 100, *,
        language: str | None = None, lora_vendor_id: str | None = None, operator: str = MINE,
    ) -> CatalogVendorPage:  # fmt: skip
        return await self._client.get(
            f"{self._base(operator)}/{kind}",
            CatalogVendorPage,
            params=_params(page_index, page_size, language, loraVendorID=lora_vendor_id),
        )

    async def vendor(
        self, kind: VendorKind, ref: str, *, language: str | None = None, operator: str = MINE
    ) -> CatalogVendor:
        params = [("language-tag", language)] if language else None
        return await self._client.get(
            f"{self._base(operator)}/{kind}/{path_segment(ref)}", CatalogVendor, params=params
        )

    async def create_vendor(
        self, kind: VendorKind, body: VendorCreate, *, operator: str = MINE
    ) -> CatalogVendor:
        return await self._client.post(
            f"{self._base(operator)}/{kind}", CatalogVendor, json=body.to_wire()
        )

    async def update_vendor(
        self, kind: VendorKind, ref: str, body: VendorUpdate, *, operator: str = MINE
    ) -> CatalogVendor:
        return await self._client.put(
            f"{self._base(operator)}/{kind}/{path_segment(ref)}", CatalogVendor, json=body.to_wire()
        )

    async def vendor_local(
        self, kind: VendorKind, ref: str, language: str, *, operator: str = MINE
    ) -> LocalTexts:
        return await self._client.get(
            f"{self._base(operator)}/{kind}/{path_segment(ref)}/locals/{path_segment(language)}",
            LocalTexts,
        )

    async def put_vendor_local(
        self, kind: VendorKind, ref: str, language: str, body: LocalTextsUpdate, *,
        operator: str = MINE,
    ) -> LocalTexts:  # fmt: skip
        return await self._client.put(
            f"{self._base(operator)}/{kind}/{path_segment(ref)}/locals/{path_segment(language)}",
            LocalTexts,
            json=body.to_wire(),
        )

    # --- RF regions ---------------------------------------------------------------------

    async def rf_regions(
        self, page_index: int = 1, page_size: int = 100, *, source: CatalogSource | None = None,
        language: str | None = None, operator: str = MINE,
    ) -> RfRegionPage:  # fmt: skip
        return await self._client.get(
            f"{self._base(operator)}/rfRegions",
            RfRegionPage,
            params=_params(page_index, page_size, language, source=source),
        )

    async def rf_region(
        self, ref: str, *, language: str | None = None, operator: str = MINE
    ) -> RfRegion:
        params = [("language-tag", language)] if language else None
        return await self._client.get(
            f"{self._base(operator)}/rfRegions/{path_segment(ref)}", RfRegion, params=params
        )

    async def create_rf_region(self, body: RfRegionCreate, *, operator: str = MINE) -> RfRegion:
        return await self._client.post(
            f"{self._base(operator)}/rfRegions", RfRegion, json=body.to_wire()
        )

    async def update_rf_region(
        self, ref: str, body: RfRegionUpdate, *, operator: str = MINE
    ) -> RfRegion:
        return await self._client.put(
            f"{self._base(operator)}/rfRegions/{path_segment(ref)}", RfRegion, json=body.to_wire()
        )

    async def delete_rf_region(self, ref: str, *, operator: str = MINE) -> None:
        await self._client.delete(f"{self._base(operator)}/rfRegions/{path_segment(ref)}")

    async def rf_region_local(
        self, ref: str, language: str, *, operator: str = MINE
    ) -> RfRegionLocal:
        return await self._client.get(
            f"{self._base(operator)}/rfRegions/{path_segment(ref)}/locals/{path_segment(language)}",
            RfRegionLocal,
        )

    async def put_rf_region_local(
        self, ref: str, language: str, body: RfRegionLocalUpdate, *, operator: str = MINE
    ) -> RfRegionLocal:
        return await self._client.put(
            f"{self._base(operator)}/rfRegions/{path_segment(ref)}/locals/{path_segment(language)}",
            RfRegionLocal,
            json=body.to_wire(),
        )

    async def logo(self, ref: str, *, operator: str = MINE) -> tuple[bytes, str]:
        """The RF region's logo: (bytes, media type)."""
        response = await self._client.request(
            "GET", f"{self._base(operator)}/rfRegions/{path_segment(ref)}/logo", accept="image/*"
        )
        return response.content, response.headers.get("content-type", "")

    async def upload_logo(
        self, ref: str, data: bytes, filename: str, media_type: str, *, operator: str = MINE
    ) -> RfRegion:
        return await self._client.post(
            f"{self._base(operator)}/rfRegions/{path_segment(ref)}/logo",
            RfRegion,
            files={"file": (filename, data, media_type)},
        )

    # --- catalogs -----------------------------------------------------------------------

    async def catalog(self, kind: CatalogKind, *, operator: str = MINE) -> CatalogVersion:
        """The installed version of this catalog."""
        return await self._client.get(f"{self._base(operator)}/{kind}/catalog", CatalogVersion)

    async def offered(self, kind: CatalogKind, *, operator: str = MINE) -> CatalogVersion:
        """The newest version the platform's repository offers, with the installed one."""
        return await self._client.get(
            f"{self._base(operator)}/{kind}/catalog/selfUpdate", CatalogVersion
        )

    async def self_update(
        self, kind: CatalogKind, *, force: bool = False, operator: str = MINE
    ) -> CatalogVersion:
        return await self._client.post(
            f"{self._base(operator)}/{kind}/catalog/selfUpdate",
            CatalogVersion,
            params=[("force", "true")] if force else None,
        )

    async def import_catalog(
        self, kind: CatalogKind, data: bytes | IO[bytes] | ProgressReader, *, filename: str = "catalog.json",
        force: bool = False, operator: str = MINE,
    ) -> CatalogVersion:  # fmt: skip
        """Send a catalog file (docs/catalogs.md); `data` may be a `ProgressReader`."""
        return await self._client.post(
            f"{self._base(operator)}/{kind}/catalog",
            CatalogVersion,
            params=[("force", "true")] if force else None,
            files={"file": (filename, data, "application/json")},
        )
