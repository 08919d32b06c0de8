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

The file's columns, reading and writing are device_import_csv.py's; the platform's answer and
the report device_import_report.py's. Both are imported from here.
"""

from .device_import_csv import (
    CELL_HINTS,
    FIELD_HINTS,
    IMPORT_COLUMNS,
    IMPORT_FILE_HEADER,
    IMPORT_OPERATIONS,
    LIST_SEPARATOR,
    OPERATION_ALIASES,
    OPERATION_HELP,
    CellKind,
    ImportColumn,
    ImportOperation,
    ImportRow,
    RowError,
    activation_of,
    alarm004_cell_words,
    brief_to_update_cells,
    column_index,
    column_letter,
    connectivity_of,
    device_to_cells,
    format_alarm004_cell,
    format_rows,
    import_template,
    parse_alarm004_cell,
    parse_import_csv,
    parse_import_row,
    reference_id,
    unknown_model_error,
    update_operation,
    write_import_csv,
)
from .device_import_report import (
    UNREADABLE_PREVIEW,
    DeviceImportReport,
    ImportFailedLine,
    ImportLineError,
    ImportRowResult,
    ImportStatus,
    SentLine,
    failed_import_rows,
    format_import_errors,
    import_report,
    parse_import_errors,
    sent_lines_in,
    unknown_report,
    unreadable_answer,
    write_import_file,
)

__all__ = [
    "CELL_HINTS",
    "FIELD_HINTS",
    "IMPORT_COLUMNS",
    "IMPORT_FILE_HEADER",
    "IMPORT_OPERATIONS",
    "LIST_SEPARATOR",
    "OPERATION_ALIASES",
    "OPERATION_HELP",
    "UNREADABLE_PREVIEW",
    "CellKind",
    "DeviceImportReport",
    "ImportColumn",
    "ImportFailedLine",
    "ImportLineError",
    "ImportOperation",
    "ImportRow",
    "ImportRowResult",
    "ImportStatus",
    "RowError",
    "SentLine",
    "activation_of",
    "alarm004_cell_words",
    "brief_to_update_cells",
    "column_index",
    "column_letter",
    "connectivity_of",
    "device_to_cells",
    "failed_import_rows",
    "format_alarm004_cell",
    "format_import_errors",
    "format_rows",
    "import_report",
    "import_template",
    "parse_alarm004_cell",
    "parse_import_csv",
    "parse_import_errors",
    "parse_import_row",
    "reference_id",
    "sent_lines_in",
    "unknown_model_error",
    "unknown_report",
    "unreadable_answer",
    "update_operation",
    "write_import_csv",
    "write_import_file",
]
