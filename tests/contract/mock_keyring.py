"""A keyring backend for the console's self-test against the reference mock, in its own
process (PYTHON_KEYRING_BACKEND=tests.contract.mock_keyring.FixedSecret): every profile's
secret is the same made-up one, which the token shim takes."""

from __future__ import annotations

from keyring.backend import KeyringBackend

SECRET = "reference-mock-secret"


class FixedSecret(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    def get_password(self, service: str, username: str) -> str | None:
        return SECRET

    def set_password(self, service: str, username: str, password: str) -> None:
        pass

    def delete_password(self, service: str, username: str) -> None:
        pass
