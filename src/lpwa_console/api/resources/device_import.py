"""Bulk device import: `POST /subscriptions/mine/devices/import` (a CSV file, multipart field
`csv`, as the platform's contract says).

The answer (Document 1 §2.10 and the public reference): 200 with an empty body when every line
was applied; 200 with the error document `{code, message}` when some lines failed, `message`
being a CSV of the failed lines (`DevEUI,line N,[code] message[,...]`, N a line of the file
sent). `upload` turns either into one result per device line sent (schema.device_import):
lines not listed are OK, listed lines are ERROR with their errors. An answer it cannot read,
or a 202 (the import queued as a task, which this client never asks for), leaves every line
UNKNOWN with the server's text: nothing is reported as failed or done that the platform did
not say.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable

import httpx

from ...schema.device_import import (
    DeviceImportReport,
    ImportRow,
    SentLine,
    import_report,
    parse_import_errors,
    sent_lines_in,
    unknown_report,
    unreadable_answer,
    write_import_file,
)
from ..errors import APIConnectionError, APIStatusError
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
        """Send an import file and report per device line.

        csv: the file as text or bytes (results numbered by its own lines), or parsed rows,
        written back as a CSV (each result carries its row's number, the line of the user's
        file, whatever line it had in the file sent).
        domains: `group:name` items (at most one per group): created devices get them, and a
        device to delete must belong to them.
        force_dev_addrs: deprecated (the DevAddr of an OTAA device should not be assigned
        permanently); not sent unless given.

        Raises the client's errors when the request as a whole fails (e.g. 403, 400)."""
        sent: list[SentLine]
        if isinstance(csv, str | bytes):
            content = csv.encode("utf-8") if isinstance(csv, str) else csv
            text = csv if isinstance(csv, str) else csv.decode("utf-8-sig", errors="replace")
            sent = sent_lines_in(text)
        else:
            text, sent = write_import_file(list(csv))
            content = text.encode("utf-8")
        params = [("domain", d) for d in domains or []]
        if force_dev_addrs is not None:
            warnings.warn(
                "forceDevAddrs is deprecated: let the network server assign OTAA DevAddrs",
                DeprecationWarning,
                stacklevel=2,
            )
            params.append(("forceDevAddrs", "true" if force_dev_addrs else "false"))
        files = {"csv": (filename, content, "text/csv")}
        response = await self._client.request("POST", PATH, params=params, files=files)
        return read_import_answer(response, sent)


def read_import_answer(response: httpx.Response, sent: list[SentLine]) -> DeviceImportReport:
    """The per-line report of a 2xx answer to the lines `sent`."""
    if response.status_code == 202:
        where = response.headers.get("Location")
        return unknown_report(
            sent,
            "outcome unknown: the platform queued the import as a task"
            + (f" ({where})" if where else ""),
        )
    text = response.content.decode("utf-8", errors="replace").lstrip("\ufeff").strip()
    if not text:
        return import_report(sent, [])
    candidate: str | None
    try:
        body = json.loads(text)
    except ValueError:
        candidate = text  # not JSON: perhaps the error CSV itself
    else:
        if isinstance(body, dict) and isinstance(body.get("message"), str):
            candidate = body["message"]
        elif isinstance(body, str):
            candidate = body
        else:
            candidate = None
    if candidate is not None and candidate.strip():
        try:
            failed = parse_import_errors(candidate)
        except ValueError:
            failed = []
        if failed:
            return import_report(sent, failed)
    return unknown_report(sent, unreadable_answer(text))


def import_not_applied(exc: BaseException) -> bool:
    """True when a failed upload certainly changed nothing: the platform refused the whole
    request (4xx), or the connection never opened. A 5xx, a connection lost or a timeout
    after sending may have left the import done, partly or wholly: outcome unknown."""
    if isinstance(exc, APIStatusError):
        return 400 <= exc.status_code < 500
    if isinstance(exc, APIConnectionError):
        return isinstance(exc.__cause__, httpx.ConnectError | httpx.ConnectTimeout)
    return False
