"""The profiles dialog asks for an explicit confirmation before plain http:// to another
computer, and stores it with the profile."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings

from lpwa_console.models.profiles import MemorySecretStore, ProfileStore
from lpwa_console.models.session import Session
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.ui.dialogs.profiles import ProfilesDialog


def test_plain_http_is_saved_only_once_confirmed(qtbot: Any, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    store = ProfileStore(settings, MemorySecretStore())
    dialog = ProfilesDialog(store, Session(store, TaskRunner(), None))
    qtbot.addWidget(dialog)
    dialog.add()
    dialog.name.setText("Lab")
    dialog.token_url.setText("https://lab.example/users-auth/protocol/openid-connect/token")
    dialog.client_id.setText("lab-console")
    dialog.secret.setText("lab-secret")
    dialog.subscriber_url.setText("https://lab.example/thingpark/wireless/rest")
    assert dialog.allow_http.isHidden()

    dialog.subscriber_url.setText("http://lab.example/thingpark/wireless/rest")
    assert not dialog.allow_http.isHidden() and not dialog.allow_http.isChecked()
    assert dialog.save() is None
    assert "unencrypted" in dialog.error.text()
    assert store.get("Lab") is None

    assert dialog.secret.text() == "lab-secret"  # a refused save keeps what was typed
    dialog.allow_http.setChecked(True)
    saved = dialog.save()
    assert saved is not None and saved.allow_plain_http
    stored = store.get("Lab")
    assert stored is not None and stored.allow_plain_http
    # Shown again, the confirmation is there; loopback needs none.
    assert not dialog.allow_http.isHidden() and dialog.allow_http.isChecked()
    dialog.subscriber_url.setText("http://127.0.0.1:8080/thingpark/wireless/rest")
    assert dialog.allow_http.isHidden()
    assert dialog.current_profile().allow_plain_http is False
    dialog.close()
