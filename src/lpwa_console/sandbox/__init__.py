"""The sandbox: a persistent implementation of the platform's REST API (FastAPI + SQLite).

Entry points: `create_app(settings)` for tests and embedding, `cli.main` for `lpwa-sandbox`.
"""

from .app import create_app
from .settings import SandboxSettings

__all__ = ["SandboxSettings", "create_app"]
