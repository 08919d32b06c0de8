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

The platform's answer (an empty body, or an error document whose message is a CSV of the
failed lines) is read by `parse_import_errors` and placed on the lines sent by `import_report`:
see "the platform's answer" below.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal
from xml.etree import ElementTree

from pydantic import Field, ValidationError

from .common import ApiModel, accepting_deprecated_fields
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
    _col("O", "alarmsConfiguration", "No-uplink alarm (004) thresholds", "alarm004"),
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


def _records(text: str) -> Iterator[tuple[int, int, list[str]]]:
    """(line, record, cells) for every CSV record of `text`: `line` is the 1-based line where
    the record starts (a quoted cell may span lines), `record` its 1-based position; empty
    lines and comment lines count as records too."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    start = 1
    for record, cells in enumerate(reader, start=1):
        yield start, record, cells
        start = reader.line_num + 1


def _is_device_line(cells: Sequence[str]) -> bool:
    return bool(cells) and not cells[0].strip().startswith("#") and any(c.strip() for c in cells)


def parse_import_row(number: int, cells: list[str]) -> ImportRow | None:
    """One record of the file at line `number`, validated (None for a comment or empty
    line): for a reader that streams the records."""
    return _parse_row(number, cells)


def parse_import_csv(text: str) -> list[ImportRow]:
    """Every device line of the file (comments and empty lines skipped), each validated.

    Row numbers are the file's line numbers (1-based) where the record starts."""
    rows: list[ImportRow] = []
    for start, _record, cells in _records(text):
        row = _parse_row(start, cells)
        if row is not None:
            rows.append(row)
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
    return _trimmed(cells)


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
    return _trimmed(cells)


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
    csv.writer(buffer, lineterminator="").writerow(_trimmed(cells))
    lines += ["# Example (remove the # to use it):", "# " + buffer.getvalue()]
    return "\r\n".join(lines) + "\r\n"


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
        for _line, record, cells in _records(text):
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


def write_import_file(rows: Sequence[ImportRow]) -> tuple[str, list[SentLine]]:
    """The rows as the file to send (as `write_import_csv`) and, per row, where it lands."""
    parts: list[str] = []
    sent: list[SentLine] = []
    chunk = io.StringIO()
    writer = csv.writer(chunk, lineterminator="\r\n")
    line = 1
    for record, row in enumerate(rows, start=1):
        chunk.seek(0)
        chunk.truncate()
        writer.writerow(_trimmed(row.cells))
        text = chunk.getvalue()
        parts.append(text)
        sent.append(SentLine(line, record, row.row, row.EUI, row.cell("B"), row.operation))
        line += text.count("\n")
    return "".join(parts), sent


def sent_lines_in(text: str) -> list[SentLine]:
    """The device lines of a file sent as is (comments and empty lines skipped); their rows
    are their own line numbers."""
    sent: list[SentLine] = []
    for line, record, cells in _records(text):
        if not _is_device_line(cells):
            continue
        eui_cell = cells[1].strip() if len(cells) > 1 else ""
        try:
            eui: str | None = _any_eui(eui_cell)
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
