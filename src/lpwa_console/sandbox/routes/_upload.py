"""Reading an uploaded file with bounded memory, shared by the imports (CSV) and the
catalog routes: the body is spooled to a temporary file as it arrives (refused past a
size), the multipart field is found by scanning that file, and a CSV is read line by line
with a cap on a line's length and on how many lines one record may span.

Memory is a megabyte or so whatever the file: the issue's 20 MB CSV of bad lines had cost
11 GB when the whole text, every parsed row and every error were kept at once.
"""

from __future__ import annotations

import csv
import email.message
import email.parser
import io
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from itertools import islice
from typing import IO, Any, Protocol, TypeVar

from fastapi import Request
from fastapi.responses import JSONResponse
from starlette.responses import Response

from ...schema.common import ErrorBody
from ...schema.device_import import (
    ImportFailedLine,
    ImportLineError,
    RowError,
    format_import_errors,
)
from ..db import Database
from ..errors import INVALID, ApiError, bad_request, too_large
from ..long_work import let_requests_in, off_request

# Room for a multipart body's framing beyond the file's own limit.
FRAMING = 64 * 1024
# Bytes of a body kept in memory before the temporary file moves to disk.
SPOOL_IN_MEMORY = 1024 * 1024
# A device line is a few hundred bytes (an alarm 004 XML cell under a kilobyte): 16 KB is
# far above any real one, and bounds what one line's error can quote.
MAX_LINE = 16 * 1024
# A quoted cell may span lines; a record spanning more than this is not a device.
MAX_RECORD_LINES = 64
# Refused lines listed in detail; the others are counted (each listed one costs a few KB).
MAX_LISTED = 1000
# Device lines applied per import: they are applied in one transaction (all or nothing),
# which holds SQLite's write lock, and sign-in and every other write wait for it (at most
# SQLite's 30 s busy timeout). 10,000 rows take a few seconds; the console sends 500.
MAX_IMPORT_ROWS = 10_000
# What an error record quotes of a cell or a message.
MAX_QUOTED = 200
# Records read between two hand-overs of the GIL to the request thread (long_work.py).
YIELD_EVERY = 4
_CHUNK = 256 * 1024
_HEADERS_AT_MOST = 16 * 1024


async def spool_body(request: Request, limit: int, too_big: str) -> IO[bytes]:
    """The request body in a temporary file (in memory up to SPOOL_IN_MEMORY), refused with
    413 `too_big` as soon as it passes `limit` (a Content-Length over it before reading).
    The caller closes it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(too_big)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)  # noqa: SIM115
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large(too_big)
            spool.write(chunk)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


async def read_at_most(request: Request, limit: int) -> bytes | None:
    """A small body in memory, or None as soon as it passes `limit`."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


class Window(io.RawIOBase):
    """Bytes start..end of a seekable file, as a file of its own."""

    def __init__(self, file: IO[bytes], start: int, end: int) -> None:
        self.file, self.pos, self.end = file, start, end

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = min(len(buffer), self.end - self.pos)
        if n <= 0:
            return 0
        self.file.seek(self.pos)
        data = self.file.read(n)
        buffer[: len(data)] = data
        self.pos += len(data)
        return len(data)


def _delimiters(file: IO[bytes], needle: bytes) -> Iterator[int]:
    """Offsets of `needle` in `file`, read in chunks (the needle may straddle two); the
    caller may move the file's position between two of them."""
    offset, tail = 0, b""
    while True:
        file.seek(offset)
        chunk = file.read(_CHUNK)
        if not chunk:
            return
        data = tail + chunk
        base = offset - len(tail)
        at = data.find(needle)
        while at != -1:
            yield base + at
            file.seek(offset + len(chunk))
            at = data.find(needle, at + len(needle))
        tail = data[-(len(needle) - 1) :] if len(needle) > 1 else b""
        offset += len(chunk)


# Parts of a multipart upload looked at before giving up (a form sends one or two).
MAX_PARTS = 16

