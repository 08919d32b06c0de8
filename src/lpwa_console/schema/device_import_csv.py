"""The device import file (schema/device_import.py describes its columns): the column
tables, reading and checking each row against DeviceCreate / DeviceUpdate, and writing rows,
updates and templates back as CSV. The platform's answer is device_import_report.py's."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Literal, TypeVar, get_args
from xml.etree import ElementTree

from pydantic import ValidationError

from .common import accepting_deprecated_fields
from .devices import (
    AlarmsConfiguration,
    DeviceBrief,
    DeviceCreate,
    DeviceUpdate,
    hex_key,
    normalise_eui,
)
from .error_words import error_words

ImportOperation = Literal[
    "CREATE_ABP",
    "CREATE_OTAA",
    "CREATE_CELLULAR",
    "UPDATE_ABP",
    "UPDATE_OTAA",
    "UPDATE_CELLULAR",
    "DELETE",
]
IMPORT_OPERATIONS: tuple[ImportOperation, ...] = get_args(ImportOperation)
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
    _col("O", "alarmsConfiguration", "No-uplink alarm (004) thresholds", "alarm004"),
    _col("Q", "motionIndicator", "Motion indicator", "extra"),
    _col("T", "appServers", "Application server IDs", "refs"),
    _col("X", "exchangeKeyVersion", "Exchange key version", "extra"),
    _col("AB", "tags", "Tags", "tags"),
    _col("AC", "domains", "Domains", "domains"),
]
_LORAWAN = [
    _col("P", "verificationCode", "Verification code", deprecated=True),
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
# (An update's model change, with its compatibility rule, is the device form's, not the import's.)
_UPDATE_FIELDS = frozenset(DeviceUpdate.model_fields) - {"model"}


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


def alarm004_cell_words(text: str) -> str:
    """An alarm 004 cell as people read it ("Major after 2 days, Critical after 4 days");
    the cell itself when it does not read (its problem is said on its row)."""
    from .common import Severity
    from .durations import duration_words

    try:
        config = parse_alarm004_cell(text)
    except ValueError:
        return text
    parts = [
        f"{Severity(t.level).label} after {duration_words(t.duration)}"
        + (" (off)" if t.status == "DISABLE" else "")
        for t in config.alarm004 or []
    ]
    return ", ".join(parts) or "No threshold"


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
    label: str = ""  # the column's name ("DevEUI"): what the user reads, not its letter

    @property
    def words(self) -> str:
        """The problem as a row's line says it: "DevEUI: 'G' is not a hexadecimal digit"."""
        name = self.label or (f"column {self.column}" if self.column else "")
        if not name or self.message.startswith(f"{name}"):
            return self.message
        return f"{name}: {self.message}"

    def __str__(self) -> str:
        return f"row {self.row}: {self.words}"


OperationT = TypeVar("OperationT", bound=str)
RequestT = TypeVar("RequestT")


