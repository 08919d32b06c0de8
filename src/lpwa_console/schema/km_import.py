"""Key manager device import CSV (`POST /kmSubscriptions/{kmSubscriptionUid}/devices/import`,
Document 1 §2.11). Same file rules as the device import (schema/device_import.py): no header,
columns by letter, `#` comment lines, and the same answer (empty, or an error document whose
message is a CSV of the refused lines).

  letter  meaning
  A       operation: CREATE_OTAA (also CREATE or empty) or DELETE
  B       DevEUI (16 hexadecimal digits)
  E       JoinEUI/AppEUI (our choice, as in the device import)
  F       AppKey: clear hex; or wrapped with the HSM application key of version S (hex);
          or encrypted with the exchange key of version X (base64). Mandatory.
  K       name (our choice, as in the device import)
  S       HSM application key version
  T       added by the platform, meaning not published: kept, not checked
  U       NwkKey, in the same three encodings (V or X). Mandatory for LoRaWAN 1.1 (a row with a
          NwkKey is a 1.1 device), so a 1.0 row leaves it empty
  V       HSM network key version
  W       home NS NetID
  X       HSM or platform exchange key (RSA) version, for F and U
  Y       home NS NSID (IEEE EUI64)

A created device is COMMISSIONED when W or Y is given, else GENERIC (a pre-commissioned device
needs an RSA public key for its owner token, which the file has no column for). Each create row
is checked by KmDeviceCreate: errors come back per row with the row number and column letter.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import ValidationError

from .device_import import RowError, SentLine, column_index
from .device_import_csv import ImportLine, is_device_line, parse_lines
from .device_import_report import write_import_file
from .key_manager import KmDeviceCreate

KmImportOperation = Literal["CREATE_OTAA", "DELETE"]
KM_OPERATION_ALIASES: dict[str, KmImportOperation] = {
    "CREATE_OTAA": "CREATE_OTAA", "CREATE": "CREATE_OTAA", "": "CREATE_OTAA", "DELETE": "DELETE",
}  # fmt: skip
# Letter -> (request field, label). T is kept but not read.
KM_IMPORT_COLUMNS: dict[str, tuple[str, str]] = {
    "B": ("EUI", "DevEUI"),
    "E": ("appEUI", "JoinEUI"),
    "F": ("appKey", "AppKey"),
    "K": ("name", "Name"),
    "S": ("hsmAppKeyVersion", "HSM AppKey version"),
    "U": ("nwkKey", "NwkKey"),
    "V": ("hsmNwkKeyVersion", "HSM NwkKey version"),
    "W": ("homeNsNetID", "Home NS NetID"),
    "X": ("exchangeKeyVersion", "Exchange key version"),
    "Y": ("homeNsNSID", "Home NS NSID"),
}
_LETTER_OF = {name: letter for letter, (name, _) in KM_IMPORT_COLUMNS.items()}
_LAST = max(column_index(x) for x in KM_IMPORT_COLUMNS)


@dataclass(slots=True)
class KmImportRow(ImportLine[KmImportOperation, KmDeviceCreate]):
    """One device line of a key manager import file (read as the device import's lines)."""


def _letter(message: str) -> str:
    head = message.split(":", 1)[0].split(".")[0].strip()
    return _LETTER_OF.get(head, "")


def parse_km_row(number: int, cells: list[str]) -> KmImportRow | None:
    """One record as a row (None for a comment or empty line)."""
    if not is_device_line(cells):
        return None
    row = KmImportRow(number, list(cells))
    name = cells[0].strip().upper()
    operation = KM_OPERATION_ALIASES.get(name)
    eui = row.cell("B").upper()
    row.EUI = eui or None
    if operation is None:
        row.errors.append(RowError(number, "A", f"unknown operation {cells[0].strip()!r}"
                                   " (CREATE_OTAA or DELETE)"))  # fmt: skip
        return row
    row.operation = operation
    if operation == "DELETE":
        if len(eui) != 16 or any(c not in "0123456789ABCDEF" for c in eui):
            row.errors.append(RowError(number, "B", "a DevEUI has 16 hexadecimal digits"))
        return row
    body: dict[str, object] = {}
    for letter, (name, _label) in KM_IMPORT_COLUMNS.items():
        value = row.cell(letter)
        if value:
            body[name] = value
    if "nwkKey" in body:
        body["lorawanVersion"] = "1.1"
    try:
        row.device = KmDeviceCreate.model_validate(body)
        row.EUI = row.device.EUI
    except ValidationError as exc:
        for error in exc.errors():
            message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
            loc = [str(p) for p in error.get("loc", ())]
            if loc:
                letter = _LETTER_OF.get(loc[0], "")
                message = f"{KM_IMPORT_COLUMNS[letter][1] if letter else loc[0]}: {message}"
            else:
                letter = _letter(message)
            if message.startswith("Field required") or error.get("type") == "missing":
                message = (
                    f"{KM_IMPORT_COLUMNS.get(letter, ('', loc[0] if loc else ''))[1]}: required"
                )
            row.errors.append(RowError(number, letter, message))
    return row


def parse_km_import_csv(text: str) -> list[KmImportRow]:
    return parse_lines(text, parse_km_row)


def km_row_cells(
    eui: str,
    app_key: str,
    *,
    nwk_key: str = "",
    hsm_app_version: str = "",
    hsm_nwk_version: str = "",
    exchange_version: str = "",
    home_net_id: str = "",
    home_nsid: str = "",
    name: str = "",
    join_eui: str = "",
    operation: str = "CREATE_OTAA",
) -> list[str]:
    """The cells of a create row (A..Y)."""
    cells = [""] * (_LAST + 1)
    values = {"A": operation, "B": eui, "E": join_eui, "F": app_key, "K": name,
              "S": hsm_app_version, "U": nwk_key, "V": hsm_nwk_version, "W": home_net_id,
              "X": exchange_version, "Y": home_nsid}  # fmt: skip
    for letter, value in values.items():
        cells[column_index(letter)] = value
    return cells


def write_km_import_file(rows: Sequence[KmImportRow]) -> tuple[str, list[SentLine]]:
    """The rows as the file to send and, per row, where it lands (as the device import)."""
    return write_import_file(rows)
