"""The modules the bundle must carry although no import statement names them.

PyInstaller follows import statements (at the top of a module or inside a function); it
cannot follow a module chosen by a string at run time. These are:

- every module of lpwa_console: the sandbox stages its route modules by name
  (`sandbox/app.route_module`), the console warms some up by name (`FIRST_USE_MODULES`), and a
  pane or client resource imported late is cheap to carry even when the analysis finds it;
- uvicorn's event loops, HTTP protocols and lifespans, chosen by string in `uvicorn.config`;
- keyring's backends, found through entry points at run time;
- anyio's asyncio backend, imported by name when a thread pool is first used;
- httpx's transport modules, which the console imports early by name (`WARMED_UP`).

The spec passes `named_imports()` as `hiddenimports`; `tests/packaging/test_named_imports.py`
finds every import by name in `src/` and fails when one is not covered here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWN_PACKAGE = ROOT / "src" / "lpwa_console"
# Third-party packages whose submodules are picked by name at run time.
PICKED_BY_NAME = (
    "uvicorn.loops",
    "uvicorn.protocols",
    "uvicorn.lifespan",
    "keyring.backends",
    "anyio._backends",
)
# Imported by name while the console waits for its first answer (app.FIRST_USE_MODULES).
WARMED_UP = ("httpcore", "h11")


def modules_under(package_dir: Path, prefix: str) -> list[str]:
    """Every module below a package folder, by dotted name, without importing any of them."""
    names = []
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.append(".".join((prefix, *parts)))
    return names


def installed_dir(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def named_imports() -> list[str]:
    names = modules_under(OWN_PACKAGE, "lpwa_console") + list(WARMED_UP)
    for package in PICKED_BY_NAME:
        folder = installed_dir(package)
        if folder is not None:
            names += modules_under(folder, package)
    return sorted(set(names))
