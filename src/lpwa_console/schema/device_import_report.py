"""The platform's answer to a device import (schema/device_import.py): its error CSV read
and written, the lines sent and where they land, and one result per device line."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from .common import ApiModel
from .device_import_csv import (
    OPERATION_ALIASES,
    ImportLine,
    ImportRow,
    any_eui,
    csv_records,
    is_device_line,
    trimmed_cells,
)

# --- the platform's answer -------------------------------------------------------------------
#
# `POST .../devices/import` answers 200 with an EMPTY body when every line was applied. When
# some lines fail it still answers 200, with the error document `{code, message}` whose
# `message` is itself a CSV, one record per failed line of the file it received:
#
#     <DevEUI>,line <N>,[<code>] <message>[,[<code>] <message>...]
#
# Lines not listed were applied. The file has no header line, so N counts the lines of the
# file as sent, from 1, comment (`#`) and empty lines included, at the line where the record
# starts. A cell holding a comma is quoted, as in any CSV.
#
# The console sends its own files (a batch of the user's rows written back by
# `write_import_file`): `SentLine` keeps, for every device line of the file sent, the line the
# platform will name and the row (line of the user's file) the result belongs to.

ImportStatus = Literal["OK", "ERROR", "UNKNOWN", "NOT_SENT"]

_LINE_CELL = re.compile(r"^(?:line)?\s*#?\s*(\d+)$", re.IGNORECASE)
_CODED_CELL = re.compile(r"^\s*\[\s*([^\]]*?)\s*\]\s?(.*)$", re.DOTALL)
UNREADABLE_PREVIEW = 300


class ImportLineError(ApiModel):
    """One `[code] message` item of a failed line."""

    code: str | None = None
    message: str

    def __str__(self) -> str:  # the error CSV's cell (written back and read again)
        return f"[{self.code}] {self.message}" if self.code else self.message


class ImportFailedLine(ApiModel):
    """One record of the error CSV: the DevEUI (or IMEI) the platform read, the line number
    in the file it received, and every error of that line."""

    EUI: str
    line: int
    errors: list[ImportLineError] = Field(default_factory=list)


def parse_import_errors(text: str) -> list[ImportFailedLine]:
    """The failed lines of the error CSV (the `message` of the answer). Blank records are
    skipped; a cell that does not start with `[code]` continues the previous message (a comma
    the platform did not quote). Raises ValueError on a record that is not
    `EUI,line N,...`."""
    out: list[ImportFailedLine] = []
    try:
        for _line, record, cells in csv_records(text):
            if not any(c.strip() for c in cells):
                continue
            if len(cells) < 2:
                raise ValueError(f"record {record}: expected EUI,line N,[code] message")
            number = _LINE_CELL.match(cells[1].strip())
            if number is None:
                raise ValueError(f"record {record}: {cells[1].strip()!r} is not a line number")
            raw: list[list[str]] = []  # [code or "", message as read (commas put back)]
            for cell in cells[2:]:
                coded = _CODED_CELL.match(cell)
                if coded is not None:
                    raw.append([coded[1], coded[2]])
                elif raw:
                    raw[-1][1] += "," + cell
                elif cell.strip():
                    raw.append(["", cell])
            errors = [
                ImportLineError(code=code or None, message=message.strip()) for code, message in raw
            ]
            out.append(
                ImportFailedLine(
                    EUI=cells[0].strip(),
                    line=int(number[1]),
                    errors=errors or [ImportLineError(message="refused (no detail given)")],
                )
            )
    except csv.Error as exc:
        raise ValueError(f"not a CSV: {exc}") from None
    return out


def format_import_errors(lines: Iterable[ImportFailedLine]) -> str:
    """The error CSV for `lines` (what the sandbox answers): one record per failed line;
    a line break inside a message becomes a space."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for item in lines:
        cells = [item.EUI, f"line {item.line}"]
        cells += [" ".join(str(error).split()) for error in item.errors]
        writer.writerow(cells)
    return buffer.getvalue()


