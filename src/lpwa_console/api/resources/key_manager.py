"""The key manager: `/kmSubscriptions/{kmSubscriptionUid}` (Document 1 §4.4) and `/kmCustomers`.

`client.key_manager` works on `mine`; `client.key_manager.of("id:sub:100")` on another form of
the identifier (UID, `id:sub:` + subscriber ID). Devices are addressed by UID or `e` + EUI.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...schema.common import path_segment
from ...schema.device_import import DeviceImportReport, SentLine, sent_lines_in
from ...schema.key_manager import (
    GeneratedKeys,
    KeyGenRequest,
    KmAsKey,
    KmAsKeyCreate,
    KmAsKeyPage,
    KmAsKeyUpdate,
    KmClaim,
    KmCustomerPage,
    KmDevice,
    KmDeviceBrief,
    KmDeviceCreate,
    KmDeviceFilter,
    KmDevicePage,
    KmDeviceUpdate,
    KmFramePage,
    KmHsmGroupPage,
    KmPublicExchangeKeys,
    KmStatesDistribution,
    KmSubscription,
)
from ...schema.km_import import KmImportRow, write_km_import_file
from .._base import BaseClient
from ..pagination import Paginator, Params, page_params
from ._resource import APIResource
from .device_import import read_import_answer


def device_segment(device: str | int) -> str:
    """A device as a path segment: a UID, or `e` + the EUI in upper case."""
    text = str(device)
    if len(text) == 17 and text[0] in "eE":
        text = "e" + text[1:].upper()
    return path_segment(text)


# The key manager's lists answer 404 or 405 on a platform without one (not in the 7.3
# reference): FeatureNotOffered, saying so.
KEY_MANAGER = "a key manager"


class KeyManagerResource(APIResource):
    def __init__(self, client: BaseClient, km_subscription: str = "mine") -> None:
        super().__init__(client)
        self.base = f"/kmSubscriptions/{path_segment(km_subscription)}"

    def of(self, km_subscription: str | int) -> KeyManagerResource:
        """The same resource on another KM subscription identifier."""
        return KeyManagerResource(self._client, str(km_subscription))

    # --- subscription, customers, HSM groups, exchange keys, key generation -------------------

    async def subscription(self) -> KmSubscription:
        return await self._client.get(self.base, KmSubscription)

    async def customers(self) -> KmCustomerPage:
        """GET /kmCustomers."""
        return await self._client.get("/kmCustomers", KmCustomerPage)

    async def hsm_groups(self, page_index: int = 1, page_size: int = 100) -> KmHsmGroupPage:
        return await self._client.get(
            f"{self.base}/hsmGroups",
            KmHsmGroupPage,
            params=page_params(page_index, page_size),
            feature=KEY_MANAGER,
        )

    async def public_exchange_keys(self, hsm_group_id: str | None = None) -> KmPublicExchangeKeys:
        """The platform's RSA exchange key and each HSM group's (or that group's), as PEM."""
        params = {"hsmGroupID": hsm_group_id} if hsm_group_id else None
        return await self._client.get(
            f"{self.base}/publicExchangeKey", KmPublicExchangeKeys, params=params
        )

    async def generate_app_keys(self, count: int = 1) -> GeneratedKeys:
        body = KeyGenRequest(count=count).to_wire()
        return await self._client.post(f"{self.base}/appKeyGen", GeneratedKeys, json=body)

    async def generate_nwk_keys(self, count: int = 1) -> GeneratedKeys:
        body = KeyGenRequest(count=count).to_wire()
        return await self._client.post(f"{self.base}/nwkKeyGen", GeneratedKeys, json=body)

    # --- AS keys -------------------------------------------------------------------------------

    async def as_keys(self, page_index: int = 1, page_size: int = 100) -> KmAsKeyPage:
        return await self._client.get(
            f"{self.base}/asKeys",
            KmAsKeyPage,
            params=page_params(page_index, page_size),
            feature=KEY_MANAGER,
        )

    async def as_key(self, as_key: str | int) -> KmAsKey:
        """`as_key`: a UID or `id:` + ID."""
        return await self._client.get(f"{self.base}/asKeys/{path_segment(as_key)}", KmAsKey)

    async def create_as_key(self, key: KmAsKeyCreate) -> KmAsKey:
        return await self._client.post(f"{self.base}/asKeys", KmAsKey, json=key.to_wire())

    async def update_as_key(self, as_key: str | int, update: KmAsKeyUpdate) -> KmAsKey:
        return await self._client.put(
            f"{self.base}/asKeys/{path_segment(as_key)}", KmAsKey, json=update.to_wire()
        )

    # --- devices -------------------------------------------------------------------------------

    async def _devices_page(self, params: Params) -> KmDevicePage:
        return await self._client.get(
            f"{self.base}/devices", KmDevicePage, params=params, feature=KEY_MANAGER
        )

    async def devices(
        self, page_index: int = 1, page_size: int = 100, *, filters: KmDeviceFilter | None = None
    ) -> KmDevicePage:
        query = (filters or KmDeviceFilter()).to_params()
        return await self._devices_page(page_params(page_index, page_size) + query)

    def iterate_devices(
        self, *, filters: KmDeviceFilter | None = None, page_size: int = 500
    ) -> Paginator[KmDeviceBrief]:
        query = (filters or KmDeviceFilter()).to_params()
        return Paginator(self._devices_page, query, page_size=page_size)

    async def device(self, device: str | int) -> KmDevice:
        return await self._client.get(f"{self.base}/devices/{device_segment(device)}", KmDevice)

    async def create_device(self, device: KmDeviceCreate) -> KmDevice:
        """POST (201). A pre-commissioned device without secure element comes back with its
        `ownerToken`, encrypted with the `rsaPublicKey` sent."""
        return await self._client.post(f"{self.base}/devices", KmDevice, json=device.to_wire())

    async def update_device(self, device: str | int, update: KmDeviceUpdate) -> KmDevice:
        return await self._client.put(
            f"{self.base}/devices/{device_segment(device)}", KmDevice, json=update.to_wire()
        )

    async def delete_device(self, device: str | int) -> None:
        await self._client.delete(f"{self.base}/devices/{device_segment(device)}")

    async def claim(self, claim: KmClaim) -> KmDevice:
        """PRE_COMMISSIONED -> GENERIC, owned by `claim.ownerID`."""
        return await self._client.post(f"{self.base}/devices/claim", KmDevice, json=claim.to_wire())

    async def states(self) -> KmStatesDistribution:
        return await self._client.get(
            f"{self.base}/devices/states", KmStatesDistribution, feature=KEY_MANAGER
        )

    async def traffic(
        self, device: str | int | None = None, page_index: int = 1, page_size: int = 100
    ) -> KmFramePage:
        """The messages the key manager served (all devices, or one), newest first."""
        path = f"{self.base}/devices"
        if device is not None:
            path += f"/{device_segment(device)}"
        return await self._client.get(
            f"{path}/frames",
            KmFramePage,
            params=page_params(page_index, page_size),
            feature=KEY_MANAGER if device is None else None,
        )

    async def import_devices(
        self,
        csv: str | bytes | Iterable[KmImportRow],
        *,
        filename: str = "km-devices.csv",
        sent: list[SentLine] | None = None,
    ) -> DeviceImportReport:
        """POST /devices/import (Document 1 §2.11): the file as text or bytes (results
        numbered by its own lines) or parsed rows (each result carries its row's number),
        reported per device line as the device import is. `sent`, with a text, is where
        each row landed in it (`write_km_import_file`, which a caller may run in a worker
        thread): the results then carry the rows' numbers."""
        if isinstance(csv, str | bytes):
            content = csv.encode("utf-8") if isinstance(csv, str) else csv
            if sent is None:
                text = csv if isinstance(csv, str) else csv.decode("utf-8-sig", errors="replace")
                sent = sent_lines_in(text)
        else:
            text, sent = write_km_import_file(list(csv))
            content = text.encode("utf-8")
        files = {"csv": (filename, content, "text/csv")}
        response = await self._client.request("POST", f"{self.base}/devices/import", files=files)
        return read_import_answer(response, sent)
