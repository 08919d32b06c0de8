"""The key manager's CSV import over HTTP (Document 1 §2.11): the three key encodings, the
1.1 rule on column U, row by row refusals."""

from __future__ import annotations

import base64
import csv
import io

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.keywrap import aes_key_wrap

from lpwa_console.sandbox.store import key_manager as key_store
from lpwa_console.sandbox.store import km_devices as device_store
from lpwa_console.schema.device_import import parse_import_errors
from lpwa_console.schema.km_import import km_row_cells

from .conftest import API, Sandbox

KM = f"{API}/kmSubscriptions/mine"
KEY = "000102030405060708090A0B0C0D0E0F"
NWK = "F0E0D0C0B0A090807060504030201000"
OAEP = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)


def _csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue()


def test_import_three_encodings_row_by_row(sb: Sandbox) -> None:
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    keys = sb.get(f"{KM}/publicExchangeKey").json()["briefs"]
    platform = next(k for k in keys if k["version"] == "platform-v1")
    public = serialization.load_pem_public_key(platform["pem"].encode())
    assert isinstance(public, rsa.RSAPublicKey)
    encrypted = base64.b64encode(public.encrypt(bytes.fromhex(KEY), OAEP)).decode()
    encrypted_nwk = base64.b64encode(public.encrypt(bytes.fromhex(NWK), OAEP)).decode()
    kek = key_store.hsm_key_hex(conn, 1, "hsm-eu-west-1-app-v1")
    assert kek
    wrapped = aes_key_wrap(bytes.fromhex(kek), bytes.fromhex(KEY)).hex().upper()
    rows = [
        ["# a comment line"],
        km_row_cells("00112233445566D1", KEY, name="clear"),
        km_row_cells("00112233445566D2", wrapped, hsm_app_version="hsm-eu-west-1-app-v1"),
        km_row_cells(
            "00112233445566D3",
            encrypted,
            exchange_version="platform-v1",
            nwk_key=encrypted_nwk,
            home_net_id="000013",
        ),
        km_row_cells("00112233445566D4", wrapped, hsm_app_version="hsm-eu-west-1-nwk-v1"),
        km_row_cells("00112233445566D5", "ZZ"),
        km_row_cells("00112233445566D1", KEY),
        km_row_cells("00112233445566D6", encrypted, exchange_version="platform-v9"),
        ["DELETE", "00112233445566FF"],
        ["RENAME", "00112233445566D7"],
    ]
    response = sb.post(f"{KM}/devices/import", files={"csv": ("km.csv", _csv(rows), "text/csv")})
    assert response.status_code == 200, response.text
    failed = {f.line: f for f in parse_import_errors(response.json()["message"])}
    assert sorted(failed) == [5, 6, 7, 8, 9, 10], response.json()["message"]
    assert failed[5].errors[0].message.startswith("hsmAppKeyVersion")
    assert "column F" in failed[6].errors[0].message
    assert failed[7].errors[0].code == "40900"
    assert failed[8].errors[0].message.startswith("exchangeKeyVersion")
    assert failed[9].errors[0].code == "40400"
    assert "column A" in failed[10].errors[0].message
    for eui in ("00112233445566D1", "00112233445566D2", "00112233445566D3"):
        uid = device_store.find_uid(conn, 1, eui=eui)
        assert uid is not None and device_store.root_keys(conn, uid)[0] == KEY
    d3 = sb.get(f"{KM}/devices/e00112233445566D3").json()
    assert d3["state"] == "COMMISSIONED" and d3["lorawanVersion"] == "1.1"
    assert device_store.root_keys(conn, d3["UID"])[1] == NWK
    # A file where every line applies: an empty 200; then DELETE rows remove them.
    again = _csv([km_row_cells("00112233445566E1", KEY)])
    assert (
        sb.post(f"{KM}/devices/import", files={"csv": ("a.csv", again, "text/csv")}).content == b""
    )
    gone = _csv([["DELETE", "00112233445566E1"], ["DELETE", "00112233445566D1"]])
    assert (
        sb.post(f"{KM}/devices/import", files={"csv": ("a.csv", gone, "text/csv")}).content == b""
    )
    assert sb.get(f"{KM}/devices/e00112233445566E1").status_code == 404
    viewer = sb.post(f"{KM}/devices/import", "subscriber-viewer",
                     files={"csv": ("a.csv", again, "text/csv")})  # fmt: skip
    assert viewer.status_code == 403