@dataclass(frozen=True, slots=True)
class SentLine:
    """A device line of a file sent to the platform.

    line    where its record starts in the file sent (what the platform names)
    record  its record's position in that file (the same unless a quoted cell spans lines;
            kept to place the answer of a platform that counts records)
    row     the number its result carries: the line of the user's file
    """

    line: int
    record: int
    row: int
    EUI: str | None
    eui_cell: str
    operation: str | None


def write_import_file(rows: Sequence[ImportLine[Any, Any]]) -> tuple[str, list[SentLine]]:
    """The rows as the file to send (as `write_import_csv`) and, per row, where it lands: a
    device import's or a key manager import's (the same file rules)."""
    parts: list[str] = []
    sent: list[SentLine] = []
    chunk = io.StringIO()
    writer = csv.writer(chunk, lineterminator="\r\n")
    line = 1
    for record, row in enumerate(rows, start=1):
        chunk.seek(0)
        chunk.truncate()
        writer.writerow(trimmed_cells(row.cells))
        text = chunk.getvalue()
        parts.append(text)
        sent.append(SentLine(line, record, row.row, row.EUI, row.cell("B"), row.operation))
        line += text.count("\n")
    return "".join(parts), sent


def sent_lines_in(text: str) -> list[SentLine]:
    """The device lines of a file sent as is (comments and empty lines skipped); their rows
    are their own line numbers."""
    sent: list[SentLine] = []
    for line, record, cells in csv_records(text):
        if not is_device_line(cells):
            continue
        eui_cell = cells[1].strip() if len(cells) > 1 else ""
        try:
            eui: str | None = any_eui(eui_cell)
        except ValueError:
            eui = eui_cell or None
        name = cells[0].strip().upper()
        operation = OPERATION_ALIASES.get(name, name)
        sent.append(SentLine(line, record, line, eui, eui_cell, operation))
    return sent


class ImportRowResult(ApiModel):
    """The outcome of one device line: its row (the line of the user's file), the line of
    the file sent when it was sent, the EUI, and OK, ERROR (with the platform's errors, or
    the problems found here) or UNKNOWN (the answer did not say; `message` tells why)."""

    row: int
    line: int | None = None
    EUI: str | None = None
    operation: str | None = None
    status: ImportStatus
    message: str | None = None
    column: str | None = None
    errors: list[ImportLineError] = Field(default_factory=list)

    @classmethod
    def from_row(cls, row: ImportRow, message: str | None = None) -> ImportRowResult:
        """A result for a row already judged here: ERROR with its problems, else OK."""
        if row.errors:
            first = row.errors[0]
            return cls(
                row=row.row,
                EUI=row.EUI,
                operation=row.operation,
                status="ERROR",
                message="; ".join(e.message for e in row.errors),
                column=first.column or None,
            )
        return cls(row=row.row, EUI=row.EUI, operation=row.operation, status="OK", message=message)


class DeviceImportReport(ApiModel):
    """What the console makes of one or more import answers: one result per device line,
    plus totals. Not a wire shape (the platform answers as described above)."""

    results: list[ImportRowResult] = Field(default_factory=list)
    total: int = 0
    okCount: int = 0
    errorCount: int = 0
    unknownCount: int = 0
    notSentCount: int = 0  # an import cancelled before these rows were sent
    message: str | None = None

    @classmethod
    def of(
        cls, results: Iterable[ImportRowResult], message: str | None = None
    ) -> DeviceImportReport:
        items = sorted(results, key=lambda r: r.row)
        counts = Counter(r.status for r in items)
        # Built from results already validated: no second validation of 10,000 of them
        # (this runs on the console's UI thread when an import ends).
        return cls.model_construct(
            results=items,
            total=len(items),
            okCount=counts["OK"],
            errorCount=counts["ERROR"],
            unknownCount=counts["UNKNOWN"],
            notSentCount=counts["NOT_SENT"],
            message=message,
        )

    @property
    def failed_rows(self) -> list[int]:
        return [r.row for r in self.results if r.status == "ERROR"]

    @property
    def unknown_rows(self) -> list[int]:
        return [r.row for r in self.results if r.status == "UNKNOWN"]

    @property
    def not_sent_rows(self) -> list[int]:
        return [r.row for r in self.results if r.status == "NOT_SENT"]


def _eui_key(text: str | None) -> str:
    return re.sub(r"[^0-9A-Z]", "", (text or "").upper())


