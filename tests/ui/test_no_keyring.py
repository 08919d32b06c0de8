"""A computer without a keyring, as a user meets it: adding a platform offers a choice (this
session only, or a file encrypted with a passphrase) instead of keyring's own exception, the
form keeps what was typed, and the profile works: until the console restarts for the first
choice, after a restart with the passphrase for the second. The secret is never in the
settings, the log or anywhere in the data folder in clear."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QSettings, Qt
from PySide6.QtWidgets import QApplication

from lpwa_console.app import Console, Options, build
from lpwa_console.models.crash_log import install_log_file
from lpwa_console.ui.dialogs.profiles import ProfilesDialog

PASSPHRASE = "Zoe's long passphrase"  # typed key by key: ASCII (QTest)
KEYRING_WORDS = "No recommended backend"  # keyring's own exception, never shown


@pytest.fixture
def no_keyring() -> Iterator[None]:
    """keyring as on a computer without any backend (a minimal Linux)."""
    import keyring
    from keyring.backends import fail

    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(before)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


@pytest.fixture
def log_file(data: Path) -> Iterator[Path]:
    """The console's own log file, at DEBUG, as `startup.install_crash_handling` makes it."""
    handler = install_log_file(data / "logs", level=logging.DEBUG)
    yield Path(handler.baseFilename)
    logging.getLogger().removeHandler(handler)
    handler.close()


class Consoles:
    """Start the console on one data folder, close it, start it again (a restart)."""

    def __init__(self, qtbot: Any, data: Path) -> None:
        self.qtbot = qtbot
        self.data = data
        self.opened: list[Console] = []

    def start(self) -> Console:
        settings = QSettings(str(self.data / "settings.ini"), QSettings.Format.IniFormat)
        console = build(Options(data_dir=self.data), settings=settings)  # the real secrets
        console.window.resize(1280, 720)
        console.window.show()
        self.qtbot.waitExposed(console.window)
        self.opened.append(console)
        return console

    def close(self, console: Console) -> None:
        self.opened.remove(console)
        task = asyncio.ensure_future(console.aclose())
        self.qtbot.waitUntil(task.done, timeout=10_000)
        self.qtbot.waitUntil(lambda: not console.runner.busy, timeout=10_000)
        console.settings.sync()
        console.window.close()
        console.window.deleteLater()
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    def close_all(self) -> None:
        for console in list(self.opened):
            self.close(console)


@pytest.fixture
def consoles(qtbot: Any, qloop: Any, data: Path, no_keyring: None) -> Iterator[Consoles]:
    made = Consoles(qtbot, data)
    yield made
    made.close_all()


def _profiles_dialog(console: Console, qtbot: Any) -> ProfilesDialog:
    console.window.manage_profiles()
    dialog = console.window.findChild(ProfilesDialog)
    assert dialog is not None
    qtbot.waitExposed(dialog)
    return dialog


def _add_platform(dialog: ProfilesDialog, qtbot: Any, sandbox: Any, secret: str) -> None:
    """What the user types: the sandbox as a remote platform, its subscriber's secret."""
    qtbot.mouseClick(
        next(
            b for b in dialog.findChildren(type(dialog.save_button)) if b.text() == "Add platform"
        ),
        Qt.MouseButton.LeftButton,
    )
    account = sandbox.account("subscriber")
    qtbot.keyClicks(dialog.name, "Lab")
    qtbot.keyClicks(dialog.subscriber_url, sandbox.base_url)
    qtbot.keyClicks(dialog.token_url, sandbox.token_url)
    qtbot.keyClicks(dialog.client_id, account["client_id"])
    qtbot.keyClicks(dialog.secret, secret)


def _typed_form_kept(dialog: ProfilesDialog, sandbox: Any, secret: str) -> None:
    assert dialog.name.text() == "Lab"
    assert dialog.subscriber_url.text() == sandbox.base_url
    assert dialog.secret.text() == secret  # not lost


def _no_secret_anywhere(data: Path, secrets: list[str], log_text: str) -> None:
    for path in data.rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            for secret in secrets:
                assert secret.encode() not in raw, f"{secret!r} in clear in {path.name}"
    for secret in secrets:
        assert secret not in log_text


def test_without_keyring_a_secret_kept_for_the_session_works_until_restart(
    consoles: Consoles,
    sandbox: Any,
    qtbot: Any,
    data: Path,
    log_file: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = sandbox.account("subscriber")["client_secret"]
    console = consoles.start()
    dialog = _profiles_dialog(console, qtbot)
    _add_platform(dialog, qtbot, sandbox, secret)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)

    # No keyring: a choice, in words, not keyring's exception; nothing saved yet.
    choice = dialog.storage_choice
    assert choice.isVisible()
    assert "no keyring" in choice.reason.text()
    assert KEYRING_WORDS not in choice.reason.text() + dialog.error.text()
    _typed_form_kept(dialog, sandbox, secret)
    assert console.profiles.get("Lab") is None
    assert not choice.use_button.isEnabled()  # nothing picked yet

    qtbot.mouseClick(choice.session_option, Qt.MouseButton.LeftButton)
    assert not choice.passphrase.isVisible()  # no passphrase for this one
    qtbot.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert console.session.profile is not None and console.session.profile.name == "Lab"
    assert not (data / "secrets.vault").exists()
    consoles.close(console)

    # After a restart the session's secret is gone, and the message says why.
    console = consoles.start()
    profile = console.profiles.get("Lab")
    assert profile is not None
    console.session.open(profile)
    qtbot.waitUntil(lambda: console.session.state == "failed", timeout=10_000)
    assert "session only" in console.session.message
    assert "edit the profile" in console.session.message
    dialog = _profiles_dialog(console, qtbot)
    assert dialog.secret_state.text() == ""  # nothing stored
    dialog.close()

    _no_secret_anywhere(data, [secret], log_file.read_text() + caplog.text)


