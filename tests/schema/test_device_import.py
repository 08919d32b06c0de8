import pytest

from lpwa_console.schema.device_import import (
    IMPORT_COLUMNS,
    DeviceImportReport,
    ImportFailedLine,
    ImportLineError,
    ImportRowResult,
    column_index,
    column_letter,
    device_to_cells,
    failed_import_rows,
    format_import_errors,
    import_report,
    parse_alarm004_cell,
    parse_import_csv,
    parse_import_errors,
    sent_lines_in,
    unknown_report,
    write_import_csv,
    write_import_file,
)
from lpwa_console.schema.devices import DeviceCreate, DeviceUpdate, app_skey_xml

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"
APP_EUI = "70B3D57ED0000000"


def line(operation: str, **cells: str) -> str:
    """One CSV line with cells given by letter: line("CREATE_ABP", B="...", C="...")."""
    width = max([column_index(k) for k in cells] + [0]) + 1
    out = [""] * width
    out[0] = operation
    for letter, value in cells.items():
        out[column_index(letter)] = value
    return write_import_csv([out])


GOOD = (
    "# created by a test\n"
    + line("CREATE_ABP", B="70b3d5e75e000001", C="0a0b0c0d", D="prof", F=KEY.lower(),
           T="as-1,as-2", AB="water, gas", AC="Site:France/Paris,Vertical:Water")
    + line("CREATE_OTAA", B="70B3D5E75E000002", D="prof", E=APP_EUI, F=KEY, K="Meter 2",
           L="45.5", M="4.25", W="tk-1", H="ns-1", I="rp-1",
           O='<alarm004><threshold1 status="ENABLE" level="4" duration="PT12H"/></alarm004>')
    + line("CREATE_CELLULAR", B="490154203237518", C="208011234567890", D="cell",
           R="8933150319999999999", S="ctx-1")
    + "\n"
    + line("UPDATE_ABP", B="70B3D5E75E000001", F=KEY, K="renamed", I="rp-1")
    + line("UPDATE_OTAA", B="70B3D5E75E000002", W="tk-2", R="hsm-1")
    + line("UPDATE_CELLULAR", B="49015420323751", C="208011234567891", S="ctx-2")
    + line("DELETE", B="70B3D5E75E000009")
)  # fmt: skip


def test_letters() -> None:
    assert [column_letter(i) for i in (0, 25, 26, 27, 28)] == ["A", "Z", "AA", "AB", "AC"]
    assert [column_index(x) for x in ("A", "Z", "AA", "AO")] == [0, 25, 26, 40]
    abp = IMPORT_COLUMNS["CREATE_ABP"]
    assert (abp["C"].field, abp["F"].field, abp["K"].field) == ("nwAddress", "appSKey", "name")
    otaa = IMPORT_COLUMNS["CREATE_OTAA"]
    assert (otaa["E"].field, otaa["F"].field, otaa["W"].field) == (
        "appEUI",
        "appKey",
        "asTransportKey",
    )
    assert otaa["C"].deprecated
    cellular = IMPORT_COLUMNS["CREATE_CELLULAR"]
    assert (cellular["B"].label, cellular["C"].field, cellular["R"].field) == (
        "IMEI",
        "imsi",
        "iccid",
    )
    assert IMPORT_COLUMNS["CREATE_ABP"]["AB"].field == "tags"
    assert IMPORT_COLUMNS["UPDATE_OTAA"]["AC"].field == "domains"


