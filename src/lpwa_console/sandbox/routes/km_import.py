"""`POST /kmSubscriptions/{kmSubscriptionUid}/devices/import`: the CSV of Document 1 §2.11
(schema/km_import.py), answered as the device import is: 200 with an empty body when every
line was applied, else 200 with `{code, message}` whose message is a CSV of the refused lines
(`EUI,line N,[code] message`; past _upload.MAX_LISTED, a last record of line 0 counts the
others). The file is read as it is applied (routes/_upload.py: memory bounded whatever its
size) on the long-work lane (long_work.py), twice: the schema's refusals first, without
the write lock, then the valid lines (at most _upload.MAX_IMPORT_ROWS) in one transaction:
a refused line changes nothing and the others go on, and an import cut short (a kill -9, a
line too long) leaves nothing applied. The RSA-encrypted keys of each BATCH rows are
decrypted ahead, on two threads."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from typing import IO

from fastapi import Request, Response

from ...schema.domains import DomainRestrictions
from ...schema.km_import import KmImportRow, parse_km_row
from ..accounts import Account
from ..auth import AppServices, DeviceWriter, Services
from ..errors import DUPLICATE, NOT_FOUND, ApiError
from ..store import km_devices as store
from ..store.clock import now_ms
from ..store.key_manager import KeyOpener
from ._km import km_subscription
from ._router import RecordedRouter
from ._upload import IMPORT_RESPONSES, FailedLines, import_answer, import_rows

router = RecordedRouter(tags=["key manager devices"])
BATCH = 1000


def _rsa_cells(rows: list[KmImportRow]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for row in rows:
        body = row.device
        if body is None or not body.exchangeKeyVersion:
            continue
        if body.appKey and not body.hsmAppKeyVersion:
            out.append((body.exchangeKeyVersion, body.appKey))
        if body.nwkKey and not body.hsmNwkKeyVersion:
            out.append((body.exchangeKeyVersion, body.nwkKey))
    return out


def _apply(
    conn: sqlite3.Connection,
    sub: int,
    opener: KeyOpener,
    now: int,
    restrictions: DomainRestrictions | None,
    row: KmImportRow,
) -> None:
    assert row.EUI is not None
    if not store.within_reach(conn, sub, row.EUI, restrictions):
        # A network device outside the caller's domains: as if there were none (the rows
        # of a DELETE), and not the caller's to create keys for.
        raise ApiError(404, NOT_FOUND, f"DevEUI: no device {row.EUI}")
    uid = store.find_uid(conn, sub, eui=row.EUI)
    if row.operation == "DELETE":
        if uid is None:
            raise ApiError(404, NOT_FOUND, f"DevEUI: no device {row.EUI}")
        store.delete(conn, uid)
        return
    assert row.device is not None
    if uid is not None:
        raise ApiError(409, DUPLICATE, f"DevEUI: a device with EUI {row.EUI} already exists")
    store.create(conn, sub, row.device, now, opener)


def _run(
    svc: Services, account: Account, km: str, upload: IO[bytes], content_type: str
) -> FailedLines:
    sub = km_subscription(svc.db.conn(), account, km)

    now = now_ms()

    def applier(
        conn: sqlite3.Connection, batch: list[KmImportRow]
    ) -> Callable[[KmImportRow], object]:
        opener = KeyOpener(conn, sub)  # per batch: it keeps the keys it opened
        opener.predecrypt(_rsa_cells(batch))
        return partial(_apply, conn, sub, opener, now, account.restrictions)

    return import_rows(svc.db, upload, content_type, parse_km_row, applier, BATCH)


@router.post(
    "/kmSubscriptions/{kmSubscriptionUid}/devices/import",
    responses=IMPORT_RESPONSES,
)
async def import_km_devices(
    kmSubscriptionUid: str, request: Request, account: DeviceWriter, svc: AppServices
) -> Response:
    return await import_answer(request, partial(_run, svc, account, kmSubscriptionUid))