# The answer of an import (device and key manager): the reference's 200 is empty when every
# line was applied, else its `{code, message}` error document with the refused lines as a
# CSV in `message`. The empty one is `text/plain` (no JSON is empty), documented as such.
EMPTY_MEDIA_TYPE = "text/plain"
IMPORT_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": ErrorBody,
        "description": "Every line applied: an empty `text/plain` body. Otherwise"
        " `{code, message}` (JSON) with `message` a CSV of the refused lines:"
        " `EUI,line N,[code] message[,...]`",
        "content": {EMPTY_MEDIA_TYPE: {"schema": {"type": "string", "maxLength": 0}}},
    },
    413: {"model": ErrorBody, "description": "The file passes 64 MB, or a line 16 KB"},
}


def field_window(file: IO[bytes], content_type: str, name: str, limit: int, too_big: str) -> Window:
    """The bytes of the multipart field `name`, or the whole body when it is not multipart
    (400 when the field is missing, 413 `too_big` when they pass `limit`)."""
    window = _field(file, content_type, name)
    if window.end - window.pos > limit:
        raise too_large(too_big)
    return window


def _field(file: IO[bytes], content_type: str, name: str) -> Window:
    file.seek(0, io.SEEK_END)
    size = file.tell()
    if not content_type.lower().startswith("multipart/"):
        return Window(file, 0, size)
    message = email.message.Message()
    message["content-type"] = content_type
    boundary = message.get_param("boundary")
    if not isinstance(boundary, str) or not boundary:
        raise bad_request("Content-Type: a multipart body names its boundary")
    found = _delimiters(file, b"--" + boundary.encode("latin-1"))
    at = next(found, None)
    for _ in range(MAX_PARTS):
        following = next(found, None)
        if at is None or following is None:
            break
        file.seek(at)
        head = file.read(_HEADERS_AT_MOST)
        line_end = head.find(b"\r\n")
        headers_end = head.find(b"\r\n\r\n", max(line_end, 0))
        if line_end != -1 and headers_end != -1:
            headers = email.parser.BytesHeaderParser().parsebytes(
                head[line_end + 2 : headers_end + 2]
            )
            disposition = email.message.Message()
            disposition["content-type"] = "x/" + headers.get("content-disposition", "")
            if disposition.get_param("name") == name:
                start = at + headers_end + 4
                return Window(file, start, max(following - 2, start))  # (the CRLF before it)
        at = following
    raise bad_request(f"{name}: the multipart body has no field {name!r}")


class CsvLines:
    """The text lines of a CSV file, decoded as UTF-8 (a BOM dropped), each at most
    MAX_LINE bytes, a record at most MAX_RECORD_LINES lines (413/400 otherwise, naming the
    line). `records()` gives (line where the record starts, cells)."""

    def __init__(self, window: Window) -> None:
        self.reader = io.BufferedReader(window, _CHUNK)
        self.line = 0
        self.record_start = 1

    def __iter__(self) -> Iterator[str]:
        while raw := self.reader.readline(MAX_LINE + 1):
            self.line += 1
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                raise too_large(f"csv: line {self.line} is longer than {MAX_LINE // 1024} KB")
            if self.line - self.record_start >= MAX_RECORD_LINES:
                raise bad_request(
                    f"csv: the record of line {self.record_start} spans more than"
                    f" {MAX_RECORD_LINES} lines (a quote left open?)"
                )
            if self.line == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield raw.decode("utf-8")
            except UnicodeDecodeError:
                raise bad_request(f"csv: line {self.line} is not UTF-8 text") from None

    def records(self) -> Iterator[tuple[int, list[str]]]:
        reader = csv.reader(self)
        try:
            for cells in reader:
                yield self.record_start, cells
                self.record_start = reader.line_num + 1
                if self.record_start % YIELD_EVERY == 0:
                    let_requests_in()
        except csv.Error as exc:
            raise bad_request(f"csv: line {self.line}: {exc}") from None


def check_row_count(valid: int) -> None:
    """413 before anything is applied when the file holds more valid lines than one
    import applies."""
    if valid > MAX_IMPORT_ROWS:
        raise too_large(
            f"csv: {valid} device lines; at most {MAX_IMPORT_ROWS} per import (send the file"
            " in parts)"
        )


def _clip(text: str) -> str:
    return text if len(text) <= MAX_QUOTED else text[:MAX_QUOTED] + "…"