def test_good_rows_build_devices() -> None:
    rows = parse_import_csv(GOOD)
    assert [r.operation for r in rows] == [
        "CREATE_ABP", "CREATE_OTAA", "CREATE_CELLULAR",
        "UPDATE_ABP", "UPDATE_OTAA", "UPDATE_CELLULAR", "DELETE",
    ]  # fmt: skip
    assert all(r.ok for r in rows), [str(e) for r in rows for e in r.errors]
    assert [r.row for r in rows] == [2, 3, 4, 6, 7, 8, 9]  # comment and blank lines count

    abp, otaa, cell, up_abp, up_otaa, up_cell, delete = rows
    assert isinstance(abp.device, DeviceCreate)
    assert abp.EUI == abp.device.EUI == "70B3D5E75E000001"
    assert abp.device.name == "70B3D5E75E000001"  # empty K: the DevEUI
    assert abp.device.activation == "ABP" and abp.device.nwAddress == "0A0B0C0D"
    assert [a.ID for a in abp.device.appServers or []] == ["as-1", "as-2"]
    assert [t.name for t in abp.device.tags or []] == ["water", "gas"]
    assert [(d.group.name, d.name) for d in abp.device.domains or []] == [
        ("Site", "France/Paris"),
        ("Vertical", "Water"),
    ]
    assert "alarmsConfiguration" not in abp.device.to_wire()  # default applies on the server

    assert isinstance(otaa.device, DeviceCreate) and otaa.device.activation == "OTAA"
    assert otaa.device.asTransportKey is not None and otaa.device.asTransportKey.ID == "tk-1"
    assert otaa.device.alarmsConfiguration is not None
    assert otaa.device.alarmsConfiguration.alarm004 is not None
    assert otaa.device.alarmsConfiguration.alarm004[0].level == 4
    assert (otaa.device.adminLat, otaa.device.adminLon) == (45.5, 4.25)
    assert otaa.extras == {"networkSubscriptionID": "ns-1", "appServersRoutingProfile": "rp-1"}

    assert isinstance(cell.device, DeviceCreate) and cell.device.connectivity == "CELLULAR"
    assert cell.EUI == "49015420323751"  # Luhn digit dropped
    assert (cell.device.imsi, cell.device.networkContextID) == ("208011234567890", "ctx-1")

    assert isinstance(up_abp.device, DeviceUpdate)
    assert up_abp.device.to_wire() == {
        "appSKey": KEY,
        "name": "renamed",
        "appServersRoutingProfile": {"ID": "rp-1"},
    }
    assert up_otaa.device is not None
    assert up_otaa.device.to_wire() == {"hsmGroupID": "hsm-1", "asTransportKey": {"ID": "tk-2"}}
    assert up_cell.device is not None and up_cell.device.networkContextID == "ctx-2"
    assert delete.device is None and delete.EUI == "70B3D5E75E000009"


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        (line("CREATE_ABP", B="70B3D5E75E00000G", C="01020304", D="p", F=KEY), "B", "DevEUI"),
        (line("CREATE_ABP", B="70B3D5E75E000001", C="123", D="p", F=KEY), "C", "DevAddr"),
        (line("CREATE_ABP", B="70B3D5E75E000001", D="p", F=KEY), "C", "required"),
        (line("CREATE_ABP", B="70B3D5E75E000001", C="01020304", D="p", F="AB"), "F", "AppSKey"),
        (line("CREATE_ABP", B="70B3D5E75E000001", C="01020304", F=KEY), "D", "profile"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", E="12"), "E", "AppEUI"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", L="45"), "L", "together"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", L="north"), "L", "number"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", AB="<bad>"), "AB", "pattern"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", AC="France/Paris"), "AC", "group:name"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", AC="S:a,S:b"), "AC", "one domain per group"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p",
              O='<alarm004><threshold1 level="5" duration="P2D"/>'
                '<threshold2 level="3" duration="P4D"/></alarm004>'), "O", "level"),
        (line("CREATE_OTAA", B="70B3D5E75E000001", D="p", O="<x/>"), "O", "alarm004"),
        (line("CREATE_CELLULAR", B="490154203237519", C="20801", D="p"), "B", "Luhn"),
        (line("CREATE_CELLULAR", B="49015420323751", D="p"), "C", "IMSI is required"),
        (line("CREATE_CELLULAR", B="49015420323751", C="12", D="p"), "C", "IMSI"),
        (line("UPDATE_OTAA", B="70B3D5E75E000001", D="p2"), "D", "cannot be changed"),
        (line("UPDATE_ABP", B="70B3D5E75E000001", C="01020304"), "C", "cannot be changed"),
        (line("FROBNICATE", B="70B3D5E75E000001"), "A", "unknown operation"),
        (line("DELETE", B="nope"), "B", "IMEI"),
    ],
)  # fmt: skip
def test_bad_rows_report_row_column_and_message(text: str, column: str, message: str) -> None:
    rows = parse_import_csv("# header comment\n" + text)
    assert len(rows) == 1
    row = rows[0]
    assert not row.ok and row.device is None
    assert any(e.row == 2 and e.column == column and message in e.words for e in row.errors), [
        str(e) for e in row.errors
    ]


def test_all_errors_of_a_row_once_per_column() -> None:
    (row,) = parse_import_csv(line("CREATE_ABP", B="XX", C="1", F="2"))
    assert sorted(e.column for e in row.errors) == ["B", "C", "D", "F"]
    # Named by the column's name, not its letter.
    assert str(row.errors[0]).startswith("row 1: ") and "column" not in str(row.errors[0])


def test_good_and_bad_rows_together() -> None:
    text = GOOD + line("CREATE_ABP", B="70B3D5E75E000005", D="p")
    rows = parse_import_csv(text)
    assert [r.ok for r in rows] == [True] * 7 + [False]
    assert rows[-1].row == 10


