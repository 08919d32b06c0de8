"""Secrets without a keyring: the encrypted secrets file and the storage that chooses between
the keyring, this session's memory and that file."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from lpwa_console.models.profiles import MemorySecretStore, SecretStoreError
from lpwa_console.models.secret_file import (
    EncryptedSecretFile,
    PassphraseNeeded,
    SecretFileError,
    WrongPassphrase,
)
from lpwa_console.models.secret_storage import KeyringUnavailable, SecretStorage, keyring_usable

FAST = 2**10  # scrypt's cost in these tests (the console's is 2^15)
SECRET = "client-secret-Zoë-42"
PASSPHRASE = "Zoë Ünal: correct horse"


class FailingKeyring(MemorySecretStore):
    """A keyring that is there but refuses (a locked-down workstation)."""

    def set(self, key: str, secret: str) -> None:
        raise SecretStoreError("The keyring refused the secret: denied")


def test_the_file_opens_with_its_passphrase_only(tmp_path: Path) -> None:
    path = tmp_path / "data" / "secrets.vault"
    vault = EncryptedSecretFile(path, scrypt_n=FAST)
    with pytest.raises(WrongPassphrase, match="at least 8"):
        vault.unlock("short")
    vault.unlock(PASSPHRASE)
    vault.set("Lab:lab-console", SECRET)
    raw = path.read_bytes()
    assert SECRET.encode() not in raw and PASSPHRASE.encode() not in raw
    assert json.loads(raw)["entries"] == ["Lab:lab-console"]
    if os.name == "posix":
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    again = EncryptedSecretFile(path, scrypt_n=FAST)  # the next session
    assert again.names() == ["Lab:lab-console"] and not again.unlocked
    with pytest.raises(PassphraseNeeded):
        again.get("Lab:lab-console")
    assert again.get("Other:x") is None  # not there: no passphrase needed to say so
    with pytest.raises(WrongPassphrase, match="does not open the secrets file"):
        again.unlock("not the passphrase")
    again.unlock(PASSPHRASE)
    assert again.get("Lab:lab-console") == SECRET
    again.delete("Lab:lab-console")
    assert EncryptedSecretFile(path).names() == []


def test_a_changed_file_does_not_open(tmp_path: Path) -> None:
    path = tmp_path / "secrets.vault"
    vault = EncryptedSecretFile(path, scrypt_n=FAST)
    vault.unlock(PASSPHRASE)
    vault.set("Lab:lab-console", SECRET)
    document = json.loads(path.read_text())
    document["entries"] = ["Other:lab-console"]  # the names are authenticated too
    path.write_text(json.dumps(document))
    with pytest.raises(WrongPassphrase):
        EncryptedSecretFile(path).unlock(PASSPHRASE)
    path.write_text("not json")
    with pytest.raises(SecretFileError):
        EncryptedSecretFile(path).unlock(PASSPHRASE)


def test_without_a_keyring_the_user_chooses(tmp_path: Path) -> None:
    storage = SecretStorage(tmp_path, keyring_ok=lambda: False, scrypt_n=FAST)
    assert storage.target() is None
    with pytest.raises(KeyringUnavailable, match=r"session only.*encrypted with a passphrase"):
        storage.set("Lab:lab-console", SECRET)

    storage.use_session()
    storage.set("Lab:lab-console", SECRET)
    assert storage.get("Lab:lab-console") == SECRET
    assert storage.where("Lab:lab-console") == "session"
    assert not (tmp_path / "secrets.vault").exists()

    storage.use_file(PASSPHRASE)  # a new secret of the same name moves to the file
    storage.set("Lab:lab-console", SECRET + "2")
    assert storage.where("Lab:lab-console") == "file"
    assert storage.session.secrets == {}

    restarted = SecretStorage(tmp_path, keyring_ok=lambda: False, scrypt_n=FAST)
    assert restarted.target() == "file" and restarted.has("Lab:lab-console")
    with pytest.raises(PassphraseNeeded):
        restarted.get("Lab:lab-console")
    with pytest.raises(PassphraseNeeded):
        restarted.set("New:x", "s")
    restarted.use_file(PASSPHRASE)
    assert restarted.get("Lab:lab-console") == SECRET + "2"


def test_a_keyring_that_refuses_offers_the_same_choice(tmp_path: Path) -> None:
    storage = SecretStorage(tmp_path, keyring=FailingKeyring(), keyring_ok=lambda: True)
    assert storage.target() == "keyring"
    with pytest.raises(KeyringUnavailable, match="did not take"):
        storage.set("Lab:lab-console", SECRET)
    storage.use_session()
    storage.set("Lab:lab-console", SECRET)
    assert storage.get("Lab:lab-console") == SECRET


def test_the_keyring_is_used_when_there_is_one(tmp_path: Path) -> None:
    keyring = MemorySecretStore()
    storage = SecretStorage(tmp_path, keyring=keyring, keyring_ok=lambda: True)
    storage.set("Lab:lab-console", SECRET)
    assert keyring.secrets == {"Lab:lab-console": SECRET}
    assert storage.where("Lab:lab-console") == "keyring"
    storage.delete("Lab:lab-console")
    assert keyring.secrets == {}
    assert not (tmp_path / "secrets.vault").exists()


def test_keyring_fail_and_null_backends_are_no_keyring() -> None:
    import keyring
    from keyring.backends import fail, null

    before = keyring.get_keyring()
    try:
        keyring.set_keyring(fail.Keyring())
        assert not keyring_usable()
        keyring.set_keyring(null.Keyring())
        assert not keyring_usable()
    finally:
        keyring.set_keyring(before)