class FailedLines:
    """The refused lines of an import: the first MAX_LISTED in detail, the rest counted."""

    def __init__(self) -> None:
        self.listed: list[ImportFailedLine] = []
        self.more = 0

    def add(self, eui: str, line: int, errors: list[tuple[int, str]]) -> None:
        """A refused line: its EUI cell, its line in the file, (code, message) each."""
        if len(self.listed) >= MAX_LISTED:
            self.more += 1
            return
        listed = [ImportLineError(code=str(code), message=_clip(text)) for code, text in errors]
        self.listed.append(ImportFailedLine(EUI=_clip(eui), line=line, errors=listed))

    def answer(self) -> Response:
        """The reference's answer: empty 200 when nothing was refused, else the error CSV;
        lines past MAX_LISTED are one last record of line 0, which names no line of the
        file (a client then knows those it sent are not all accounted for)."""
        if not self.listed:
            # Empty, as the reference says, and typed, as IMPORT_RESPONSES documents it.
            return Response(status_code=200, media_type=EMPTY_MEDIA_TYPE)
        message = format_import_errors(self.listed)
        if self.more:
            message += format_import_errors(
                [
                    ImportFailedLine(
                        EUI="",
                        line=0,
                        errors=[
                            ImportLineError(
                                code=str(INVALID),
                                message=f"{self.more} more lines were refused (not listed:"
                                f" at most {MAX_LISTED} are)",
                            )
                        ],
                    )
                ]
            )
        return JSONResponse({"code": INVALID, "message": message})


# --- a CSV import route ---------------------------------------------------------------------

MAX_IMPORT_BYTES = 64 * 1024 * 1024
TOO_BIG_IMPORT = f"csv: at most {MAX_IMPORT_BYTES >> 20} MB per import"


def csv_lines(upload: IO[bytes], content_type: str) -> CsvLines:
    """The import file's lines: the `csv` field of a multipart body, or the whole body."""
    return CsvLines(field_window(upload, content_type, "csv", MAX_IMPORT_BYTES, TOO_BIG_IMPORT))


async def import_answer(request: Request, run: Callable[[IO[bytes], str], FailedLines]) -> Response:
    """The body spooled (64 MB at most), `run(upload, content_type)` on the long-work lane,
    and the refused lines' answer."""
    upload = await spool_body(request, MAX_IMPORT_BYTES + FRAMING, TOO_BIG_IMPORT)
    content_type = request.headers.get("content-type", "text/csv")
    try:
        failed = await off_request(request, run, upload, content_type)
    finally:
        upload.close()
    return failed.answer()


class CsvRow(Protocol):
    """What the imports read of a parsed line (`ImportRow`, `KmImportRow`)."""

    row: int
    EUI: str | None
    errors: list[RowError]

    @property
    def ok(self) -> bool: ...

    def cell(self, letter: str) -> str: ...


R = TypeVar("R", bound=CsvRow)


def import_rows(
    db: Database,
    upload: IO[bytes],
    content_type: str,
    parse: Callable[[int, list[str]], R | None],
    applier: Callable[[sqlite3.Connection, list[R]], Callable[[R], object]],
    batch: int = 1,
) -> FailedLines:
    """An import read twice: the schema's refusals and the count first, without the write
    lock (a file of bad lines never holds it), then the valid rows in one transaction, `batch`
    at a time: `applier(conn, rows)` gives what applies one of them (an ApiError refuses
    that line, the others go on). `parse` makes a record a row (None for a comment or empty
    line)."""

    def rows() -> Iterator[R]:
        for start, cells in csv_lines(upload, content_type).records():
            row = parse(start, cells)
            if row is not None:
                yield row

    failed = FailedLines()
    valid = 0
    for row in rows():
        if row.ok:
            valid += 1
        else:
            errors = [
                (INVALID, f"column {e.column}: {e.message}" if e.column else e.message)
                for e in row.errors
            ]
            failed.add(row.EUI or row.cell("B"), row.row, errors)
    check_row_count(valid)
    if not valid:
        return failed  # (nothing to apply: no write lock, no second reading)
    valid_rows = (row for row in rows() if row.ok)
    with db.write() as conn:
        while rows_now := list(islice(valid_rows, batch)):
            apply = applier(conn, rows_now)
            for row in rows_now:
                try:
                    apply(row)
                except ApiError as exc:
                    failed.add(row.EUI or row.cell("B"), row.row, [(exc.code, exc.message)])
    return failed
