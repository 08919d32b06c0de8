"""What a start imports: the console's panes after the first, and the sandbox's routes
after the first screen's, are imported when needed (docs/architecture.md, issue 8). A
module-level import added by mistake would put them back on every start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

LAZY_CONSOLE = (
    "lpwa_console.ui.panes.device_map",
    "lpwa_console.ui.panes.alarms",
    "lpwa_console.ui.panes.stations",
    "lpwa_console.ui.panes.key_manager",
    "lpwa_console.ui.panes.operations",
    "lpwa_console.ui.panes.suppliers",
    "lpwa_console.ui.panes.catalogs",
    "lpwa_console.ui.panes.dashboard",
    "lpwa_console.models.stations",
    "lpwa_console.models.key_manager",
    "lpwa_console.models.suppliers",
    "lpwa_console.models.dashboard",
    "lpwa_console.models.catalogs",
    "lpwa_console.api.resources.stations",
    # Dialogs are imported when first opened, and the schemas the first rows do not need
    # when first used (issue 8).
    "lpwa_console.ui.dialogs.subscription_settings",
    "lpwa_console.ui.dialogs.profiles",
    "lpwa_console.ui.dialogs.tag",
    "lpwa_console.ui.dialogs.device_form",
    "lpwa_console.ui.dialogs.import_wizard",
    "lpwa_console.ui.widgets.nested_editor",
    "lpwa_console.ui.account_view",
    "lpwa_console.ui.help",
    "lpwa_console.models.alarms",
    "lpwa_console.schema.alarms",
    "lpwa_console.schema.station_alarms",
    "lpwa_console.schema.frames",
    "lpwa_console.schema.app_servers",
    "lpwa_console.schema.multicast",
    "lpwa_console.schema.network",
    "lpwa_console.schema.device_profiles",
    "lpwa_console.schema.device_import",
    "lpwa_console.schema.applications",
    "httpx._main",
    "pyqtgraph",
    "numpy",
    "cryptography",
)
LAZY_SANDBOX = (
    "lpwa_console.sandbox.routes.alarms",
    "lpwa_console.sandbox.routes.stations",
    "lpwa_console.sandbox.routes.key_manager",
    "lpwa_console.sandbox.routes.catalogs",
    "lpwa_console.sandbox.routes.suppliers",
    "lpwa_console.sandbox.demo_km",
    "lpwa_console.sandbox.demo_stations",
    "lpwa_console.sandbox.simulator",
    # The stores and schemas the first screen's routes (token, subscription, devices list)
    # do not use: imported with the other routes, or when first used (issue 8).
    "lpwa_console.sandbox.store.device_profiles",
    "lpwa_console.sandbox.store.catalogs",
    "lpwa_console.sandbox.store.station_monitoring",
    "lpwa_console.sandbox.store.station_ops",
    "lpwa_console.sandbox.store.multicast",
    "lpwa_console.schema.device_profiles",
    "lpwa_console.schema.catalogs",
    "lpwa_console.schema.station_admin",
    "lpwa_console.schema.app_servers",
    "lpwa_console.schema.multicast",
    "lpwa_console.schema.frames",
    "pydantic.v1",
    "numpy",
    "cryptography",
)


def imported(code: str, names: tuple[str, ...]) -> list[str]:
    """Which of `names` a fresh interpreter has imported after running `code`."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([n for n in {names!r} if sys.modules.get(n) is not None]))"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    return list(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_console_imports_only_the_first_pane() -> None:
    assert imported("import lpwa_console.app", LAZY_CONSOLE) == []


def test_a_warm_sandbox_serves_its_first_screen_without_the_rest(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    # The database made first, history included, by another process: a warm start is what
    # is looked at.
    made = (
        "from pathlib import Path\n"
        "from lpwa_console.sandbox import SandboxSettings, demo\n"
        f"demo.prepare(SandboxSettings(db_path=Path({str(db)!r}))).close()"
    )
    subprocess.run([sys.executable, "-c", made], check=True, capture_output=True)
    code = (
        "import lpwa_console.sandbox.cli\n"
        "from pathlib import Path\n"
        "from lpwa_console.sandbox import SandboxSettings\n"
        "from lpwa_console.sandbox.app import create_app\n"
        f"app = create_app(SandboxSettings(db_path=Path({str(db)!r})), staged=True)\n"
        # What FastAPI imports when it prepares the routes (before the ready line) counts too.
        "import asyncio\n"
        "asyncio.run(lpwa_console.sandbox.cli.warm_routes(app))"
    )
    assert imported(code, LAZY_SANDBOX) == []
