"""The §2.11 file as the console reads it before sending."""

from __future__ import annotations

from lpwa_console.schema.km_import import (
    km_row_cells,
    parse_km_import_csv,
    write_km_import_file,
)

KEY = "000102030405060708090A0B0C0D0E0F"


def test_rows_columns_and_errors() -> None:
    text = "\r\n".join(
        [
            "# header comment",
            ",".join(km_row_cells("00112233445566d1", KEY.lower(), home_nsid="70B3D57ED0000001")),
            ",".join(km_row_cells("00112233445566D2", KEY, nwk_key="11" * 16)),
            ",".join(km_row_cells("00112233445566D3", "")),
            ",".join(km_row_cells("0011", KEY)),
            "DELETE,00112233445566D4",
            "",
        ]
    )
    rows = parse_km_import_csv(text)
    assert [r.row for r in rows] == [2, 3, 4, 5, 6]
    first, second, missing, short, delete = rows
    assert first.ok and first.device is not None and first.device.appKey == KEY
    assert first.device.effective_state == "COMMISSIONED"
    assert second.device is not None and second.device.version == "1.1"
    assert [(e.column, e.message.split(":")[0]) for e in missing.errors] == [("F", "appKey")]
    assert short.errors[0].column == "B"
    assert delete.operation == "DELETE" and delete.ok and delete.EUI == "00112233445566D4"
    written, sent = write_km_import_file(rows)
    assert [s.row for s in sent] == [2, 3, 4, 5, 6] and [s.line for s in sent] == [1, 2, 3, 4, 5]
    assert written.count("\r\n") == 5