def test_deprecated_and_unused_columns_warn() -> None:
    (row,) = parse_import_csv(
        line("CREATE_ABP", B="70B3D5E75E000001", C="01020304", D="p", F=app_skey_xml(KEY),
             J="maker", W="tk")
    )  # fmt: skip
    assert row.ok
    assert any("XML" in w for w in row.warnings)
    assert any("column J" in w and "deprecated" in w for w in row.warnings)
    assert any("column W is not used" in w for w in row.warnings)
    assert row.device is not None and row.device.effective_app_skey() == KEY


def test_operation_aliases_and_bom() -> None:
    rows = parse_import_csv(
        "\ufeffCREATE,70B3D5E75E000001,01020304,p,,"
        + KEY
        + "\n,70B3D5E75E000002,01020304,p,,"
        + KEY
    )
    assert [r.operation for r in rows] == ["CREATE_ABP", "CREATE_ABP"]
    assert all(r.ok for r in rows)


def test_round_trip_writer_parser() -> None:
    rows = parse_import_csv(GOOD)
    again = parse_import_csv(write_import_csv(rows))
    assert [(r.operation, r.EUI, r.device, r.extras) for r in again] == [
        (r.operation, r.EUI, r.device, r.extras) for r in rows
    ]
    # From models back to cells and again to models.
    for row in rows:
        assert row.operation is not None
        cells = device_to_cells(row.operation, row.device, eui=row.EUI, extras=row.extras)
        (back,) = parse_import_csv(write_import_csv([cells]))
        assert (back.device, back.EUI, back.extras) == (row.device, row.EUI, row.extras)


def test_alarm004_cell() -> None:
    config = parse_alarm004_cell(
        '<alarm004><threshold1 status="ENABLE" level="3" duration="P2D"/>'
        '<threshold2 status="ENABLE" level="5" duration="P4D"/></alarm004>'
    )
    assert config.alarm004 is not None and [t.level for t in config.alarm004] == [3, 5]
    with pytest.raises(ValueError, match="threshold2 needs threshold1"):
        parse_alarm004_cell('<alarm004><threshold2 level="5" duration="P4D"/></alarm004>')


def test_report_and_failed_rows_export() -> None:
    rows = parse_import_csv(GOOD + line("CREATE_ABP", B="70B3D5E75E000005", D="p"))
    report = DeviceImportReport.of(
        [
            ImportRowResult(row=2, EUI="70B3D5E75E000001", status="OK"),
            ImportRowResult(row=3, EUI="70B3D5E75E000002", status="ERROR", message="exists"),
            ImportRowResult(row=4, EUI="49015420323751", status="UNKNOWN", message="?"),
        ]
    )
    assert (report.okCount, report.errorCount, report.unknownCount) == (1, 1, 1)
    failed = failed_import_rows(rows, report)
    assert [r.row for r in failed] == [3, 4, 10]
    assert [r.row for r in failed_import_rows(rows, report, include_unknown=False)] == [3, 10]
    exported = write_import_csv(failed)
    assert exported.count("\r\n") == 3 and exported.startswith("CREATE_OTAA,70B3D5E75E000002")
    local = DeviceImportReport.of(ImportRowResult.from_row(r) for r in rows)
    assert (local.total, local.okCount, local.errorCount) == (8, 7, 1)
    assert local.results[-1].column in ("C", "F")


# --- the platform's answer -------------------------------------------------------------------

# The error CSV of the answer: two errors on line 7, a message with a quoted comma on line 9.
ERRORS = (
    "999900FFFF002993,line 6,[111] A Device report already exists for the given EUI\n"
    "999900FFFF002993,line 7,[111] A Device report already exists for the given EUI,"
    "[222] No device profile for the given ID : SMTC/LoRaMote.1\n"
    '70B3D5E75E000003,line 9,"[333] Bad cell, column F: not hexadecimal"\n'
)


def test_parse_import_errors() -> None:
    failed = parse_import_errors(ERRORS)
    assert [(f.EUI, f.line, len(f.errors)) for f in failed] == [
        ("999900FFFF002993", 6, 1),
        ("999900FFFF002993", 7, 2),
        ("70B3D5E75E000003", 9, 1),
    ]
    assert failed[1].errors[1] == ImportLineError(
        code="222", message="No device profile for the given ID : SMTC/LoRaMote.1"
    )
    assert failed[2].errors[0].message == "Bad cell, column F: not hexadecimal"
    assert str(failed[2].errors[0]) == "[333] Bad cell, column F: not hexadecimal"


