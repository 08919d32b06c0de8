"""`POST /subscriptions/mine/devices/import`: the CSV of Document 1 §2.10.

The file comes as the multipart field `csv` (or as the raw body, text/csv). Every line is
validated by the shared schema (schema.device_import, i.e. DeviceCreate/DeviceUpdate) and
applied with the device routes' rules (store/device_import.py). The file is read as it is
applied (routes/_upload.py: memory bounded whatever its size) on the long-work lane
(long_work.py), twice: the schema's refusals first, without the write lock (a file of bad
lines never holds it), then the valid lines (at most _upload.MAX_IMPORT_ROWS) in one
transaction: a refused line changes nothing and the others go on, and an import cut
short (a kill, a line too long) leaves nothing applied.

The answer is the platform's (public reference):
- every line applied: 200 with an empty body;
- some lines refused: 200 with the error document `{code, message}` (code INVALID) whose
  message is a CSV, one record per refused line: `EUI,line N,[code] message[,...]`, N the
  line of the file received where the record starts (1-based; comment and empty lines count,
  there is no header line), the codes those of sandbox/errors.py;
- past MAX_LISTED refused lines, one last record of line 0 counts the others;
- the request as a whole refused (rights, a bad `domain` parameter, a body that is not a
  UTF-8 CSV, a line longer than _upload.MAX_LINE): the usual error status, nothing applied.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from functools import partial
from typing import IO, Annotated

from fastapi import Query, Request, Response
from pydantic import ValidationError

from ...schema.device_import import ImportRow, parse_import_row
from ...schema.domains import Domain, domain_matches
from ..accounts import Account
from ..auth import AppServices, DeviceWriter, Services
from ..errors import OUT_OF_DOMAIN, bad_request, forbidden
from ..store import device_import as store
from ..store.clock import now_ms
from ._router import RecordedRouter
from ._upload import IMPORT_RESPONSES, FailedLines, import_answer, import_rows

router = RecordedRouter(prefix="/subscriptions/mine/devices", tags=["devices"])

DOMAIN_HELP = (
    "`group:name`, at most one per group: created devices get them; a deleted device must"
    " belong to them"
)


def _domain_parameter(items: list[str], account: Account) -> list[tuple[str, str]]:
    """`group:name` items, at most one per group, each a valid domain the caller may use."""
    pairs: list[tuple[str, str]] = []
    for item in items:
        group, sep, name = item.partition(":")
        try:
            if not sep:
                raise ValueError
            Domain.model_validate({"name": name, "group": {"name": group}})
        except (ValueError, ValidationError):
            raise bad_request(f"domain: expected group:name, not {item!r}") from None
        if any(g == group for g, _ in pairs):
            raise bad_request(f"domain: at most one domain per group; {group!r} is repeated")
        pairs.append((group, name))
    if pairs and not domain_matches(pairs, account.restrictions):
        raise forbidden("domain: outside the domains you are restricted to", OUT_OF_DOMAIN)
    return pairs


def _run(
    svc: Services, account: Account, upload: IO[bytes], content_type: str, *, domains: list[str]
) -> FailedLines:
    assert account.subscription_id is not None
    pairs = _domain_parameter(domains, account)
    ctx = store.context_for(
        account.subscription_id, account.restrictions, account.rights, pairs, now_ms()
    )

    def applier(conn: sqlite3.Connection, _: list[ImportRow]) -> Callable[[ImportRow], object]:
        return partial(store.apply, conn, ctx)

    return import_rows(svc.db, upload, content_type, parse_import_row, applier)


@router.post(
    "/import",
    responses=IMPORT_RESPONSES,
)
async def import_devices(
    request: Request,
    account: DeviceWriter,
    svc: AppServices,
    domain: Annotated[list[str] | None, Query(description=DOMAIN_HELP)] = None,
    forceDevAddrs: Annotated[
        bool, Query(deprecated=True, description="Deprecated; accepted and ignored")
    ] = False,
    # The sandbox has no task queue: `async` is accepted and ignored, and the answer is always
    # the synchronous one (200), never 202 with a task Location.
    async_: Annotated[
        str | None,
        Query(alias="async", description="Accepted and ignored: the sandbox answers at once"),
    ] = None,
) -> Response:
    return await import_answer(request, partial(_run, svc, account, domains=domain or []))
