"""A user whose name has spaces, an apostrophe and non-ASCII letters (a Windows profile folder
such as C:\\Users\\Zoë Ünal O'Brien): the console's self-test runs on a data folder there,
and profiles, their secrets file and the embedded sandbox's child all take such paths.
docs/portability.md lists the other places that once assumed a POSIX system."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.models.embedded import _environment, default_data_dir
from lpwa_console.models.profiles import Profile, ProfileStore
from lpwa_console.models.secret_storage import SecretStorage

USER = "Zoë Ünal O'Brien"
SELF_TEST_TIMEOUT_S = 300  # a new demo network, every pane: ~10 s on a quiet machine


def _home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A home folder named after the user, and the variables each OS finds it by."""
    home = tmp_path / "Users" / USER
    home.mkdir(parents=True)
    env = {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "APPDATA": str(home / "AppData" / "Roaming"),
        "LOCALAPPDATA": str(home / "AppData" / "Local"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    return home, env


def test_self_test_with_a_data_folder_under_such_a_home(tmp_path: Path) -> None:
    home, env = _home(tmp_path)
    data = home / "LPWA Console data"
    run_env = dict(os.environ, **env, QT_QPA_PLATFORM="offscreen")
    run_env.pop("PYTHON_KEYRING_BACKEND", None)  # keyring's own choice, as for a user
    done = subprocess.run(
        [sys.executable, "-m", "lpwa_console", "--self-test", "--data-dir", str(data)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=run_env,
        timeout=SELF_TEST_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["ok"] is True and report["panes"]["devices"]["rows"] > 0
    assert (data / "sandbox.db").is_file()  # the sandbox child took the path as it is
    assert (data / "logs" / "console.log").is_file()


def test_profiles_and_their_secrets_file_under_such_a_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, env = _home(tmp_path)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    data = default_data_dir()
    assert home in data.parents  # the user's own folder, whatever its name
    settings = QSettings(str(data / "settings.ini"), QSettings.Format.IniFormat)
    secrets = SecretStorage(data, keyring_ok=lambda: False, scrypt_n=2**10)
    secrets.use_file("Zoë's passphrase")
    store = ProfileStore(settings, secrets)
    profile = Profile(
        "Zoë's lab",
        subscriber_url="https://lab.example/thingpark/wireless/rest",
        token_url="https://lab.example/users-auth/protocol/openid-connect/token",
        client_id="zoë-console",
    )
    store.save(profile, "sécret")
    settings.sync()
    again = ProfileStore(
        QSettings(str(data / "settings.ini"), QSettings.Format.IniFormat),
        SecretStorage(data, keyring_ok=lambda: False, scrypt_n=2**10),
    )
    assert again.get("Zoë's lab") == profile
    assert again.has_secret(profile)
    assert (data / "secrets.vault").is_file()


def test_the_sandbox_child_writes_utf8() -> None:
    """Its lines (a refusal naming a path with "Ü") are read as UTF-8: on Windows a pipe's
    encoding would otherwise be the ANSI code page."""
    assert _environment().value("PYTHONIOENCODING") == "utf-8"


def test_a_tile_another_reader_holds_open_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows refuses to replace a file that another handle has open (POSIX replaces it):
    the tile there is the same one, so ours is dropped instead of failing the fetch."""
    import httpx

    from lpwa_console.models.tiles import CachedTile, OnlineTileSource, TileKey

    source = OnlineTileSource(
        "https://tiles.example/{z}/{x}/{y}.png", tmp_path, http=httpx.AsyncClient()
    )
    key = TileKey(3, 4, 5)

    def refused(self: Path, target: Path) -> Path:
        raise PermissionError(13, "The process cannot access the file")

    monkeypatch.setattr(Path, "replace", refused)
    source._write_cached(key, CachedTile(b"png", 0.0, "", ""))
    assert list(source.cache_path(key).parent.glob("*.part")) == []


def test_nothing_forces_a_keyring_backend() -> None:
    """keyring's own choice stands: on Windows the Credential Manager, on macOS the
    Keychain, on Linux the Secret Service. Only the tests pick one, for themselves."""
    src = Path(__file__).resolve().parents[1] / "src"
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for forcing in ("set_keyring(", "PYTHON_KEYRING_BACKEND", "keyring.core.load_"):
            assert forcing not in text, f"{path.relative_to(src)} forces a keyring: {forcing}"