def test_parse_import_errors_tolerates_sloppy_csv() -> None:
    # A comma the platform did not quote continues the message; CRLF, blank records, a bare
    # line number and an error without a code are read too.
    text = "\r\nABC,line 2,[1] one, two,[2] three\r\n\r\nDEF,5,plain words\r\nGHI,line 8\r\n"
    failed = parse_import_errors(text)
    assert [(f.EUI, f.line) for f in failed] == [("ABC", 2), ("DEF", 5), ("GHI", 8)]
    assert [str(e) for e in failed[0].errors] == ["[1] one, two", "[2] three"]
    assert failed[1].errors == [ImportLineError(message="plain words")]
    assert failed[2].errors[0].message.startswith("refused")
    assert parse_import_errors("  \n") == []


@pytest.mark.parametrize(
    "text",
    ["internal error", "Something went wrong, please retry", "EUI,not a line,[1] x", '"a'],
)
def test_parse_import_errors_refuses_what_it_cannot_read(text: str) -> None:
    with pytest.raises(ValueError):
        parse_import_errors(text)


def test_format_import_errors_round_trip() -> None:
    lines = [
        ImportFailedLine(EUI="X1", line=3, errors=[ImportLineError(code="7", message="a, b")]),
        ImportFailedLine(
            EUI="X2",
            line=4,
            errors=[
                ImportLineError(code="1", message="two\nlines"),
                ImportLineError(code="2", message='say "hi"'),
            ],
        ),
    ]
    text = format_import_errors(lines)
    assert text.splitlines()[0] == 'X1,line 3,"[7] a, b"'
    back = parse_import_errors(text)
    assert back[0] == lines[0]
    assert [str(e) for e in back[1].errors] == ["[1] two lines", '[2] say "hi"']


def test_sent_lines_map_back_to_the_users_rows() -> None:
    # The user's file: a comment, a blank line, a name holding a line break (two lines).
    user = (
        "# header comment\n"
        + line("CREATE_ABP", B="70B3D5E75E000001", C="0a0b0c0d", D="p", F=KEY)
        + "\n"
        + line("CREATE_OTAA", B="70B3D5E75E000002", D="p", E=APP_EUI, F=KEY, K="two\nlines")
        + line("UPDATE_ABP", B="70B3D5E75E000001", K="renamed")
        + line("DELETE", B="70B3D5E75E000009")
    )
    rows = parse_import_csv(user)
    assert [r.row for r in rows] == [2, 4, 6, 7]
    text, sent = write_import_file(rows[1:])  # a batch: no comment, fresh numbering
    assert text == write_import_csv(rows[1:])
    assert [(s.line, s.record, s.row) for s in sent] == [(1, 1, 4), (3, 2, 6), (4, 3, 7)]
    failed = parse_import_errors(
        "70B3D5E75E000001,line 3,[40301] not allowed\n"
        "70B3D5E75E000009,line 4,[40400] no device,[1] and more\n"
    )
    report = import_report(sent, failed)
    by_row = {r.row: r for r in report.results}
    assert by_row[4].status == "OK" and by_row[4].line == 1
    assert by_row[6].status == "ERROR" and by_row[6].message == "not allowed"
    assert [e.code for e in by_row[7].errors] == ["40400", "1"]
    assert (report.okCount, report.errorCount, report.unknownCount) == (1, 2, 0)
    # A platform counting records rather than lines (line 2 = the second record) is placed
    # by record number when the EUI agrees.
    by_record = import_report(sent, parse_import_errors("70B3D5E75E000001,line 2,[9] x\n"))
    assert by_record.failed_rows == [6]
    # An EUI that agrees with no sent line at that number: found by EUI.
    moved = import_report(sent, parse_import_errors("70b3d5e75e000009,line 40,[9] x\n"))
    assert moved.failed_rows == [7]


def test_sent_lines_in_a_raw_file_and_unplaced_errors() -> None:
    text = (
        "# comment\n"
        + line("CREATE_CELLULAR", B="490154203237518", C="208011234567890", D="cell")
        + line("DELETE", B="70B3D5E75E000009")
    )
    sent = sent_lines_in(text)
    assert [(s.line, s.row, s.EUI, s.operation) for s in sent] == [
        (2, 2, "49015420323751", "CREATE_CELLULAR"),
        (3, 3, "70B3D5E75E000009", "DELETE"),
    ]
    # The platform echoes the IMEI with its check digit: still the same line.
    report = import_report(sent, parse_import_errors("490154203237518,line 2,[5] no\n"))
    assert report.failed_rows == [2] and report.okCount == 1
    # A listed line that matches nothing sent: the lines not listed cannot be called OK.
    odd = import_report(sent, parse_import_errors("FFFF,line 30,[5] where?\n"))
    assert odd.unknown_rows == [2, 3] and "line 30" in (odd.message or "")
    unknown = unknown_report(sent, "the answer was garbage")
    assert unknown.unknownCount == 2 and unknown.results[0].message == "the answer was garbage"
