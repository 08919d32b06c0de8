"""Connection profiles: the embedded sandbox and remote platforms.

Non-secret fields live in QSettings; client secrets live in the OS keyring (or, on a computer
without one, where the user chose: models/secret_storage.py), behind the SecretStore protocol
so tests use an in-memory store.
"""

from __future__ import annotations

import ipaddress
import json
import logging
from dataclasses import asdict, dataclass, field, fields
from typing import Literal, Protocol
from urllib.parse import urlsplit

from PySide6.QtCore import QObject, QSettings, Signal

log = logging.getLogger(__name__)

EMBEDDED_NAME = "Embedded sandbox"
DEMO_ROLES = (
    "subscriber",
    "subscriber-restricted",
    "subscriber-viewer",
    "operator",
    "supplier",
    "partner",
    "partner-restricted",
)
KEYRING_SERVICE = "lpwa-console"

ProfileKind = Literal["embedded", "remote"]


@dataclass
class Profile:
    name: str
    kind: ProfileKind = "remote"
    role: str = "subscriber"  # embedded: which demo account signs in
    subscriber_url: str = ""  # remote: base URL of the subscriber interface
    operator_url: str = ""  # remote: base URL of the operator interface
    token_url: str = ""
    client_id: str = ""
    verify_tls: bool = True
    # The user confirmed that plain http:// to a host other than this computer is wanted,
    # knowing the client secret and tokens then cross the network unencrypted.
    allow_plain_http: bool = False
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def is_embedded(self) -> bool:
        return self.kind == "embedded"

    def plain_http_urls(self) -> list[str]:
        """The fields whose URL is http:// to another computer (loopback is fine)."""
        keys = ("subscriber_url", "operator_url", "token_url")
        return [key for key in keys if is_remote_plain_http(getattr(self, key))]

    def problems(self) -> dict[str, str]:
        """Field -> what is wrong, for the profile dialog."""
        out: dict[str, str] = {}
        if not self.name.strip():
            out["name"] = "A profile needs a name"
        elif self.name == EMBEDDED_NAME and not self.is_embedded:
            out["name"] = "This name is reserved for the embedded sandbox"
        if self.is_embedded:
            return out
        for key in ("subscriber_url", "token_url"):
            value = getattr(self, key).strip()
            if not value:
                out[key] = "Required"
            elif not value.startswith(("http://", "https://")):
                out[key] = "An http:// or https:// URL"
        if self.operator_url and not self.operator_url.startswith(("http://", "https://")):
            out["operator_url"] = "An http:// or https:// URL"
        if not self.client_id.strip():
            out["client_id"] = "Required"
        if not self.allow_plain_http:
            for key in self.plain_http_urls():
                out.setdefault(key, PLAIN_HTTP_PROBLEM)
        return out


PLAIN_HTTP_PROBLEM = (
    "http:// sends the client secret and tokens unencrypted: use https://, or confirm"
    " that you accept it for this profile"
)


def is_remote_plain_http(url: str) -> bool:
    """True for an http:// URL whose host is not this computer (localhost, 127.0.0.0/8, ::1)."""
    url = url.strip()
    if not url.lower().startswith("http://"):
        return False
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return True
    if host == "localhost" or host.endswith(".localhost"):
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return True  # a name: it may resolve anywhere


def embedded_profile(role: str = "subscriber") -> Profile:
    return Profile(EMBEDDED_NAME, kind="embedded", role=role)


class SecretStoreError(Exception):
    pass


class SecretStore(Protocol):
    def get(self, key: str) -> str | None: ...
    def set(self, key: str, secret: str) -> None: ...
    def delete(self, key: str) -> None: ...


class KeyringSecretStore:
    """The OS keyring (Secret Service, Keychain, Windows Credential Locker)."""

    def __init__(self, service: str = KEYRING_SERVICE) -> None:
        self.service = service

    def get(self, key: str) -> str | None:
        import keyring
        from keyring.errors import KeyringError

        try:
            return keyring.get_password(self.service, key)
        except KeyringError as exc:
            raise SecretStoreError(f"The keyring cannot be read: {exc}") from exc

    def set(self, key: str, secret: str) -> None:
        import keyring
        from keyring.errors import KeyringError

        try:
            keyring.set_password(self.service, key, secret)
        except KeyringError as exc:
            raise SecretStoreError(f"The keyring refused the secret: {exc}") from exc

    def delete(self, key: str) -> None:
        import keyring
        from keyring.errors import KeyringError, PasswordDeleteError

        try:
            keyring.delete_password(self.service, key)
        except PasswordDeleteError:
            pass
        except KeyringError as exc:
            raise SecretStoreError(f"The keyring refused to delete: {exc}") from exc


