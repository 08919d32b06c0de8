"""The sandbox: a persistent implementation of the platform's REST API (FastAPI + SQLite).

Entry points: `create_app(settings)` for tests and embedding, `cli.main` for `lpwa-sandbox`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .settings import SandboxSettings

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["SandboxSettings", "create_app"]


def __getattr__(name: str) -> Any:
    # FastAPI on first use: `serve` imports it while a new database is being filled.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
