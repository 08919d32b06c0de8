"""The first steps of `lpwa-console`, before the heavy modules (panes, view-models, the API
client) are imported: options, the application object, and the embedded sandbox's process,
started at once when the profile to open is the embedded one. Its own start (a Python with
FastAPI, and the demo network of a new data folder) then overlaps the console's imports and
the building of its window instead of following them."""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from .options import Options, make_settings, parse_args

if TYPE_CHECKING:
    from .models.crash_log import CrashHook
    from .models.embedded import EmbeddedSandbox


def headless(options: Options) -> bool:
    return options.self_test or options.screenshot is not None or options.time_first_rows


def install_crash_handling(data_dir: Path | None) -> CrashHook:
    """The log file (secrets removed) and the hook of unhandled errors."""
    from .models.crash_log import CrashHook, install_log_file, log_dir

    handler = install_log_file(log_dir(data_dir))
    hook = CrashHook()
    hook.log_file = Path(handler.baseFilename)
    hook.install()
    return hook


def early_sandbox(options: Options) -> EmbeddedSandbox | None:
    """The embedded sandbox, already starting, when the profile to open is the embedded one
    (None otherwise: a remote profile starts no sandbox, an unknown name is refused later)."""
    from .models.embedded import EmbeddedSandbox, default_data_dir
    from .models.profiles import KeyringSecretStore, ProfileStore

    profiles = ProfileStore(make_settings(options.data_dir), KeyringSecretStore())
    profile = profiles.get(options.profile) if options.profile else profiles.last_profile()
    if profile is None or not profile.is_embedded:
        return None
    sandbox = EmbeddedSandbox(options.data_dir or default_data_dir())
    sandbox.start()
    return sandbox


def no_pydantic_plugins() -> None:
    """pydantic looks for plugins in every installed package's entry points when it builds its
    first model (~15 ms of a process's start, issue 8); the console uses none, nor does the
    embedded sandbox, which inherits this environment. A PYDANTIC_DISABLE_PLUGINS the user
    set is left as it is."""
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")


def main(argv: list[str] | None = None) -> int:
    launched_at = time.perf_counter()
    no_pydantic_plugins()
    options = parse_args(argv)
    options.launched_at = launched_at
    if headless(options):
        # Headless runs need no display; a real session still uses the platform's plugin.
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    logging.basicConfig(
        level=logging.WARNING if headless(options) else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("LPWA Console")
    app.setOrganizationName("lpwa-console")
    # Wayland and the desktop entry match windows to the installed icon by this name.
    app.setDesktopFileName("lpwa-console")
    from PySide6.QtGui import QIcon

    from .ui.resources import resource_path

    app.setWindowIcon(QIcon(resource_path("icons", "lpwa-console.svg")))
    app.setQuitOnLastWindowClosed(False)  # the loop ends it, after closing cleanly
    embedded = early_sandbox(options)
    # The heavy part, while the sandbox starts beside it (asyncio too: ~40 ms that came
    # before the sandbox's start).
    import asyncio

    from .app import run
    from .models.event_loop import ConsoleEventLoop
    from .ui.idle_gc import IdleCollector

    IdleCollector(app)  # full garbage collections wait for an idle moment
    hook = install_crash_handling(options.data_dir)
    try:
        # asyncio.Runner, not asyncio.run(loop_factory=...): that argument is 3.12+ only.
        with asyncio.Runner(loop_factory=ConsoleEventLoop) as runner:
            return runner.run(run(options, hook, embedded))
    except KeyboardInterrupt:
        return 130
    finally:
        hook.uninstall()
        if embedded is not None:
            embedded.stop()  # when run() never took it (e.g. an unknown profile)