class MemorySecretStore:
    """For tests and the demo: secrets in memory only."""

    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.secrets.get(key)

    def set(self, key: str, secret: str) -> None:
        self.secrets[key] = secret

    def delete(self, key: str) -> None:
        self.secrets.pop(key, None)


def secret_key(profile: Profile) -> str:
    """The keyring entry of a profile: its name and client ID, never the secret."""
    return f"{profile.name}:{profile.client_id}"


class ProfileStore(QObject):
    """The list of profiles, the last one used, and their secrets."""

    changed = Signal()
    removed = Signal(str)  # a profile's name, once deleted (its local data goes with it)

    def __init__(self, settings: QSettings, secrets: SecretStore, parent: QObject | None = None):
        super().__init__(parent)
        self._settings = settings
        self._secrets = secrets

    @property
    def secrets(self) -> SecretStore:
        """Where the secrets are kept (the profile dialog asks it where a new one goes)."""
        return self._secrets

    def profiles(self) -> list[Profile]:
        """The embedded sandbox first, then the remote platforms by name."""
        return [self.embedded(), *sorted(self._remote(), key=lambda p: p.name.lower())]

    def names(self) -> list[str]:
        return [p.name for p in self.profiles()]

    def get(self, name: str) -> Profile | None:
        return next((p for p in self.profiles() if p.name == name), None)

    def embedded(self) -> Profile:
        role = str(self._settings.value("connection/embedded_role", "subscriber"))
        return embedded_profile(role if role in DEMO_ROLES else "subscriber")

    def set_embedded_role(self, role: str) -> None:
        if role not in DEMO_ROLES:
            raise ValueError(f"unknown demo role {role!r}")
        self._settings.setValue("connection/embedded_role", role)
        self.changed.emit()

    def save(self, profile: Profile, secret: str | None = None, *, old_name: str = "") -> None:
        """Add or replace a remote profile; a given secret goes straight to the secret store
        (first: a store that refuses it leaves the settings as they were)."""
        if profile.is_embedded:
            self.set_embedded_role(profile.role)
            return
        problems = profile.problems()
        if problems:
            raise ValueError("; ".join(f"{k}: {v}" for k, v in problems.items()))
        remotes = [p for p in self._remote() if p.name not in (profile.name, old_name)]
        old = next((p for p in self._remote() if p.name == (old_name or profile.name)), None)
        if secret:
            self._secrets.set(secret_key(profile), secret)
        elif old is not None and secret_key(old) != secret_key(profile):
            # Renamed, or a new client ID: carry the stored secret over.
            kept = self._secrets.get(secret_key(old))
            if kept:
                self._secrets.set(secret_key(profile), kept)
        if old is not None and secret_key(old) != secret_key(profile):
            self._secrets.delete(secret_key(old))
        self._write([*remotes, profile])
        if old_name and self.last_profile_name() == old_name:
            self.set_last_profile(profile.name)
        log.info("profile %r saved", profile.name)
        self.changed.emit()

    def remove(self, name: str) -> None:
        remotes = self._remote()
        gone = [p for p in remotes if p.name == name]
        for profile in gone:
            self._secrets.delete(secret_key(profile))
        self._write([p for p in remotes if p.name != name])
        if self.last_profile_name() == name:
            self.set_last_profile(EMBEDDED_NAME)
        if gone:
            self.removed.emit(name)
        self.changed.emit()

    def secret(self, profile: Profile) -> str | None:
        return self._secrets.get(secret_key(profile))

    def has_secret(self, profile: Profile) -> bool:
        """Whether a secret is stored, without asking for a passphrase."""
        has = getattr(self._secrets, "has", None)
        try:
            if has is not None:
                return bool(has(secret_key(profile)))
            return bool(self.secret(profile))
        except SecretStoreError:
            return False

    def last_profile_name(self) -> str:
        return str(self._settings.value("connection/last_profile", EMBEDDED_NAME))

    def set_last_profile(self, name: str) -> None:
        self._settings.setValue("connection/last_profile", name)

    def last_profile(self) -> Profile:
        return self.get(self.last_profile_name()) or self.embedded()

    # --- storage ------------------------------------------------------------------------

    def _remote(self) -> list[Profile]:
        raw = self._settings.value("connection/profiles", "[]")
        try:
            items = json.loads(str(raw))
        except ValueError:
            log.warning("unreadable profile list in settings; ignored")
            return []
        known = {f.name for f in fields(Profile)}
        out = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict) and item.get("name"):
                data = {k: v for k, v in item.items() if k in known}
                data["kind"] = "remote"
                out.append(Profile(**data))
        return out

    def _write(self, profiles: list[Profile]) -> None:
        self._settings.setValue(
            "connection/profiles", json.dumps([asdict(p) for p in profiles], sort_keys=True)
        )
        self._settings.sync()