@dataclass(slots=True)
class ImportLine(Generic[OperationT, RequestT]):
    """One device line of an import file (the network's devices, or the key manager's:
    schema/km_import.py), with what the schema made of it: its row (line) number, cells,
    operation, EUI, the request it makes and its problems."""

    row: int
    cells: list[str]
    operation: OperationT | None = None
    EUI: str | None = None
    device: RequestT | None = None
    errors: list[RowError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def cell(self, letter: str) -> str:
        index = column_index(letter)
        return self.cells[index].strip() if index < len(self.cells) else ""


@dataclass(slots=True)
class ImportRow(ImportLine[ImportOperation, DeviceCreate | DeviceUpdate]):
    """One line of the device import file; `extras` holds the cells kept aside."""

    extras: dict[str, str] = field(default_factory=dict)


def _split(text: str) -> list[str]:
    return [item.strip() for item in text.split(LIST_SEPARATOR) if item.strip()]


def _domain(item: str) -> dict[str, Any]:
    group, sep, name = item.partition(":")
    if not sep or not group.strip() or not name.strip():
        raise ValueError(f"a domain is written group:name, not {item!r}")
    return {"name": name.strip(), "group": {"name": group.strip()}}


_TRAILING_ID = re.compile(r"\(([^()]+)\)\s*$")


def reference_id(text: str) -> str:
    """The ID in a cell: as typed, or as the device form shows a reference, "name (ID)"
    (a cell copied from the form is accepted)."""
    found = _TRAILING_ID.search(text)
    return found.group(1).strip() if found and found.start() > 0 else text


def unknown_model_error(row: ImportRow, known: set[str]) -> RowError | None:
    """The row's device profile when the platform does not list it (checked before
    sending: the platform would refuse the line with a bare code)."""
    device = row.device
    model = getattr(device, "model", None)
    ident = getattr(model, "ID", None)
    if not ident or ident in known:
        return None
    return RowError(
        row.row,
        "D",
        f"the platform has no device profile “{ident}”: use an ID its catalog lists"
        " (the device form's Device profile shows them as name (ID))",
        "Device profile ID",
    )


def _read_cell(column: ImportColumn, text: str, row: ImportRow) -> tuple[str, Any]:
    """(field, value) for the model, or for extras when the field is not a device field."""
    kind = column.kind
    if kind == "float":
        try:
            return column.field, float(text)
        except ValueError:
            raise ValueError(f"{column.label} must be a number") from None
    if kind == "ref":
        return column.field, {"ID": reference_id(text)}
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
    return error_words(exc.errors()[0])


def _parse_row(number: int, cells: list[str]) -> ImportRow | None:
    """One line read and checked; each problem named by its column's name."""
    row = _check_row(number, cells)
    if row is not None and row.errors and row.operation is not None:
        columns = IMPORT_COLUMNS[row.operation]
        row.errors[:] = [
            replace(e, label=columns[e.column].label) if e.column in columns else e
            for e in row.errors
        ]
    return row


def _check_row(number: int, cells: list[str]) -> ImportRow | None:
    row = ImportRow(row=number, cells=cells)
    if not is_device_line(cells):
        return None
    first = cells[0].strip()
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
            row.warnings.append(f"column {letter} is not used to {OPERATION_HELP[op]}; ignored")
            continue
        if not creating and not column.updatable and op != "DELETE":
            row.errors.append(
                RowError(number, letter, f"{column.label} cannot be changed by an update")
            )
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
            row.EUI = normalise_eui(connectivity, raw_eui) if op != "DELETE" else any_eui(raw_eui)
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
        with accepting_deprecated_fields():  # a file's deprecated columns are accepted
            device = model.model_validate(data)
    except ValidationError as exc:
        # Every problem once per column: a cell already refused is not reported again.
        seen = {e.column for e in row.errors}
        for error in exc.errors():
            key = str(error["loc"][0]) if error["loc"] else ""
            raw = str(error["msg"]).removeprefix("Value error, ")
            message = error_words(error)  # "at most 90", not pydantic's sentence
            letter = (
                "B" if key == "EUI" else letter_of.get(key) or _letter_for_message(columns, raw)
            )
            if letter not in seen or not letter:
                seen.add(letter)
                row.errors.append(RowError(number, letter, message))
        return row
    if not row.errors:
        row.device = device
    return row


def any_eui(text: str) -> str:
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


def csv_records(text: str) -> Iterator[tuple[int, int, list[str]]]:
    """(line, record, cells) for every CSV record of `text`: `line` is the 1-based line where
    the record starts (a quoted cell may span lines), `record` its 1-based position; empty
    lines and comment lines count as records too."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    start = 1
    for record, cells in enumerate(reader, start=1):
        yield start, record, cells
        start = reader.line_num + 1


def is_device_line(cells: Sequence[str]) -> bool:
    return bool(cells) and not cells[0].strip().startswith("#") and any(c.strip() for c in cells)


def parse_import_row(number: int, cells: list[str]) -> ImportRow | None:
    """One record of the file at line `number`, validated (None for a comment or empty
    line): for a reader that streams the records."""
    return _parse_row(number, cells)


def parse_import_csv(text: str) -> list[ImportRow]:
    """Every device line of the file (comments and empty lines skipped), each validated.

    Row numbers are the file's line numbers (1-based) where the record starts."""
    return parse_lines(text, _parse_row)


LineT = TypeVar("LineT", bound="ImportLine[Any, Any]")


def parse_lines(text: str, parse_row: Callable[[int, list[str]], LineT | None]) -> list[LineT]:
    """Every device line of an import file, as `parse_row` reads the record starting at a
    line (None for a comment or empty line): the device and key manager imports'."""
    rows: list[LineT] = []
    for start, _record, cells in csv_records(text):
        row = parse_row(start, cells)
        if row is not None:
            rows.append(row)
    return rows


# --- writing ---------------------------------------------------------------------------------


def trimmed_cells(cells: Sequence[str]) -> list[str]:
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
        writer.writerow(trimmed_cells(row.cells if isinstance(row, ImportRow) else row))
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
        # Read from __dict__: getattr warns for deprecated fields, and catch_warnings would
        # change the process-wide filters from whichever thread writes the file.
        values = {name: device.__dict__[name] for name in device.model_fields_set}
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
    return trimmed_cells(cells)


def update_operation(brief: DeviceBrief) -> ImportOperation:
    """The UPDATE operation of an existing device's kind."""
    if brief.connectivity == "CELLULAR":
        return "UPDATE_CELLULAR"
    return "UPDATE_ABP" if brief.activation == "ABP" else "UPDATE_OTAA"


def brief_to_update_cells(brief: DeviceBrief) -> list[str]:
    """One UPDATE line for a listed device, with what the list tells of it and the columns an
    update may change: the console's export in the import format. Edit it in a spreadsheet
    and import it back; keys are never listed, so they are never in it."""
    operation = update_operation(brief)
    values: dict[str, Any] = {
        "EUI": brief.EUI,
        "name": brief.name if brief.name and brief.name != brief.EUI else None,
        "customerAdminData": brief.customerAdminData,
        "tags": brief.tags or None,
        "domains": brief.domains or None,
        "appServers": brief.appServers or None,
    }
    if operation == "UPDATE_CELLULAR":
        values |= {"imsi": brief.imsi, "networkContextID": brief.networkContextID}
    columns = IMPORT_COLUMNS[operation]
    cells = [""] * (max(column_index(letter) for letter in columns) + 1)
    cells[0] = operation
    for letter, column in columns.items():
        value = values.get(column.field)
        if letter != "A" and value is not None and (column.updatable or letter == "B"):
            cells[column_index(letter)] = _cell_text(column, value)
    return trimmed_cells(cells)


IMPORT_FILE_HEADER = (
    "# LPWA Console export in the device import format: one UPDATE line per device.\r\n"
    "# Change names / tags / domains / application servers; then import this file back.\r\n"
)


# --- the format in words, and templates -----------------------------------------------------

OPERATION_HELP: dict[ImportOperation, str] = {
    "CREATE_OTAA": "create a LoRaWAN device that joins over the air (OTAA)",
    "CREATE_ABP": "create a LoRaWAN device activated by personalisation (ABP)",
    "CREATE_CELLULAR": "create a cellular device (IMEI and SIM)",
    "UPDATE_OTAA": "change an OTAA device (empty cells leave a field as it is)",
    "UPDATE_ABP": "change an ABP device (empty cells leave a field as it is)",
    "UPDATE_CELLULAR": "change a cellular device (empty cells leave a field as it is)",
    "DELETE": "delete a device",
}

CELL_HINTS: dict[str, str] = {
    "eui": "16 hexadecimal digits",
    "text": "text",
    "ref": "an ID known to the platform",
    "refs": "IDs separated by commas",
    "float": "a decimal number (degrees for a position)",
    "tags": "tag names separated by commas",
    "domains": "group:name items separated by commas (one per group)",
    "alarm004": '<alarm004><threshold1 status="..." level="..." duration="..."/></alarm004>',
    "appskey": "32 hexadecimal digits",
    "hex16": "16 hexadecimal digits",
    "hex32": "32 hexadecimal digits",
    "extra": "accepted as given",
}

# Where a column's kind says less than its field's rule.
FIELD_HINTS: dict[str, str] = {
    "nwAddress": "8 hexadecimal digits",
    "appEUI": "16 hexadecimal digits",
    "appKey": "32 hexadecimal digits",
    "imsi": "6 to 15 digits",
    "iccid": "the SIM card number (digits)",
}

_EXAMPLES: dict[str, str] = {
    "EUI": "70B3D5E75E000001",
    "nwAddress": "01ABCDEF",
    "model": "<device profile ID>",
    "name": "Water meter 12",
    "appEUI": "70B3D5E75E000000",
    "appKey": "00112233445566778899AABBCCDDEEFF",
    "appSKey": "00112233445566778899AABBCCDDEEFF",
    "nwkSKey": "FFEEDDCCBBAA99887766554433221100",
    "adminLat": "48.8566",
    "adminLon": "2.3522",
    "appServers": "<application server ID>",
    "tags": "water,building-7",
    "domains": "Site:France/Paris",
    "imsi": "208011234567890",
}


def format_rows(operation: ImportOperation) -> list[tuple[str, str, str, bool]]:
    """(letter, label, what the cell holds, required) of each column `operation` reads,
    deprecated columns left out: the format as the import wizard describes it."""
    creating = operation.startswith("CREATE")
    out = []
    states: list[str] = []  # the LoRaWAN state columns, described as one range
    for letter, column in IMPORT_COLUMNS[operation].items():
        if column.deprecated or (not creating and not column.updatable and letter != "B"):
            continue
        if column.field.startswith("lorawanState"):
            states.append(letter)
            continue
        hint = FIELD_HINTS.get(column.field, CELL_HINTS[column.kind])
        if letter == "A":
            hint = "the operation"
        elif column.kind == "eui" and operation.endswith("CELLULAR"):
            hint = "15 digits (or 14 without the check digit)"
        required = letter in ("A", "B") or (creating and column.required)
        out.append((letter, column.label, hint, required))
    if states:
        span = f"{states[0]}-{states[-1]}"
        out.append((span, "LoRaWAN session state", "for moving devices between platforms", False))
    return out


def import_template(operation: ImportOperation) -> str:
    """A file to start from: the format in comment lines and one example line, commented
    out, so the template imports nothing until the user writes lines of their own."""
    lines = [
        f"# Device import template: {operation}, to {OPERATION_HELP[operation]}.",
        "# One device per line; no header line; lines starting with # are comments.",
        "# Columns (by spreadsheet letter):",
    ]
    for letter, label, hint, required in format_rows(operation):
        lines.append(f"#   {letter:<5} {label}{' (required)' if required else ''}: {hint}")
    creating = operation.startswith("CREATE")
    cells = [""] * (max(column_index(x) for x in IMPORT_COLUMNS[operation]) + 1)
    for letter, column in IMPORT_COLUMNS[operation].items():
        shown = column.required or column.field in ("name", "tags")
        if not column.deprecated and shown and (creating or column.updatable or letter == "B"):
            cells[column_index(letter)] = _EXAMPLES.get(column.field, "")
    cells[0] = operation
    if operation.endswith("CELLULAR"):
        cells[1] = "356938035643809"  # an IMEI with its check digit
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(trimmed_cells(cells))
    lines += ["# Example (remove the # to use it):", "# " + buffer.getvalue()]
    return "\r\n".join(lines) + "\r\n"
