"""`POST /kmSubscriptions/{kmSubscriptionUid}/devices/import`: the CSV of Document 1 §2.11
(schema/km_import.py), answered as the device import is: 200 with an empty body when every
line was applied, else 200 with `{code, message}` whose message is a CSV of the refused lines
(`EUI,line N,[code] message`). Rows are applied in batches of BATCH, one transaction each; a
refused line changes nothing and the others go on. The RSA-encrypted keys of a batch are
decrypted ahead, on two threads."""

from __future__ import annotations

import sqlite3

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ...schema.common import ErrorBody
from ...schema.device_import import ImportFailedLine, ImportLineError, format_import_errors
from ...schema.domains import DomainRestrictions
from ...schema.km_import import KmImportRow, parse_km_import_csv
from ..accounts import Account
from ..auth import AppServices, DeviceWriter, Services
from ..errors import DUPLICATE, INVALID, NOT_FOUND, ApiError
from ..store import km_devices as store
from ..store.clock import now_ms
from ..store.key_manager import KeyOpener
from ._km import km_subscription
from ._router import RecordedRouter
from ._upload import body_at_most, csv_text

router = RecordedRouter(tags=["key manager devices"])
BATCH = 1000
MAX_BYTES = 64 * 1024 * 1024


def _failed(row: KmImportRow, code: int, message: str) -> ImportFailedLine:
    error = ImportLineError(code=str(code), message=message)
    return ImportFailedLine(EUI=row.EUI or row.cell("B"), line=row.row, errors=[error])


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
    conn: sqlite3.Connection, sub: int, row: KmImportRow, opener: KeyOpener, now: int,
    restrictions: DomainRestrictions | None,
) -> None:  # fmt: skip
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


def _run(svc: Services, account: Account, km: str, text: str) -> list[ImportFailedLine]:
    sub = km_subscription(svc.db.conn(), account, km)
    rows = parse_km_import_csv(text)
    failed: list[ImportFailedLine] = []
    now = now_ms()
    for start in range(0, len(rows), BATCH):
        batch = rows[start : start + BATCH]
        with svc.db.write() as conn:
            opener = KeyOpener(conn, sub)
            opener.predecrypt(_rsa_cells(batch))
            for row in batch:
                if not row.ok:
                    for error in row.errors:
                        where = f"column {error.column}: " if error.column else ""
                        failed.append(_failed(row, INVALID, where + error.message))
                    continue
                try:
                    _apply(conn, sub, row, opener, now, account.restrictions)
                except ApiError as exc:
                    failed.append(_failed(row, exc.code, exc.message))
    return failed


@router.post(
    "/kmSubscriptions/{kmSubscriptionUid}/devices/import",
    responses={
        200: {
            "model": ErrorBody,
            "description": "Empty when every line was applied; otherwise `{code, message}`"
            " with `message` a CSV of the refused lines: `EUI,line N,[code] message[,...]`",
        }
    },
)
async def import_km_devices(
    kmSubscriptionUid: str, request: Request, account: DeviceWriter, svc: AppServices
) -> Response:
    body = await body_at_most(request, MAX_BYTES)
    text = csv_text(request.headers.get("content-type", "text/csv"), body)
    failed = await run_in_threadpool(_run, svc, account, kmSubscriptionUid, text)
    if not failed:
        return Response(status_code=200)
    return JSONResponse({"code": INVALID, "message": format_import_errors(failed)})
