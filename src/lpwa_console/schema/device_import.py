"""Device import CSV (`POST /subscriptions/mine/devices/import`, Document 1 §2.10).

A file without header: one device per line, columns named by letters (A, B, ... Z, AA, AB ...).
Column A is the operation; lines whose column A starts with `#` are comments; empty lines are
skipped. The letters follow the platform's published import format:

  letter  LoRaWAN ABP               LoRaWAN OTAA                  Cellular
  A       operation                 operation                     operation
  B       DevEUI                    DevEUI                        IMEI (14 or 15 digits)
  C       DevAddr (required)        DevAddr (deprecated)          IMSI (required at creation)
  D       device profile ID         device profile ID             device profile ID
  E       NwkSKey (hex 32)          AppEUI/JoinEUI (hex 16)       SIM secret key Ki (hex 32)
  F       AppSKey (hex 32, one key) AppKey (hex 32)               -
  H       network subscription ID   network subscription ID       network subscription ID
  I       AS routing profile ID     AS routing profile ID         AS routing profile ID
  J       maker ID (deprecated)     maker ID (deprecated)         maker ID (deprecated)
  K       name (empty: the DevEUI)  name                          name (empty: the IMEI)
  L, M    admin latitude, longitude (together)
  N       other admin info (customerAdminData)
  O       alarm 004 XML: <alarm004><threshold1 status="ENABLE" level="3" duration="P2D"/>
          <threshold2 .../></alarm004>; empty: the default (level 3 after P2D, level 5 after P4D)
  P       verification code (deprecated, LoRaWAN)
  Q       motion indicator
  R       -                         HSM group ID                  ICCID (our choice)
  S       -                         HSM AppKey version            network context ID (ours)
  T       application server IDs, comma-separated (LoRaWAN; our choice for cellular too)
  U       SNwkSIntKey (1.1, hex 32) NwkKey (1.1, hex 32)          eID (our choice)
  V       NwkSEncKey (1.1, hex 32)  HSM NwkKey version            -
  W       -                         AS transport key ID           -
  X       exchange key version      exchange key version          exchange key version
  Y       -                         owner token                   -
  Z       protocol identifier       protocol identifier           -
  AA      device state              device state                  -
  AB      tag names, comma-separated (creation and update)
  AC      domains, comma-separated `group:name` (creation and update)
  AD..AK  LoRaWAN state of a migrated 1.0 device (ABP); AD..AO for OTAA (kept, not checked)

Operations: CREATE_ABP (also `CREATE` or empty, as the platform accepts), CREATE_OTAA,
CREATE_CELLULAR, UPDATE_ABP, UPDATE_OTAA, UPDATE_CELLULAR, DELETE (column B only).
An update changes only the non-empty cells; a cell of a column the update cannot change
(profile, DevAddr, AppEUI, AppKey, ICCID, eID) is an error. A non-empty cell in a column the
operation does not use is a warning and is ignored.

Every CREATE row is validated by schema.devices.DeviceCreate and every UPDATE row by
DeviceUpdate: the errors come back per row with the row (line) number and the column letter.
Keys encrypted with an exchange key (column X) are not hexadecimal: such files cannot be
checked here and their key cells are reported as errors.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from xml.etree import ElementTree

from pydantic import Field, ValidationError

from .common import ApiModel
from .devices import (
    AlarmsConfiguration,
    DeviceCreate,
    DeviceUpdate,
    hex_key,
    normalise_eui,
)

ImportOperation = Literal[
    "CREATE_ABP",
    "CREATE_OTAA",
    "CREATE_CELLULAR",
    "UPDATE_ABP",
    "UPDATE_OTAA",
    "UPDATE_CELLULAR",
    "DELETE",
]
IMPORT_OPERATIONS: tuple[ImportOperation, ...] = (
    "CREATE_ABP",
    "CREATE_OTAA",
    "CREATE_CELLULAR",
    "UPDATE_ABP",
    "UPDATE_OTAA",
    "UPDATE_CELLULAR",
    "DELETE",
)
OPERATION_ALIASES: dict[str, ImportOperation] = {"CREATE": "CREATE_ABP", "": "CREATE_ABP"}
LIST_SEPARATOR = ","

# How a cell is read:
#   eui      the device EUI/IMEI               text    a string
#   ref      {"ID": cell}                      refs    [{"ID": x}, ...] from a list
#   float    a number                          tags    [{"name": x}, ...] from a list
#   domains  [{"name", "group"}] from `group:name` items
#   alarm004 the alarm004 XML document         appskey the AppSKey (or deprecated XML)
#   hex16/hex32 a key kept aside (extras) after a hexadecimal check
#   extra    kept aside as is (extras), not checked
CellKind = Literal[
    "eui", "text", "ref", "refs", "float", "tags", "domains", "alarm004", "appskey",
    "hex16", "hex32", "extra",
]  # fmt: skip


def column_letter(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA, 27 -> AB."""
    if index < 0:
        raise ValueError("a column index is at least 0")
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def column_index(letter: str) -> int:
    """A -> 0, Z -> 25, AA -> 26."""
    value = 0
    for char in letter.upper():
        if not "A" <= char <= "Z":
            raise ValueError(f"{letter!r} is not a column letter")
        value = value * 26 + ord(char) - ord("A") + 1
    return value - 1


