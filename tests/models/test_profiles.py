"""Profiles: settings in a temp ini file, secrets only in the (in-memory) secret store."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.models.profiles import (
    EMBEDDED_NAME,
    MemorySecretStore,
    Profile,
    ProfileStore,
)


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)


def remote(name: str = "Prod") -> Profile:
    return Profile(
        name,
        subscriber_url="https://lpwa.example/thingpark/wireless/rest",
        token_url="https://lpwa.example/users-auth/protocol/openid-connect/token",
        client_id="ops-console",
    )


def test_embedded_is_the_default(settings: QSettings) -> None:
    store = ProfileStore(settings, MemorySecretStore())
    assert store.names() == [EMBEDDED_NAME]
    assert store.last_profile().is_embedded
    assert store.last_profile().role == "subscriber"
    store.set_embedded_role("operator")
    assert store.embedded().role == "operator"


def test_secret_goes_to_the_store_only(settings: QSettings, tmp_path: Path) -> None:
    secrets = MemorySecretStore()
    store = ProfileStore(settings, secrets)
    store.save(remote(), "s3cr3t-value")
    settings.sync()
    assert "s3cr3t-value" not in (tmp_path / "settings.ini").read_text()
    assert store.secret(remote()) == "s3cr3t-value"
    again = ProfileStore(
        QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), secrets
    )
    assert again.get("Prod") == remote()
    assert "s3cr3t" not in repr(again.get("Prod"))


def test_rename_keeps_secret_and_last_profile(settings: QSettings) -> None:
    secrets = MemorySecretStore()
    store = ProfileStore(settings, secrets)
    store.save(remote(), "x")
    store.set_last_profile("Prod")
    store.save(remote("Production"), None, old_name="Prod")
    assert store.names() == [EMBEDDED_NAME, "Production"]
    assert store.secret(remote("Production")) == "x"
    assert list(secrets.secrets) == ["Production:ops-console"]
    assert store.last_profile_name() == "Production"
    store.remove("Production")
    assert secrets.secrets == {} and store.last_profile().is_embedded


def test_problems_are_reported_by_field() -> None:
    bad = Profile("x", subscriber_url="ftp://nope", token_url="", client_id="")
    assert set(bad.problems()) == {"subscriber_url", "token_url", "client_id"}
    with pytest.raises(ValueError):
        ProfileStore(QSettings(), MemorySecretStore()).save(bad, "s")
