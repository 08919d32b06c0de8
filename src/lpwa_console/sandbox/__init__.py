"""The sandbox: a persistent implementation of the platform's REST API (FastAPI + SQLite).

Entry points: `create_app(settings)` for tests and embedding, `cli.main` for `lpwa-sandbox`.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from .settings import SandboxSettings

# FastAPI asks of every route's types whether they are pydantic.v1 models, importing
# pydantic.v1 (~30 ms of a start) to find out; it treats a failed import as "no". The sandbox
# has no v1 model (nor does anything it imports): the import fails at once (issue 8).
sys.modules.setdefault("pydantic.v1", None)  # type: ignore[arg-type]

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["SandboxSettings", "create_app"]


def __getattr__(name: str) -> Any:
    # FastAPI on first use: `serve` imports it while a new database is being filled.
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