@dataclass(frozen=True, slots=True)
class ImportColumn:
    """One column of one operation: its letter, the device field (or extras key) it fills,
    how to read it, and its rules."""

    letter: str
    field: str
    label: str
    kind: CellKind = "text"
    required: bool = False
    deprecated: bool = False
    # False for a column an update cannot change (the cell must stay empty).
    updatable: bool = True


def _col(
    letter: str, field: str, label: str, kind: CellKind = "text", **rules: bool
) -> ImportColumn:
    return ImportColumn(letter, field, label, kind, **rules)


_COMMON = [
    _col("B", "EUI", "DevEUI", "eui", required=True),
    _col("D", "model", "Device profile ID", "ref", required=True, updatable=False),
    _col("H", "networkSubscriptionID", "Network subscription ID", "extra"),
    _col("I", "appServersRoutingProfile", "AS routing profile ID", "ref"),
    _col("J", "makerID", "Maker ID", "extra", deprecated=True),
    _col("K", "name", "Name"),
    _col("L", "adminLat", "Admin latitude", "float"),
    _col("M", "adminLon", "Admin longitude", "float"),
    _col("N", "customerAdminData", "Other admin info"),
    _col("O", "alarmsConfiguration", "Alarm 004 configuration", "alarm004"),
    _col("Q", "motionIndicator", "Motion indicator", "extra"),
    _col("X", "exchangeKeyVersion", "Exchange key version", "extra"),
    _col("AB", "tags", "Tags", "tags"),
    _col("AC", "domains", "Domains", "domains"),
]
_LORAWAN = [
    _col("P", "verificationCode", "Verification code", deprecated=True),
    _col("T", "appServers", "Application server IDs", "refs"),
    _col("Z", "protocolID", "Protocol identifier", "extra"),
    _col("AA", "deviceState", "Device state", "extra"),
]


def _letters(first: str, last: str) -> list[str]:
    return [column_letter(i) for i in range(column_index(first), column_index(last) + 1)]


