"""Secrets at rest (issue 21): no key, token or demo client secret appears in clear in the
database file or its WAL. Key material is sealed (AES-GCM) with an owner-only key file
beside the database; tokens and demo client secrets are kept as hashes. An older database
is converted by the last migration step."""

from __future__ import annotations

import base64
import contextlib
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from lpwa_console.sandbox import SandboxSettings, demo
from lpwa_console.sandbox.accounts import by_credentials, listing
from lpwa_console.sandbox.db import Database, migrations
from lpwa_console.sandbox.db.connection import DatabaseRefused
from lpwa_console.sandbox.db.sealing import PREFIX, key_path
from lpwa_console.sandbox.db.token_file import token_path
from lpwa_console.sandbox.store import key_manager as key_store
from lpwa_console.sandbox.store import km_devices as km_store
from lpwa_console.sandbox.store import tokens as token_store

from .conftest import API, DEVICES, Sandbox
from .test_key_manager import _keys, _rsa_encrypt

KM = f"{API}/kmSubscriptions/mine"
APP_KEY = "5A1E7A4B0C0D0E0F1011121314151617"
APP_SKEY = "6B2F8B5C1D1E1F202122232425262728"
KM_KEY = "7C30904D2E2F30313233343536373839"
RSA_KEY = "8D41A15E3F40414243444546474849AA"
GROUP_KEY = "9E52B26F505152535455565758595A5B"


def _raw(db_path: Path) -> bytes:
    """The database file, the token file beside it and their WALs as they lie on disk."""
    out = b""
    for path in (db_path, token_path(db_path)):
        for file in (path, path.with_name(path.name + "-wal")):
            out += file.read_bytes() if file.exists() else b""
    return out


def _forms(secret: str) -> list[bytes]:
    """How a secret could lie in the file: as text (any case) and, for hex keys, raw."""
    forms = [secret.encode(), secret.lower().encode(), secret.upper().encode()]
    with contextlib.suppress(ValueError):
        forms.append(bytes.fromhex(secret))
    return forms


def _assert_absent(raw: bytes, secrets_: dict[str, str]) -> None:
    for what, secret in secrets_.items():
        for form in _forms(secret):
            assert form not in raw, f"{what} lies in clear in the database"


def _db_path(sb: Sandbox) -> Path:
    return Path(sb.client.app.state.services.db.path)  # type: ignore[attr-defined]


def _conn(sb: Sandbox) -> sqlite3.Connection:
    return sb.client.app.state.services.db.conn()  # type: ignore[attr-defined,no-any-return]


def test_nothing_secret_lies_in_clear(sb: Sandbox) -> None:
    conn = _conn(sb)
    token = sb.headers("subscriber")["Authorization"].split()[1]
    abp = {"EUI": "0018B2000000C001", "activation": "ABP", "nwAddress": "0A0B0C0E",
           "appSKey": APP_SKEY}  # fmt: skip
    otaa = {"EUI": "0018B2000000C002", "activation": "OTAA", "appEUI": "70B3D57ED0000000",
            "appKey": APP_KEY}  # fmt: skip
    for body in (abp, otaa):
        assert sb.post(DEVICES, json=body).status_code == 201
    platform = next(k for k in _keys(sb).briefs if k.version == "platform-v1")
    west = next(k for k in _keys(sb).briefs if k.hsmGroupID == "hsm-eu-west-1")
    made = [
        sb.post(f"{KM}/devices", json={"EUI": "00112233445566C1", "appKey": KM_KEY}),
        sb.post(f"{KM}/devices", json={"EUI": "00112233445566C2",
                                       "appKey": _rsa_encrypt(platform.pem, RSA_KEY),
                                       "exchangeKeyVersion": platform.version}),
        sb.post(f"{KM}/devices", json={"EUI": "00112233445566C3",
                                       "appKey": _rsa_encrypt(west.pem, GROUP_KEY),
                                       "exchangeKeyVersion": west.version}),
    ]  # fmt: skip
    assert [m.status_code for m in made] == [201, 201, 201], [m.text for m in made]
    # The store opens what it keeps: the keys are there, sealed.
    assert km_store.root_keys(conn, made[1].json()["UID"])[0] == RSA_KEY
    as_key = sb.post(f"{KM}/asKeys", json={"ID": "k-secret"}).json()
    secrets_: dict[str, str] = {
        "bearer token": token, "AppKey": APP_KEY, "AppSKey": APP_SKEY, "KM root key": KM_KEY,
        "RSA-delivered root key": RSA_KEY, "HSM-group-delivered root key": GROUP_KEY,
    }  # fmt: skip
    for account in listing(conn):
        secrets_[f"client secret of {account['role']}"] = account["client_secret"]
        assert by_credentials(conn, account["client_id"], account["client_secret"]) is not None
    hsm_key = key_store.hsm_key_hex(conn, 1, "hsm-eu-west-1-app-v1")
    assert hsm_key
    secrets_["HSM key"] = hsm_key
    as_hex = conn.execute(
        "SELECT unseal(key_hex) FROM km_as_keys WHERE uid = ?", (as_key["UID"],)
    ).fetchone()[0]
    secrets_["AS key"] = as_hex
    for (pem,) in conn.execute(
        "SELECT unseal(private_pem) FROM platform_exchange_keys WHERE private_pem IS NOT NULL"
        " UNION ALL SELECT unseal(exchange_key_private_pem) FROM hsm_groups"
        " WHERE exchange_key_private_pem IS NOT NULL"
    ):
        private = serialization.load_pem_private_key(pem.encode(), None)
        assert isinstance(private, rsa.RSAPrivateKey)
        secrets_[f"RSA private key {pem[40:60]}"] = _pem_body(pem)
        number = private.private_numbers().d
        secrets_["RSA private exponent"] = f"{number:X}"
    _assert_absent(_raw(_db_path(sb)), secrets_)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _assert_absent(_raw(_db_path(sb)), secrets_)
    # The key lies beside the database, its owner's only.
    key_file = key_path(_db_path(sb))
    assert key_file.exists() and len(key_file.read_bytes()) == 32
    if os.name == "posix":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def _pem_body(pem: str) -> str:
    """A line of the PEM's base64 body (long enough to be unmistakable)."""
    lines = [line for line in pem.splitlines() if line and not line.startswith("-----")]
    return lines[1]


