"""Client secrets in a file encrypted with a passphrase, for a computer without a keyring.

One JSON file, owner-only (`private_files`), in the data folder:

    {"format": ..., "kdf": {"name": "scrypt", "salt", "n", "r", "p"},
     "entries": [the names of the secrets, e.g. "Lab:lab-console"],
     "nonce": ..., "box": AES-256-GCM of {name: secret}}

The key is derived from the passphrase with scrypt; the names and the key's parameters are
the box's associated data, so a changed name or parameter fails to open like a wrong
passphrase. The names are in clear (they are a profile's name and client ID, which the
settings hold anyway): the console can say where a secret is without the passphrase. The
passphrase itself is never kept: the derived key is, in memory, until the console closes.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from ..private_files import write_private
from .profiles import SecretStoreError

FORMAT = "lpwa-console secrets 1"
FILE_NAME = "secrets.vault"
# scrypt's cost: 2^15 x 8 x 128 bytes = 32 MiB and ~0.1 s a derivation, once a session.
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSPHRASE = 8


class PassphraseNeeded(SecretStoreError):
    """The secret is in the encrypted file, which this session has not opened yet."""


class WrongPassphrase(SecretStoreError):
    """The passphrase does not open the file (or the file was changed)."""


class SecretFileError(SecretStoreError):
    """The file cannot be read as a secrets file."""


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(text: Any) -> bytes:
    if not isinstance(text, str):
        raise ValueError("not base64 text")
    return base64.b64decode(text.encode("ascii"), validate=True)


class EncryptedSecretFile:
    """The secrets file: `unlock(passphrase)` once, then get/set/delete like a keyring."""

    def __init__(self, path: Path, *, scrypt_n: int = SCRYPT_N) -> None:
        self.path = path
        self._scrypt_n = scrypt_n
        self._key: bytes | None = None
        self._kdf: dict[str, Any] = {}
        self._secrets: dict[str, str] = {}

    # --- state ---------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.path.is_file()

    @property
    def unlocked(self) -> bool:
        return self._key is not None

    def names(self) -> list[str]:
        """The names of the secrets it holds, readable without the passphrase."""
        if self.unlocked:
            return sorted(self._secrets)
        if not self.exists():
            return []
        try:
            entries = self._read()["entries"]
        except (SecretFileError, KeyError):
            return []
        return [str(e) for e in entries] if isinstance(entries, list) else []

    def lock(self) -> None:
        """Forget the key and the secrets (the file stays)."""
        self._key = None
        self._secrets = {}

    # --- opening ---------------------------------------------------------------------------

    def unlock(self, passphrase: str) -> None:
        """Open the file with `passphrase`, or make a new one protected by it.
        WrongPassphrase when it does not open the file."""
        if not passphrase:
            raise WrongPassphrase("Type the passphrase of the secrets file")
        if not self.exists():
            if len(passphrase) < MIN_PASSPHRASE:
                raise WrongPassphrase(
                    f"A passphrase of at least {MIN_PASSPHRASE} characters, please"
                )
            salt = os.urandom(16)
            self._kdf = {
                "name": "scrypt", "salt": _b64(salt), "n": self._scrypt_n,
                "r": SCRYPT_R, "p": SCRYPT_P,
            }  # fmt: skip
            self._key = _derive(passphrase, self._kdf)
            self._secrets = {}
            self._write()
            return
        document = self._read()
        try:
            kdf = document["kdf"]
            key = _derive(passphrase, kdf)
            nonce, box = _unb64(document["nonce"]), _unb64(document["box"])
        except (KeyError, TypeError, ValueError) as exc:
            raise SecretFileError(f"{self.path} is not a secrets file of this console") from exc
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        try:
            plain = AESGCM(key).decrypt(nonce, box, _associated(document))
        except InvalidTag:
            raise WrongPassphrase(
                "This passphrase does not open the secrets file: type the one chosen when a"
                " secret was first stored there"
            ) from None
        secrets = json.loads(plain)
        if not isinstance(secrets, dict):
            raise SecretFileError(f"{self.path} is not a secrets file of this console")
        self._kdf, self._key = kdf, key
        self._secrets = {str(k): str(v) for k, v in secrets.items()}

    # --- the SecretStore protocol ----------------------------------------------------------

    def get(self, key: str) -> str | None:
        if key not in self.names():
            return None
        self._need_key()
        return self._secrets.get(key)

    def set(self, key: str, secret: str) -> None:
        self._need_key()
        self._secrets[key] = secret
        self._write()

    def delete(self, key: str) -> None:
        if key not in self.names():
            return
        self._need_key()
        del self._secrets[key]
        self._write()

    # --- the file --------------------------------------------------------------------------

    def _need_key(self) -> None:
        if self._key is None:
            raise PassphraseNeeded("The secrets file is locked: its passphrase is needed")

    def _read(self) -> dict[str, Any]:
        try:
            document = json.loads(self.path.read_bytes())
        except (OSError, ValueError) as exc:
            raise SecretFileError(f"The secrets file {self.path} cannot be read: {exc}") from exc
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            raise SecretFileError(f"{self.path} is not a secrets file of this console")
        return document

    def _write(self) -> None:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM

        assert self._key is not None
        document: dict[str, Any] = {
            "format": FORMAT,
            "kdf": self._kdf,
            "entries": sorted(self._secrets),
        }
        nonce = os.urandom(12)
        plain = json.dumps(self._secrets, sort_keys=True).encode()
        box = AESGCM(self._key).encrypt(nonce, plain, _associated(document))
        document |= {"nonce": _b64(nonce), "box": _b64(box)}
        write_private(self.path, json.dumps(document, indent=1).encode())


def _associated(document: dict[str, Any]) -> bytes:
    """What the box authenticates beside the secrets: format, key parameters and names."""
    keys = ("format", "kdf", "entries")
    return json.dumps({k: document.get(k) for k in keys}, sort_keys=True).encode()


def _derive(passphrase: str, kdf: Any) -> bytes:
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    if not isinstance(kdf, dict) or kdf.get("name") != "scrypt":
        raise ValueError("unknown key derivation")
    n, r, p = int(kdf["n"]), int(kdf["r"]), int(kdf["p"])
    if not (2 <= n <= 2**20 and 1 <= r <= 32 and 1 <= p <= 16):
        raise ValueError("key derivation parameters out of range")
    scrypt = Scrypt(salt=_unb64(kdf["salt"]), length=32, n=n, r=r, p=p)
    return scrypt.derive(passphrase.encode("utf-8"))