_ABP = [
    _col("C", "nwAddress", "DevAddr", required=True, updatable=False),
    _col("E", "nwkSKey", "NwkSKey", "hex32"),
    _col("F", "appSKey", "AppSKey", "appskey", required=True),
    _col("U", "sNwkSIntKey", "SNwkSIntKey", "hex32"),
    _col("V", "nwkSEncKey", "NwkSEncKey", "hex32"),
    *(_col(x, f"lorawanState{x}", f"LoRaWAN state ({x})", "extra") for x in _letters("AD", "AK")),
]
_OTAA = [
    _col("C", "nwAddress", "DevAddr", deprecated=True, updatable=False),
    _col("E", "appEUI", "AppEUI/JoinEUI", updatable=False),
    _col("F", "appKey", "AppKey", updatable=False),
    _col("R", "hsmGroupID", "HSM group ID"),
    _col("S", "hsmAppKeyVersion", "HSM AppKey version", "extra"),
    _col("U", "nwkKey", "NwkKey", "hex32"),
    _col("V", "hsmNwkKeyVersion", "HSM NwkKey version", "extra"),
    _col("W", "asTransportKey", "AS transport key ID", "ref"),
    _col("Y", "ownerToken", "Owner token", "extra"),
    *(_col(x, f"lorawanState{x}", f"LoRaWAN state ({x})", "extra") for x in _letters("AD", "AO")),
]
_CELLULAR = [
    _col("B", "EUI", "IMEI", "eui", required=True),
    _col("C", "imsi", "IMSI", required=True),
    _col("E", "ki", "SIM secret key (Ki)", "hex32"),
    _col("T", "appServers", "Application server IDs", "refs"),
    _col("R", "iccid", "ICCID", updatable=False),
    _col("S", "networkContextID", "Network context ID"),
    _col("U", "eid", "eID", updatable=False),
]


def _table(*groups: list[ImportColumn]) -> dict[str, ImportColumn]:
    table: dict[str, ImportColumn] = {"A": _col("A", "operation", "Operation")}
    for group in groups:
        for column in group:
            table[column.letter] = column
    return dict(sorted(table.items(), key=lambda item: column_index(item[0])))


# Letter -> column, for each operation (updates use their creation's letters).
_ABP_TABLE = _table(_COMMON, _LORAWAN, _ABP)
_OTAA_TABLE = _table(_COMMON, _LORAWAN, _OTAA)
_CELLULAR_TABLE = _table(_COMMON, _CELLULAR)
IMPORT_COLUMNS: dict[ImportOperation, dict[str, ImportColumn]] = {
    "CREATE_ABP": _ABP_TABLE,
    "UPDATE_ABP": _ABP_TABLE,
    "CREATE_OTAA": _OTAA_TABLE,
    "UPDATE_OTAA": _OTAA_TABLE,
    "CREATE_CELLULAR": _CELLULAR_TABLE,
    "UPDATE_CELLULAR": _CELLULAR_TABLE,
    "DELETE": {
        "A": _col("A", "operation", "Operation"),
        "B": _col("B", "EUI", "EUI", "eui", required=True),
    },
}

# Fields of DeviceCreate / DeviceUpdate the columns fill; the rest go to ImportRow.extras.
_CREATE_FIELDS = frozenset(DeviceCreate.model_fields) - {"appServersRoutingProfile"}
_UPDATE_FIELDS = frozenset(DeviceUpdate.model_fields)


def connectivity_of(operation: ImportOperation) -> Literal["LORAWAN", "CELLULAR"]:
    return "CELLULAR" if operation.endswith("_CELLULAR") else "LORAWAN"


def activation_of(operation: ImportOperation) -> Literal["ABP", "OTAA"] | None:
    if operation.endswith("_ABP"):
        return "ABP"
    if operation.endswith("_OTAA"):
        return "OTAA"
    return None


# --- alarm 004 cell --------------------------------------------------------------------------


