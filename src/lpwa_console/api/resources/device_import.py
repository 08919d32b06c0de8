"""Bulk device import: `POST /subscriptions/mine/devices/import` (a CSV file, multipart field
`csv`, as the platform's contract says). Answer: one result per device line."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from ...schema.device_import import DeviceImportReport, ImportRow, write_import_csv
from ._resource import APIResource

PATH = "/subscriptions/mine/devices/import"


class DeviceImportResource(APIResource):
    async def upload(
        self,
        csv: str | bytes | Iterable[ImportRow],
        *,
        filename: str = "devices.csv",
        domains: list[str] | None = None,
        force_dev_addrs: bool | None = None,
    ) -> DeviceImportReport:
        """Send an import file (text, bytes, or parsed rows, which are written back as CSV).

        domains: `group:name` items, associated with every created device.
        force_dev_addrs: deprecated (the DevAddr of an OTAA device should not be assigned
        permanently); not sent unless given.
        """
        if isinstance(csv, str):
            content = csv.encode("utf-8")
        elif isinstance(csv, bytes):
            content = csv
        else:
            content = write_import_csv(csv).encode("utf-8")
        params = [("domain", d) for d in domains or []]
        if force_dev_addrs is not None:
            warnings.warn(
                "forceDevAddrs is deprecated: let the network server assign OTAA DevAddrs",
                DeprecationWarning,
                stacklevel=2,
            )
            params.append(("forceDevAddrs", "true" if force_dev_addrs else "false"))
        files = {"csv": (filename, content, "text/csv")}
        return await self._client.post(PATH, DeviceImportReport, params=params, files=files)