def test_without_keyring_a_secret_in_the_encrypted_file_works_after_restart(
    consoles: Consoles,
    sandbox: Any,
    qtbot: Any,
    data: Path,
    log_file: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = sandbox.account("subscriber")["client_secret"]
    console = consoles.start()
    dialog = _profiles_dialog(console, qtbot)
    _add_platform(dialog, qtbot, sandbox, secret)
    qtbot.mouseClick(dialog.connect_button, Qt.MouseButton.LeftButton)
    choice = dialog.storage_choice
    assert choice.isVisible()

    qtbot.mouseClick(choice.file_option, Qt.MouseButton.LeftButton)
    assert choice.passphrase.isVisible() and choice.again.isVisible()
    qtbot.keyClicks(choice.passphrase, PASSPHRASE)
    qtbot.keyClicks(choice.again, PASSPHRASE + "x")
    qtbot.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    assert "differ" in choice.problem.text()
    _typed_form_kept(dialog, sandbox, secret)
    qtbot.keyClicks(choice.again, PASSPHRASE)
    qtbot.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert (data / "secrets.vault").is_file()
    consoles.close(console)

    # A restart: the profile says where its secret is; connecting asks the passphrase once.
    console = consoles.start()
    dialog = _profiles_dialog(console, qtbot)
    assert "encrypted secrets file" in dialog.secret_state.text()
    dialog.close()
    profile = console.profiles.get("Lab")
    assert profile is not None
    console.session.open(profile)
    prompt = console.window.passphrase_prompt
    qtbot.waitUntil(lambda: prompt.dialog is not None and prompt.dialog.isVisible())
    assert "passphrase" in console.session.message
    # A question, not an error: the activity panel stays closed and lists no error.
    assert not console.window.activity_dock.isVisible()
    assert console.window.activity.errors_title.text() == "Errors (0)"
    assert console.window.state_label.text() == console.session.message  # not "failed"
    asking = prompt.dialog
    assert asking is not None
    qtbot.keyClicks(asking.passphrase, "not my passphrase")
    qtbot.mouseClick(asking.open_button, Qt.MouseButton.LeftButton)
    assert "does not open the secrets file" in asking.error.text()
    assert asking.isVisible() and asking.passphrase.text() == ""
    qtbot.keyClicks(asking.passphrase, PASSPHRASE)
    qtbot.mouseClick(asking.open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert prompt.dialog is None
    assert not console.window.activity_dock.isVisible()

    # Asked once a session: another connect needs no passphrase.
    console.session.open(profile)
    qtbot.waitUntil(lambda: console.session.state == "connected", timeout=20_000)
    assert prompt.dialog is None

    _no_secret_anywhere(data, [secret, PASSPHRASE], log_file.read_text() + caplog.text)


def test_a_new_secret_with_the_file_locked_asks_its_passphrase(
    consoles: Consoles, sandbox: Any, qtbot: Any, data: Path
) -> None:
    """A second session adding a platform: the secrets file of the first is the place,
    its passphrase asked in the panel; a wrong one says so and keeps the form."""
    from lpwa_console.models.secret_file import EncryptedSecretFile

    vault = EncryptedSecretFile(data / "secrets.vault")
    vault.unlock(PASSPHRASE)
    vault.set("Old:old-console", "old-secret")
    secret = sandbox.account("subscriber")["client_secret"]
    console = consoles.start()
    dialog = _profiles_dialog(console, qtbot)
    _add_platform(dialog, qtbot, sandbox, secret)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    choice = dialog.storage_choice
    assert choice.isVisible() and choice.file_option.isChecked()
    assert not choice.again.isVisible()  # the file has its passphrase already
    qtbot.keyClicks(choice.passphrase, "wrong passphrase")
    qtbot.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    assert "does not open the secrets file" in choice.problem.text()
    _typed_form_kept(dialog, sandbox, secret)
    qtbot.keyClicks(choice.passphrase, PASSPHRASE)
    qtbot.mouseClick(choice.use_button, Qt.MouseButton.LeftButton)
    assert not choice.isVisible()
    assert dialog.secret.text() == ""  # stored now
    assert "encrypted secrets file" in dialog.secret_state.text()
    assert sorted(EncryptedSecretFile(data / "secrets.vault").names()) == [
        "Lab:" + sandbox.account("subscriber")["client_id"],
        "Old:old-console",
    ]
    dialog.close()