def parse_alarm004_cell(text: str) -> AlarmsConfiguration:
    """`<alarm004><threshold1 status=".." level=".." duration=".."/><threshold2 .../></alarm004>`."""
    try:
        root = ElementTree.fromstring(text)
    except ElementTree.ParseError as exc:
        raise ValueError(f"alarm 004 is not well-formed XML: {exc}") from None
    if root.tag != "alarm004":
        raise ValueError("alarm 004: the root element must be <alarm004>")
    thresholds: list[dict[str, str]] = []
    for name in ("threshold1", "threshold2"):
        element = root.find(name)
        if element is not None:
            thresholds.append(dict(element.attrib))
    unknown = [child.tag for child in root if child.tag not in ("threshold1", "threshold2")]
    if unknown:
        raise ValueError(f"alarm 004: unknown element <{unknown[0]}>")
    if root.find("threshold2") is not None and root.find("threshold1") is None:
        raise ValueError("alarm 004: threshold2 needs threshold1")
    try:
        return AlarmsConfiguration.model_validate({"alarm004": thresholds})
    except ValidationError as exc:
        raise ValueError("alarm 004: " + _first_message(exc)) from None


def format_alarm004_cell(config: AlarmsConfiguration) -> str:
    parts = [
        f'<threshold{i} status="{t.status}" level="{t.level}" duration="{t.duration}"/>'
        for i, t in enumerate(config.alarm004 or [], start=1)
    ]
    return "<alarm004>" + "".join(parts) + "</alarm004>"


# --- rows ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RowError:
    """A problem in one row: the row (line) number, the column letter ("" for the whole row)
    and a message."""

    row: int
    column: str
    message: str

    def __str__(self) -> str:
        where = f"row {self.row}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.message}"