def _place(
    entry: ImportFailedLine,
    by_line: Mapping[int, SentLine],
    by_record: Mapping[int, SentLine],
    by_eui: Mapping[str, list[SentLine]],
) -> SentLine | None:
    """The sent line an error record speaks of: by line number when its EUI agrees, else
    by record number, else by EUI when only one sent line has it, else by line number."""
    key = _eui_key(entry.EUI)

    def agrees(sent: SentLine) -> bool:
        return not key or key in (_eui_key(sent.EUI), _eui_key(sent.eui_cell))

    for candidate in (by_line.get(entry.line), by_record.get(entry.line)):
        if candidate is not None and agrees(candidate):
            return candidate
    same = by_eui.get(key, [])
    if len(same) == 1:
        return same[0]
    return by_line.get(entry.line)


def import_report(
    sent: Sequence[SentLine], failed: Iterable[ImportFailedLine]
) -> DeviceImportReport:
    """Per sent line: ERROR with the errors the answer lists for it, else OK. When the
    answer lists a line that matches nothing sent, the lines it does not list are UNKNOWN
    (one of them may be the one it meant)."""
    by_line = {s.line: s for s in sent}
    by_record = {s.record: s for s in sent}
    by_eui: dict[str, list[SentLine]] = {}
    for s in sent:
        for key in {_eui_key(s.EUI), _eui_key(s.eui_cell)} - {""}:
            by_eui.setdefault(key, []).append(s)
    errors: dict[int, list[ImportLineError]] = {}
    unplaced: list[ImportFailedLine] = []
    for entry in failed:
        target = _place(entry, by_line, by_record, by_eui)
        if target is None:
            unplaced.append(entry)
        else:
            errors.setdefault(target.line, []).extend(entry.errors)
    note = None
    if unplaced:
        listed = "; ".join(
            f"{e.EUI or '?'} line {e.line}: " + ", ".join(x.message for x in e.errors)
            for e in unplaced[:3]
        )
        more = f" (and {len(unplaced) - 3} more)" if len(unplaced) > 3 else ""
        note = f"the platform reported errors for lines that match nothing sent: {listed}{more}"
    results: list[ImportRowResult] = []
    for s in sent:
        common: dict[str, Any] = {"row": s.row, "line": s.line, "EUI": s.EUI}
        common["operation"] = s.operation
        if s.line in errors:
            found = errors[s.line]
            # What the user reads: the platform's words, not its codes ("[40900]"), which
            # stay in `errors` (and in the failed rows' file).
            message = "; ".join(e.message for e in found)
            results.append(ImportRowResult(**common, status="ERROR", message=message, errors=found))
        elif note is not None:
            results.append(ImportRowResult(**common, status="UNKNOWN", message=note))
        else:
            results.append(ImportRowResult(**common, status="OK"))
    return DeviceImportReport.of(results, message=note)


def unknown_report(sent: Sequence[SentLine], message: str) -> DeviceImportReport:
    """Every sent line UNKNOWN, with `message` (e.g. the platform's unreadable answer)."""
    return DeviceImportReport.of(
        (
            ImportRowResult(
                row=s.row, line=s.line, EUI=s.EUI, operation=s.operation,
                status="UNKNOWN", message=message,
            )
            for s in sent
        ),
        message=message,
    )  # fmt: skip


def unreadable_answer(text: str) -> str:
    """The message of an UNKNOWN outcome: the server's text, shortened."""
    text = " ".join(text.split())
    if len(text) > UNREADABLE_PREVIEW:
        text = text[:UNREADABLE_PREVIEW] + "…"
    return f"outcome unknown: the platform answered something unreadable: {text or '(nothing)'}"


def failed_import_rows(
    rows: Iterable[ImportRow], report: DeviceImportReport, *, include_unknown: bool = True
) -> list[ImportRow]:
    """The rows to export for a retry: those the platform refused, those that failed here,
    those never sent, and (unless told otherwise) those whose outcome is unknown."""
    failed = set(report.failed_rows) | set(report.not_sent_rows)
    if include_unknown:
        failed |= set(report.unknown_rows)
    return [row for row in rows if row.row in failed or not row.ok]
