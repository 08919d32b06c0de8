"""Profiles: settings in a temp ini file, secrets only in the (in-memory) secret store."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QSettings

from lpwa_console.models.profiles import (
    EMBEDDED_NAME,
    MemorySecretStore,
    Profile,
    ProfileStore,
    is_remote_plain_http,
    secret_key,
)
from lpwa_console.models.session import Session
from lpwa_console.models.tasks import TaskRunner


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


@pytest.mark.parametrize(
    ("url", "plain"),
    [
        ("http://127.0.0.1:8080/thingpark/wireless/rest", False),
        ("http://127.8.9.10/x", False),
        ("http://[::1]:9000/x", False),
        ("http://localhost:9000/x", False),
        ("HTTP://LOCALHOST/x", False),
        ("https://lpwa.example/x", False),
        ("", False),
        ("http://lpwa.example/x", True),
        ("http://10.0.0.5/x", True),
        ("http://[::2]/x", True),
        ("http://localhost.evil.example/x", True),
    ],
)
def test_plain_http_means_to_another_computer(url: str, plain: bool) -> None:
    assert is_remote_plain_http(url) is plain


def plain_http(name: str = "Lab", *, confirmed: bool = False) -> Profile:
    return Profile(
        name,
        subscriber_url="http://lab.example/thingpark/wireless/rest",
        token_url="https://lab.example/users-auth/protocol/openid-connect/token",
        client_id="lab-console",
        allow_plain_http=confirmed,
    )


def test_plain_http_needs_an_explicit_confirmation(settings: QSettings, tmp_path: Path) -> None:
    store = ProfileStore(settings, MemorySecretStore())
    assert set(plain_http().problems()) == {"subscriber_url"}
    assert "unencrypted" in plain_http().problems()["subscriber_url"]
    with pytest.raises(ValueError, match="unencrypted"):
        store.save(plain_http(), "s")
    assert store.get("Lab") is None
    store.save(plain_http(confirmed=True), "s")
    again = ProfileStore(
        QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat), MemorySecretStore()
    )
    saved = again.get("Lab")
    assert saved is not None and saved.allow_plain_http is True and saved.problems() == {}
    # Loopback needs no confirmation: nothing leaves the computer.
    local = Profile(
        "Local",
        subscriber_url="http://127.0.0.1:8080/rest",
        token_url="http://localhost:8080/token",
        client_id="me",
    )
    assert local.problems() == {}


def test_the_session_refuses_an_unconfirmed_plain_http_profile(
    settings: QSettings, qtbot: Any, qloop: Any
) -> None:
    """A profile saved by a version that did not ask is refused at connect, with why."""
    settings.setValue("connection/profiles", json.dumps([asdict(plain_http())]))
    secrets = MemorySecretStore()
    store = ProfileStore(settings, secrets)
    secrets.set(secret_key(plain_http()), "s")
    runner = TaskRunner()
    session = Session(store, runner, None)
    profile = store.get("Lab")
    assert profile is not None and not profile.allow_plain_http
    session.open(profile)
    qtbot.waitUntil(lambda: session.state == "failed", timeout=10_000)
    assert session.message == (
        "Lab: subscriber url: http:// sends the client secret and tokens unencrypted: use"
        " https://, or confirm that you accept it for this profile (edit the profile)"
    )
