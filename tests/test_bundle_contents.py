"""What the packaged console must carry, checked without building it.

PyInstaller follows import statements; a module chosen by a string at run time is missing from
the bundle unless the spec names it (the staged sandbox's routes were, and no packaged console
could start). These tests find every import by name in `src/` and every module imported late,
and check that the spec (run here with recording stand-ins for PyInstaller's classes) collects
each, and excludes none that the program imports.
"""

from __future__ import annotations

import ast
import glob
import importlib.metadata
import importlib.util
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn.config

from lpwa_console import app as console_app
from lpwa_console.sandbox import app as sandbox_app
from tests.helpers import load_by_path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
SPEC = ROOT / "packaging" / "lpwa-console.spec"
BY_NAME_CALLS = {"import_module", "__import__"}

# Each place in src/ that imports a module by a string, and the names it may import. A new
# place fails `test_every_import_by_name_is_known` until it is listed here.
KNOWN_SITES: dict[tuple[str, str], Callable[[], list[str]]] = {
    ("lpwa_console/sandbox/app.py", "route_module"): lambda: [
        f"lpwa_console.sandbox.routes.{name}" for name in sandbox_app.ROUTE_MODULES
    ],
    ("lpwa_console/app.py", "build_first_models"): lambda: list(console_app.FIRST_USE_MODULES),
}


def named_imports() -> set[str]:
    module = load_by_path("lpwa_named_imports", ROOT / "packaging" / "named_imports.py")
    return set(module.named_imports())


def source_files() -> Iterator[tuple[str, ast.Module]]:
    for path in sorted((SRC / "lpwa_console").rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def module_name(relative: str) -> str:
    parts = Path(relative).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def enclosing_functions(tree: ast.Module) -> Iterator[tuple[str, ast.AST]]:
    """Every node inside a function, with the function's name (top-level nodes: '')."""

    def walk(node: ast.AST, function: str) -> Iterator[tuple[str, ast.AST]]:
        for child in ast.iter_child_nodes(node):
            inner = function
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            yield inner, child
            yield from walk(child, inner)

    yield from walk(tree, "")


def imported_names(relative: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        package = module_name(relative).split(".")
        if not relative.endswith("__init__.py"):
            package = package[:-1]
        package = package[: len(package) - node.level + 1]
        base = ".".join([*package, node.module] if node.module else package)
    # `from package import module` names a module too: keep both spellings where they exist.
    names = [base]
    for alias in node.names:
        candidate = f"{base}.{alias.name}"
        if base.startswith("lpwa_console") and module_path(candidate) is not None:
            names.append(candidate)
    return names


def module_path(name: str) -> Path | None:
    base = SRC / Path(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def test_every_import_by_name_is_known() -> None:
    sites = set()
    for relative, tree in source_files():
        for function, node in enclosing_functions(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called in BY_NAME_CALLS:
                sites.add((relative, function))
    unknown = sites - set(KNOWN_SITES)
    assert not unknown, (
        f"imports by name that the bundle may lack: {sorted(unknown)}; list what each can "
        "import in KNOWN_SITES and make packaging/named_imports.py carry it"
    )
    assert set(KNOWN_SITES) <= sites, "a listed site is gone: remove it from KNOWN_SITES"


def test_what_is_imported_by_name_is_carried() -> None:
    carried = named_imports()
    for site, names in KNOWN_SITES.items():
        wanted = names()
        assert wanted, site
        missing = [name for name in wanted if name not in carried and not is_stdlib(name)]
        assert not missing, f"{site} imports {missing}, which the bundle would not carry"


def test_uvicorn_and_keyring_choices_are_carried() -> None:
    carried = named_imports()
    tables: list[dict[str, Any]] = [uvicorn.config.HTTP_PROTOCOLS, uvicorn.config.LIFESPAN]
    tables.append(getattr(uvicorn.config, "LOOP_FACTORIES", None) or uvicorn.config.LOOP_SETUPS)
    wanted = {value.split(":")[0] for table in tables for value in table.values() if value}
    wanted = {name for name in wanted if importlib.util.find_spec(name) is not None}
    assert "uvicorn.protocols.http.httptools_impl" in wanted
    backends = importlib.metadata.entry_points(group="keyring.backends")
    wanted |= {entry.value.split(":")[0] for entry in backends}
    assert not wanted - carried, f"chosen by name at run time, not carried: {wanted - carried}"


def test_modules_imported_late_are_carried() -> None:
    """Panes, client resources and demo parts are imported inside functions (for a fast
    start): each is a module of ours that the bundle carries."""
    carried = named_imports()
    late = set()
    for relative, tree in source_files():
        for function, node in enclosing_functions(tree):
            if function and isinstance(node, ast.Import | ast.ImportFrom):
                late.update(imported_names(relative, node))
    ours = {name for name in late if name.startswith("lpwa_console")}
    assert {"lpwa_console.ui.panes.stations", "lpwa_console.api.resources.devices"} <= ours
    assert not ours - carried, f"imported late, not carried: {sorted(ours - carried)}"


def is_stdlib(name: str) -> bool:
    return name.split(".")[0] in sys.stdlib_module_names


class Recorder:
    """Stands in for one of PyInstaller's spec classes: keeps its arguments."""

    calls: dict[str, dict[str, Any]] = {}

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        Recorder.calls[self.kind] = kwargs
        result = type(self.kind, (), {})()
        result.binaries, result.datas, result.pure, result.scripts = [], [], [], []
        return result


@pytest.fixture
def spec_run() -> dict[str, dict[str, Any]]:
    Recorder.calls = {}
    namespace: dict[str, Any] = {"SPECPATH": str(SPEC.parent), "__file__": str(SPEC)}
    for kind in ("Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"):
        namespace[kind] = Recorder(kind)
    saved = list(sys.path)
    try:
        exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    finally:
        sys.path[:] = saved
    return Recorder.calls


def test_the_spec_collects_every_module_named(spec_run: dict[str, dict[str, Any]]) -> None:
    analysis = spec_run["Analysis"]
    assert set(analysis["hiddenimports"]) == named_imports()
    assert "lpwa_console.sandbox.routes.subscription" in analysis["hiddenimports"]


def test_the_spec_excludes_nothing_the_program_imports(
    spec_run: dict[str, dict[str, Any]],
) -> None:
    excluded = set(spec_run["Analysis"]["excludes"])
    imported = set()
    for relative, tree in source_files():
        for _, node in enclosing_functions(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                imported.update(imported_names(relative, node))
    hit = {
        name
        for name in imported
        if any(name == gone or name.startswith(gone + ".") for gone in excluded)
    }
    assert not hit, f"the program imports what the spec leaves out: {sorted(hit)}"


def test_the_spec_carries_every_data_file_of_the_program(
    spec_run: dict[str, dict[str, Any]],
) -> None:
    """Files read at run time (importlib.resources) beside the modules, such as the map's
    outline. PyInstaller follows imports only; a file the spec does not name is missing from
    the bundle, and only the frozen console would find out, at run time."""
    carried = set()
    for source, folder in spec_run["Analysis"]["datas"]:
        for path in glob.glob(source):
            carried.add(f"{folder}/{Path(path).name}")
    data = {
        path.relative_to(SRC).as_posix()
        for path in (SRC / "lpwa_console").rglob("*")
        if path.is_file()
        and path.suffix not in {".py", ".pyc", ".md"}
        and "__pycache__" not in path.parts
    }
    assert "lpwa_console/ui/basemap/land.json" in data
    assert not data - carried, f"read at run time, not in the bundle: {sorted(data - carried)}"
