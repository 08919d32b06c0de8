"""`POST /subscriptions/mine/devices/import`: the CSV of Document 1 §2.10.

The file comes as the multipart field `csv` (or as the raw body, text/csv). Every line is
validated by the shared schema (schema.device_import, i.e. DeviceCreate/DeviceUpdate) and
applied with the device routes' rules; the answer has one result per device line (OK, or
ERROR with a message). Rows are applied in batches of BATCH, one transaction each.
"""

from __future__ import annotations

import email.parser
import email.policy
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ...schema.device_import import (
    DeviceImportReport,
    ImportRow,
    ImportRowResult,
    parse_import_csv,
)
from ...schema.domains import domain_matches
from ..accounts import Account
from ..auth import AppServices, DeviceWriter, Services
from ..errors import OUT_OF_DOMAIN, bad_request, forbidden
from ..store import device_import as store
from ..store.devices import now_ms

router = APIRouter(prefix="/subscriptions/mine/devices", tags=["devices"])

BATCH = 1000
MAX_BYTES = 64 * 1024 * 1024


def _csv_text(content_type: str, body: bytes) -> str:
    if content_type.lower().startswith("multipart/"):
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
        )
        parts = [
            p for p in message.iter_parts() if p.get_param("name", header="content-disposition")
        ]
        chosen = next(
            (p for p in parts if p.get_param("name", header="content-disposition") == "csv"),
            parts[0] if parts else None,
        )
        if chosen is None:
            raise bad_request("csv: the multipart body has no field 'csv'")
        payload = chosen.get_payload(decode=True)
        body = payload if isinstance(payload, bytes) else b""
    try:
        return body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise bad_request("csv: the file is not UTF-8 text") from None


def _refused(row: ImportRow, message: str) -> ImportRowResult:
    return ImportRowResult(
        row=row.row, EUI=row.EUI, operation=row.operation, status="ERROR", message=message
    )


def _run(svc: Services, account: Account, text: str, domains: list[str]) -> dict[str, Any]:
    assert account.subscription_id is not None
    pairs = []
    for item in domains:
        group, sep, name = item.partition(":")
        if not sep or not group or not name:
            raise bad_request(f"domain: expected group:name, not {item!r}")
        pairs.append((group, name))
    if pairs and not domain_matches(pairs, account.restrictions):
        raise forbidden("domain: outside the domains you are restricted to", OUT_OF_DOMAIN)
    rows = parse_import_csv(text)
    ctx = store.Context(account.subscription_id, account.restrictions, pairs, now_ms())
    results: list[ImportRowResult] = []
    for start in range(0, len(rows), BATCH):
        with svc.db.write() as conn:
            for row in rows[start : start + BATCH]:
                if not row.ok:
                    results.append(ImportRowResult.from_row(row))
                    continue
                try:
                    message = store.apply(conn, ctx, row)
                except store.RowRefused as exc:
                    results.append(_refused(row, str(exc)))
                    continue
                results.append(ImportRowResult.from_row(row, message))
    return DeviceImportReport.of(results).model_dump(exclude_none=True)


@router.post("/import", response_model=DeviceImportReport, response_model_exclude_none=True)
async def import_devices(
    request: Request,
    account: DeviceWriter,
    svc: AppServices,
    domain: Annotated[list[str] | None, Query()] = None,
    forceDevAddrs: Annotated[
        bool, Query(deprecated=True, description="Deprecated; accepted and ignored")
    ] = False,
) -> dict[str, Any]:
    body = await request.body()
    if len(body) > MAX_BYTES:
        raise bad_request(f"csv: at most {MAX_BYTES // (1024 * 1024)} MB per import")
    text = _csv_text(request.headers.get("content-type", "text/csv"), body)
    return await run_in_threadpool(_run, svc, account, text, domain or [])
