"""The layer rules of ARCHITECTURE.md: import-linter contracts in pyproject.toml, plus the one
rule import-linter cannot express (view-models take only QtCore from PySide6)."""

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "lpwa_console"


def test_import_layers_hold() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def qt_modules_imported(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found |= {n for n in names if n.startswith("PySide6.Qt")}
    return {".".join(n.split(".")[:2]) for n in found}


def test_view_models_use_qtcore_only() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(mods - {"PySide6.QtCore"})
        for path in (PACKAGE / "models").rglob("*.py")
        if (mods := qt_modules_imported(path)) - {"PySide6.QtCore"}
    }
    assert not offenders, f"view-models must not import widgets or GUI classes: {offenders}"


ROUTES = PACKAGE / "sandbox" / "routes"
SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE FROM", "PRAGMA ")


def test_routes_speak_http_only() -> None:
    """The sandbox's routes parse, check rights, call the store and shape the answer: no
    route module imports another (shared helpers live in routes/_*.py) and none runs SQL
    (the store, sandbox/store/, owns every statement)."""
    routes = {p.stem for p in ROUTES.glob("*.py") if not p.stem.startswith("_")}
    offenders: dict[str, list[str]] = {}
    for path in ROUTES.glob("*.py"):
        found: list[str] = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                named = {node.module} if node.module else {a.name for a in node.names}
                found += [f"imports routes.{m}" for m in named & routes if m != path.stem]
            elif isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany"):
                found.append(f"calls .{node.attr}()")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                found += [f"SQL text {node.value[:30]!r}" for w in SQL_WORDS if w in node.value]
        if found:
            offenders[path.name] = found
    assert not offenders, f"routes must leave SQL to the store: {offenders}"


def import_circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of modules (Tarjan): each group of two or more is a
    circle of imports (lazy and TYPE_CHECKING imports count: they are still a dependency)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return circles


def test_no_import_circle() -> None:
    """A module never reaches itself through its imports: a circle makes the import order
    matter and hides which module is the lower floor (issue 19)."""
    graph = grimp.build_graph("lpwa_console", cache_dir=None)
    assert import_circles(graph) == []


def test_the_console_imports_no_private_name() -> None:
    """A helper another module needs has a public name in a module of its own: a view-model
    or a widget never imports another module's `_name` (issue 19)."""
    console = [PACKAGE / "models", PACKAGE / "ui", PACKAGE / "diagnostics"]
    paths = [p for folder in console for p in folder.rglob("*.py")] + list(PACKAGE.glob("*.py"))
    offenders = {
        str(path.relative_to(ROOT)): private
        for path in paths
        for node in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(node, ast.ImportFrom)
        and (private := [a.name for a in node.names if a.name.startswith("_") and a.name[1] != "_"])
    }
    assert not offenders, f"imports of another module's private names: {offenders}"


MAX_LINES = 1_000


def test_no_source_file_over_a_thousand_lines() -> None:
    """A module longer than this holds more than one thing: split it into modules whose
    names say what each holds, re-exporting from the old one (issue 19)."""
    sources = [
        path
        for path in (ROOT / "src").rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and ".egg-info" not in str(path)
    ]
    long_files = {
        str(path.relative_to(ROOT)): count
        for path in sources
        if (count := len(path.read_bytes().splitlines())) > MAX_LINES
    }
    assert sources
    assert not long_files, f"files in src/ over {MAX_LINES} lines: {long_files}"
