"""Secrets at rest (issue 21): key material is stored sealed (AES-256-GCM) with a key kept
outside the database, and tokens and demo client secrets only as hashes.

The key is an owner-only file beside the database (`<database>.key`, 32 random bytes, made
on first use): a copy of the database alone opens no key, and a database copied elsewhere
needs its key file with it. Every connection gets SQL functions, so the store seals and
opens in its statements and a migration step can seal what older versions kept in clear:

- `seal(text)`: `sealed:v1:` + base64(nonce, ciphertext and tag); NULL stays NULL, a
  sealed value stays as it is (sealing twice is harmless);
- `unseal(text)`: the text again (a value in clear, from before the step, is given as is);
- `token_hash(text)`: SHA-256 in hex, for bearer tokens and high-entropy secrets;
- `scrypt_hash(text)` / `scrypt_matches(stored, text)`: a salted scrypt for secrets a person
  chooses or keeps (service account secrets, station support passwords);
- `demo_secret(client_id)`: a demo account's client secret, derived from the key (HMAC), so
  `lpwa-sandbox accounts` can list it while the database keeps its hash only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import sqlite3
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PREFIX = "sealed:v1:"
HASH_PREFIX = "sha256$"
KEY_BYTES = 32
_NONCE = 12


def key_path(db_path: Path) -> Path:
    return db_path.with_name(db_path.name + ".key")


def load_key(db_path: Path) -> bytes:
    """The database's sealing key, made (owner-only) on first use."""
    path = key_path(db_path)
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        if os.name == "posix" and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)  # copied with the user's umask: narrow it again
        key = path.read_bytes()
        if len(key) != KEY_BYTES:
            raise ValueError(f"the key file {path} is damaged ({len(key)} bytes)") from None
        return key
    key = os.urandom(KEY_BYTES)
    with os.fdopen(fd, "wb") as out:
        out.write(key)
        out.flush()
        os.fsync(out.fileno())
    return key


def token_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class Sealer:
    """The functions above for one key."""

    def __init__(self, key: bytes) -> None:
        self._key = key

    @cached_property
    def _aead(self) -> AESGCM:
        # Imported at the first key sealed or opened, not at the first connection: a warm
        # sandbox serves the console's first screen (no key in it) without cryptography.
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        return AESGCM(self._key)

    def seal(self, text: str | None) -> str | None:
        if text is None or text.startswith(PREFIX):
            return text
        nonce = os.urandom(_NONCE)
        sealed = self._aead.encrypt(nonce, text.encode("utf-8"), None)
        return PREFIX + base64.b64encode(nonce + sealed).decode()

    def unseal(self, text: str | None) -> str | None:
        if text is None or not text.startswith(PREFIX):
            return text
        raw = base64.b64decode(text[len(PREFIX) :])
        return self._aead.decrypt(raw[:_NONCE], raw[_NONCE:], None).decode("utf-8")

    def demo_secret(self, client_id: str) -> str:
        digest = hmac.new(self._key, b"demo-client-secret\0" + client_id.encode(), "sha256")
        return base64.urlsafe_b64encode(digest.digest()[:24]).decode().rstrip("=")

    def register(self, conn: sqlite3.Connection) -> None:
        conn.create_function("seal", 1, self.seal)
        conn.create_function("unseal", 1, self.unseal, deterministic=True)
        conn.create_function("token_hash", 1, _sql_hash, deterministic=True)
        conn.create_function("demo_secret", 1, self.demo_secret, deterministic=True)


def _scrypt(text: str, salt: bytes) -> bytes:
    # surrogatepass: any str a JSON body can carry hashes, none raises.
    return hashlib.scrypt(text.encode("utf-8", "surrogatepass"), salt=salt, n=2**14, r=8, p=1)


def scrypt_hash(text: str) -> str:
    """`scrypt$<salt>$<digest>` (hex) with a random salt: what is kept of a secret."""
    salt = secrets.token_bytes(16)
    return f"scrypt${salt.hex()}${_scrypt(text, salt).hex()}"


def scrypt_matches(stored: str, text: str) -> bool:
    _kind, salt, digest = stored.split("$")
    return secrets.compare_digest(_scrypt(text, bytes.fromhex(salt)).hex(), digest)


def ensure_functions(conn: sqlite3.Connection) -> None:
    """Register the functions on a connection made without them (a plain `sqlite3.connect`
    handed to `migrate`), with the key file of its database; a database in memory gets a key
    of its own, as nothing of it outlives the connection."""
    try:
        conn.execute("SELECT seal(NULL)")
    except sqlite3.OperationalError:
        path = conn.execute("PRAGMA database_list").fetchone()[2]
        Sealer(load_key(Path(path)) if path else os.urandom(KEY_BYTES)).register(conn)


def _sql_hash(text: str | None) -> str | None:
    return None if text is None else token_hash(text)


def seal(conn: sqlite3.Connection, text: str | None) -> str | None:
    """`text` sealed with the connection's key (for code that writes through Python)."""
    return conn.execute("SELECT seal(?)", (text,)).fetchone()[0]  # type: ignore[no-any-return]


def unseal(conn: sqlite3.Connection, text: str | None) -> str | None:
    return conn.execute("SELECT unseal(?)", (text,)).fetchone()[0]  # type: ignore[no-any-return]