@dataclass(slots=True)
class ImportRow:
    """One device line of an import file, with what the schema made of it."""

    row: int
    cells: list[str]
    operation: ImportOperation | None = None
    EUI: str | None = None
    device: DeviceCreate | DeviceUpdate | None = None
    extras: dict[str, str] = field(default_factory=dict)
    errors: list[RowError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def cell(self, letter: str) -> str:
        index = column_index(letter)
        return self.cells[index].strip() if index < len(self.cells) else ""


def _split(text: str) -> list[str]:
    return [item.strip() for item in text.split(LIST_SEPARATOR) if item.strip()]


def _domain(item: str) -> dict[str, Any]:
    group, sep, name = item.partition(":")
    if not sep or not group.strip() or not name.strip():
        raise ValueError(f"a domain is written group:name, not {item!r}")
    return {"name": name.strip(), "group": {"name": group.strip()}}


def _read_cell(column: ImportColumn, text: str, row: ImportRow) -> tuple[str, Any]:
    """(field, value) for the model, or for extras when the field is not a device field."""
    kind = column.kind
    if kind == "float":
        try:
            return column.field, float(text)
        except ValueError:
            raise ValueError(f"{column.label} must be a number") from None
    if kind == "ref":
        return column.field, {"ID": text}
    if kind == "refs":
        return column.field, [{"ID": item} for item in _split(text)]
    if kind == "tags":
        return column.field, [{"name": item} for item in _split(text)]
    if kind == "domains":
        return column.field, [_domain(item) for item in _split(text)]
    if kind == "alarm004":
        return column.field, parse_alarm004_cell(text).model_dump(exclude_unset=True)
    if kind == "appskey":
        if text.startswith("<"):
            row.warnings.append(f"column {column.letter}: the XML AppSKey format is deprecated")
            return "appKeys", text
        return column.field, text
    if kind in ("hex16", "hex32"):
        digits = 16 if kind == "hex16" else 32
        key = hex_key(text, digits=digits, what=column.label)
        assert key is not None
        return column.field, key
    return column.field, text


def _first_message(exc: ValidationError) -> str:
    message = str(exc.errors()[0]["msg"])
    return message.removeprefix("Value error, ")


def _parse_row(number: int, cells: list[str]) -> ImportRow | None:
    row = ImportRow(row=number, cells=cells)
    first = cells[0].strip() if cells else ""
    if first.startswith("#") or not any(c.strip() for c in cells):
        return None
    name = first.upper()
    operation = OPERATION_ALIASES.get(name, name)
    if operation not in IMPORT_OPERATIONS:
        row.errors.append(RowError(number, "A", f"unknown operation {first!r}"))
        return row
    op: ImportOperation = operation
    row.operation = op
    columns = IMPORT_COLUMNS[op]
    creating = op.startswith("CREATE")
    connectivity = connectivity_of(op)

    data: dict[str, Any] = {}
    letter_of: dict[str, str] = {}
    for index, raw in enumerate(cells[1:], start=1):
        text = raw.strip()
        if not text:
            continue
        letter = column_letter(index)
        column = columns.get(letter)
        if column is None:
            row.warnings.append(f"column {letter} is not used by {op}; ignored")
            continue
        if not creating and not column.updatable and op != "DELETE":
            row.errors.append(RowError(number, letter, f"{column.label} cannot be changed by {op}"))
            continue
        if column.deprecated:
            row.warnings.append(f"column {letter} ({column.label}) is deprecated")
        try:
            key, value = _read_cell(column, text, row)
        except ValueError as exc:
            row.errors.append(RowError(number, letter, str(exc)))
            continue
        letter_of[key] = letter
        data[key] = value

    for letter, column in columns.items():
        missing = column.required and letter not in letter_of.values()
        if (
            missing
            and (creating or letter == "B")
            and not any(e.column == letter for e in row.errors)
        ):
            row.errors.append(RowError(number, letter, f"{column.label} is required"))

    raw_eui = data.pop("EUI", None)
    if raw_eui is not None:
        try:
            row.EUI = normalise_eui(connectivity, raw_eui) if op != "DELETE" else _any_eui(raw_eui)
        except ValueError as exc:
            row.errors.append(RowError(number, "B", str(exc)))
    if op == "DELETE":
        return row

    model: type[DeviceCreate] | type[DeviceUpdate]
    fields = _CREATE_FIELDS if creating else _UPDATE_FIELDS
    for key in [k for k in data if k not in fields]:
        value = data.pop(key)
        row.extras[key] = value if isinstance(value, str) else str(value.get("ID", value))
    if creating:
        model = DeviceCreate
        data |= {"EUI": row.EUI or raw_eui or "", "connectivity": connectivity}
        if activation := activation_of(op):
            data["activation"] = activation
    else:
        model = DeviceUpdate
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            device = model.model_validate(data)
    except ValidationError as exc:
        # Every problem once per column: a cell already refused is not reported again.
        seen = {e.column for e in row.errors}
        for error in exc.errors():
            key = str(error["loc"][0]) if error["loc"] else ""
            message = str(error["msg"]).removeprefix("Value error, ")
            letter = (
                "B" if key == "EUI" else letter_of.get(key) or _letter_for_message(columns, message)
            )
            if letter not in seen or not letter:
                seen.add(letter)
                row.errors.append(RowError(number, letter, message))
        return row
    if not row.errors:
        row.device = device
    return row


def _any_eui(text: str) -> str:
    try:
        return normalise_eui("LORAWAN", text)
    except ValueError:
        try:
            return normalise_eui("CELLULAR", text)
        except ValueError:
            raise ValueError("not a DevEUI (16 hex digits) nor an IMEI (14 or 15 digits)") from None


def _letter_for_message(columns: Mapping[str, ImportColumn], message: str) -> str:
    """The column a whole-model rule speaks of, e.g. "needs its DevAddr" -> C."""
    for letter, column in columns.items():
        if letter == "A":
            continue
        if column.label in message or re.search(rf"\b{re.escape(column.field)}\b", message):
            return letter
    return ""


def parse_import_csv(text: str) -> list[ImportRow]:
    """Every device line of the file (comments and empty lines skipped), each validated.

    Row numbers are the file's line numbers (1-based) where the record starts."""
    rows: list[ImportRow] = []
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    start = 1
    for cells in reader:
        row = _parse_row(start, cells)
        if row is not None:
            rows.append(row)
        start = reader.line_num + 1
    return rows


# --- writing ---------------------------------------------------------------------------------


def _trimmed(cells: Sequence[str]) -> list[str]:
    out = list(cells)
    while out and not out[-1].strip():
        out.pop()
    return out


def write_import_csv(rows: Iterable[ImportRow | Sequence[str]]) -> str:
    """The rows as an import file (e.g. the failed rows, to fix and retry): each ImportRow as
    the cells it was read from; trailing empty cells dropped; lines end with CRLF."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    for row in rows:
        writer.writerow(_trimmed(row.cells if isinstance(row, ImportRow) else row))
    return buffer.getvalue()


def _cell_text(column: ImportColumn, value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if column.kind == "ref":
        return str(getattr(value, "ID", None) or value["ID"])
    if column.kind == "refs":
        return LIST_SEPARATOR.join(str(getattr(v, "ID", v)) for v in value)
    if column.kind == "tags":
        return LIST_SEPARATOR.join(str(getattr(v, "name", v)) for v in value)
    if column.kind == "domains":
        return LIST_SEPARATOR.join(f"{d.group.name}:{d.name}" for d in value)
    if column.kind == "alarm004":
        return format_alarm004_cell(value) if value.alarm004 else ""
    if column.kind == "float":
        return repr(float(value))
    return str(value)


def device_to_cells(
    operation: ImportOperation,
    device: DeviceCreate | DeviceUpdate | None = None,
    *,
    eui: str | None = None,
    extras: Mapping[str, str] | None = None,
) -> list[str]:
    """The cells of one line for `operation` from a device model (and extras by field name,
    e.g. {"networkSubscriptionID": "ns-1"}). For an update or a delete, give `eui`. Only the
    fields set on the model are written."""
    columns = IMPORT_COLUMNS[operation]
    width = max(column_index(letter) for letter in columns) + 1
    cells = [""] * width
    cells[0] = operation
    values: dict[str, Any] = {}
    if device is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            values = {name: getattr(device, name) for name in device.model_fields_set}
        if isinstance(device, DeviceCreate):
            values["EUI"] = device.EUI
            if device.name == device.EUI:
                values.pop("name", None)  # an empty name stands for the EUI
        if "appKeys" in values and "appSKey" not in values:
            values["appSKey"] = values.pop("appKeys")
    if eui is not None:
        values["EUI"] = eui
    values.update(extras or {})
    for letter, column in columns.items():
        if letter != "A" and column.field in values:
            cells[column_index(letter)] = _cell_text(column, values[column.field])
    return _trimmed(cells)


# --- the platform's answer -------------------------------------------------------------------

ImportStatus = Literal["OK", "ERROR"]


class ImportRowResult(ApiModel):
    """The outcome of one line: its row number, the device EUI, OK or ERROR with a message
    (and the column at fault when known)."""

    row: int
    EUI: str | None = None
    operation: str | None = None
    status: ImportStatus
    message: str | None = None
    column: str | None = None

    @classmethod
    def from_row(cls, row: ImportRow, message: str | None = None) -> ImportRowResult:
        """A result for a row already judged here: ERROR with its first problem, else OK."""
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
    """POST /subscriptions/mine/devices/import: one result per device line, plus totals."""

    results: list[ImportRowResult] = Field(default_factory=list)
    total: int = 0
    okCount: int = 0
    errorCount: int = 0
    message: str | None = None

    @classmethod
    def of(cls, results: Iterable[ImportRowResult]) -> DeviceImportReport:
        items = sorted(results, key=lambda r: r.row)
        errors = sum(1 for r in items if r.status == "ERROR")
        return cls(results=items, total=len(items), okCount=len(items) - errors, errorCount=errors)

    @property
    def failed_rows(self) -> list[int]:
        return [r.row for r in self.results if r.status == "ERROR"]


def failed_import_rows(rows: Iterable[ImportRow], report: DeviceImportReport) -> list[ImportRow]:
    """The rows to export for a retry: those the platform refused or that failed here."""
    failed = set(report.failed_rows)
    return [row for row in rows if row.row in failed or not row.ok]
