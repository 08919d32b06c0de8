"""Where the client secrets of the profiles go: the OS keyring when the computer has one
(Secret Service, Keychain, the Windows Credential Manager); otherwise, as the user chooses,
memory for this session only or a file encrypted with a passphrase (`secret_file`).

A computer without a keyring (a minimal Linux, a locked-down workstation) does not fail a
save with keyring's own exception: `set` raises `KeyringUnavailable`, the profile dialog
offers the two choices, and the save is done again once one is made. The choice holds until
the console closes; a secrets file found at start is the choice of the next session (its
passphrase asked when first needed).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from .profiles import KeyringSecretStore, MemorySecretStore, SecretStore, SecretStoreError
from .secret_file import FILE_NAME, EncryptedSecretFile, PassphraseNeeded

log = logging.getLogger(__name__)

Storage = Literal["keyring", "session", "file"]
# "A secret is stored <words>"
STORAGE_WORDS: dict[str, str] = {
    "keyring": "in the keyring",
    "session": "for this session only",
    "file": "in the encrypted secrets file",
}


class KeyringUnavailable(SecretStoreError):
    """No keyring takes the secret here: the user chooses where it goes instead."""


def keyring_usable() -> bool:
    """False when keyring found no backend (its `fail` one) or was told to keep nothing (its
    `null` one): a secret given to either is lost. Nothing here picks a backend: keyring's
    own choice stands (on Windows the Credential Manager)."""
    try:
        import keyring
        from keyring.backends import fail, null

        backend = keyring.get_keyring()
    except Exception:  # a broken keyring configuration is no keyring
        log.warning("the keyring could not be loaded", exc_info=True)
        return False
    return not isinstance(backend, fail.Keyring | null.Keyring)


class SecretStorage:
    """A SecretStore over the keyring, this session's memory and the secrets file."""

    def __init__(
        self,
        data_dir: Path,
        *,
        keyring: SecretStore | None = None,
        keyring_ok: Callable[[], bool] = keyring_usable,
        scrypt_n: int | None = None,
    ) -> None:
        self.keyring = keyring or KeyringSecretStore()
        self._keyring_ok = keyring_ok
        self._keyring_known: bool | None = None
        self.session = MemorySecretStore()
        kwargs = {} if scrypt_n is None else {"scrypt_n": scrypt_n}
        self.file = EncryptedSecretFile(data_dir / FILE_NAME, **kwargs)
        # Where new secrets go when the keyring does not take them: chosen by the user, or
        # the secrets file of an earlier session.
        self.fallback: Storage | None = None

    # --- choices ------------------------------------------------------------------------

    def keyring_available(self) -> bool:
        if self._keyring_known is None:
            self._keyring_known = self._keyring_ok()
        return self._keyring_known

    def target(self) -> Storage | None:
        """Where `set` puts a secret now (None: nowhere until the user chooses)."""
        if self.fallback is not None:
            return self.fallback
        if self.keyring_available():
            return "keyring"
        return "file" if self.file.exists() else None

    def use_session(self) -> None:
        """New secrets stay in memory until the console closes."""
        self.fallback = "session"

    def use_file(self, passphrase: str) -> None:
        """New secrets go to the secrets file, opened (or made) with `passphrase`.
        WrongPassphrase when it does not open it."""
        self.file.unlock(passphrase)
        self.fallback = "file"

    def where(self, key: str) -> Storage | None:
        """Where the secret of `key` is, without asking for a passphrase."""
        if key in self.session.secrets:
            return "session"
        if key in self.file.names():
            return "file"
        if self.keyring_available():
            try:
                if self.keyring.get(key):
                    return "keyring"
            except SecretStoreError:
                return None
        return None

    # --- the SecretStore protocol ---------------------------------------------------------

    def get(self, key: str) -> str | None:
        if key in self.session.secrets:
            return self.session.get(key)
        if key in self.file.names():
            return self.file.get(key)  # PassphraseNeeded while locked
        if self.keyring_available():
            return self.keyring.get(key)
        return None

    def has(self, key: str) -> bool:
        return self.where(key) is not None

    def set(self, key: str, secret: str) -> None:
        target = self.target()
        if target is None:
            raise KeyringUnavailable(
                "This computer has no keyring to keep the client secret: keep it for this"
                " session only, or store it in a file encrypted with a passphrase"
            )
        if target == "keyring":
            try:
                self.keyring.set(key, secret)
            except SecretStoreError as exc:
                self._keyring_known = False
                log.warning("the keyring refused a secret: %s", type(exc.__cause__).__name__)
                raise KeyringUnavailable(
                    "The keyring did not take the client secret: keep it for this session"
                    " only, or store it in a file encrypted with a passphrase"
                ) from exc
        elif target == "file":
            if not self.file.unlocked:
                raise PassphraseNeeded(
                    "The client secret goes to the encrypted secrets file: type its passphrase"
                    " (or keep the secret for this session only)"
                )
            self.file.set(key, secret)
        else:
            self.session.set(key, secret)
        self._forget_elsewhere(key, target)

    def delete(self, key: str) -> None:
        self.session.delete(key)
        if self.file.unlocked:
            self.file.delete(key)
        elif key in self.file.names():
            # Encrypted, it stays until the file is next opened; a new secret of the same
            # name replaces it.
            log.info("a secret stays in the locked secrets file until it is opened")
        if self.keyring_available():
            self.keyring.delete(key)

    def _forget_elsewhere(self, key: str, kept: Storage) -> None:
        """One secret per key: a secret moved (a new one typed) leaves no older copy."""
        if kept != "session":
            self.session.delete(key)
        if kept != "file" and self.file.unlocked:
            self.file.delete(key)
        if kept != "keyring" and self.keyring_available():
            with contextlib.suppress(SecretStoreError):
                self.keyring.delete(key)