def test_another_key_file_opens_nothing(tmp_path: Path, sb: Sandbox) -> None:
    """A copy of the database without its key file signs no one in and opens no key."""
    source = _db_path(sb)
    _conn(sb).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    copy = tmp_path / "stolen.db"
    copy.write_bytes(source.read_bytes())
    with pytest.raises(DatabaseRefused, match=r"key file .* is missing"):
        Database(copy)
    assert not key_path(copy).exists()  # nothing left behind
    key_path(copy).write_bytes(os.urandom(32))  # another key
    db = Database(copy)
    conn = db.conn()
    # What the copy lists (derived from another key) signs in nowhere.
    for account in listing(conn):
        assert by_credentials(conn, account["client_id"], account["client_secret"]) is None
        assert by_credentials(_conn(sb), account["client_id"], account["client_secret"]) is None
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("SELECT unseal(key_hex) FROM hsm_keys").fetchall()
    db.close()


def _old_database(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A demo made by the version before the step, its secrets in clear as it kept them."""
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:_SECRETS_STEP])
    db = demo.prepare(SandboxSettings(db_path=path, demo_devices=20), history=False)
    with db.write() as conn:
        for table, column in _SEALED:
            conn.execute(f"UPDATE {table} SET {column} = unseal({column})")
        conn.execute("UPDATE accounts SET client_secret = 'old-secret-' || client_id"
                     " WHERE role != 'service-account'")  # fmt: skip
        conn.execute("INSERT INTO tokens VALUES ('old-bearer-token-123', 1, 9e12)")
        app_key = conn.execute(
            "SELECT app_key FROM devices WHERE app_key IS NOT NULL LIMIT 1"
        ).fetchone()[0]
        queued = conn.execute("SELECT count(*) FROM prov_queue").fetchone()[0]
    db.conn().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    monkeypatch.undo()
    return {"app_key": app_key, "queued": queued}


# The secrets step's place (steps added after it run too).
_SECRETS_STEP = migrations.MIGRATIONS.index(migrations.V_SECRETS_AT_REST)
_SEALED = [
    ("km_devices", "app_key"), ("km_devices", "nwk_key"), ("km_as_keys", "key_hex"),
    ("hsm_keys", "key_hex"), ("platform_exchange_keys", "private_pem"),
    ("hsm_groups", "exchange_key_private_pem"), ("devices", "app_key"),
    ("devices", "app_skey"), ("multicast_groups", "app_skey"),
]  # fmt: skip


def test_the_last_step_seals_an_older_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "old.db"
    before = _old_database(path, monkeypatch)
    assert before["app_key"].encode() in _raw(path)
    assert b"old-bearer-token-123" in _raw(path)
    db = Database(path)
    assert db.migrations_run == len(migrations.MIGRATIONS) - _SECRETS_STEP  # it and later ones
    conn = db.conn()
    for table, column in _SEALED:
        clear = conn.execute(
            f"SELECT count(*) FROM {table} WHERE {column} IS NOT NULL"
            f" AND substr({column}, 1, {len(PREFIX)}) != ?",
            (PREFIX,),
        ).fetchone()[0]
        assert clear == 0, f"{table}.{column} still in clear"
    assert conn.execute("SELECT count(*) FROM prov_queue").fetchone()[0] == before["queued"]
    # Keys still open; the demo secrets are the listed ones; the old ones no longer work.
    assert key_store.hsm_key_hex(conn, 1, "hsm-eu-west-1-app-v1")
    for account in listing(conn):
        assert by_credentials(conn, account["client_id"], account["client_secret"]) is not None
        assert (
            by_credentials(conn, account["client_id"], f"old-secret-{account['client_id']}") is None
        )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = _raw(path)
    assert before["app_key"].encode() not in raw and b"old-bearer-token-123" not in raw
    # The old token moved, as its hash, to the token file: it still signs its account in.
    assert conn.execute("SELECT count(*) FROM tokens").fetchone()[0] == 0
    with db.tokens.read() as tokens:
        assert token_store.find(tokens, "old-bearer-token-123") == (1, "subscriber", 9e12)
    db.close()
    # The sealing is done once: a restart runs no step and changes nothing.
    again = Database(path)
    assert again.migrations_run == 0
    again.close()


def test_a_sealed_value_reads_back(tmp_path: Path) -> None:
    db = Database(tmp_path / "x.db")
    conn = db.conn()
    sealed = conn.execute("SELECT seal('ABCDEF')").fetchone()[0]
    assert sealed.startswith(PREFIX) and "ABCDEF" not in sealed
    assert base64.b64decode(sealed[len(PREFIX) :])
    assert conn.execute("SELECT seal(?)", (sealed,)).fetchone()[0] == sealed  # once only
    assert conn.execute("SELECT unseal(?)", (sealed,)).fetchone()[0] == "ABCDEF"
    assert tuple(conn.execute("SELECT seal(NULL), unseal(NULL)").fetchone()) == (None, None)
    db.close()
