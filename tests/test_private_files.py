"""Owner-only files: 0600 in a 0700 folder on POSIX whatever the umask; on Windows, where
mode bits mean nothing, written the same way and left to the profile folder's ACL."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from lpwa_console import private_files
from lpwa_console.private_files import is_private, private_dir, write_private


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_written_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    before = os.umask(0o000)  # the loosest a user could have
    try:
        path = tmp_path / "made" / "secret.bin"
        write_private(path, b"one")
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert is_private(path)
        path.chmod(0o644)  # an older file: a rewrite replaces it with a private one
        write_private(path, b"two")
        assert path.read_bytes() == b"two" and is_private(path)
        assert not (tmp_path / "made" / "secret.bin.new").exists()
    finally:
        os.umask(before)


def test_the_windows_branch_writes_and_leaves_modes_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(private_files, "POSIX", False)
    monkeypatch.delattr(os, "fchmod", raising=False)  # Windows has none
    path = private_dir(tmp_path / "Zoë Ünal O'Brien" / "AppData") / "secrets.vault"
    write_private(path, b"sealed")
    assert path.read_bytes() == b"sealed"
    assert is_private(path)  # the ACL of the profile folder decides there
