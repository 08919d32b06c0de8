"""One version number, from one place: `lpwa_console.__version__`. The package's metadata
(hatch's dynamic version), About, the bundle and the installers' names read it there."""

from __future__ import annotations

import importlib.metadata
import platform
import re
import tomllib
from pathlib import Path
from typing import Any

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion

import lpwa_console
from lpwa_console import __version__

ROOT = Path(__file__).resolve().parents[1]


def test_pyproject_reads_the_version_from_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]  # no second number to forget
    assert "version" in project["project"]["dynamic"]
    source = ROOT / project["tool"]["hatch"]["version"]["path"]
    assert source.resolve() == Path(lpwa_console.__file__).resolve()
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[.-]?\w+)?", __version__)


def test_the_installed_metadata_says_the_same() -> None:
    # The venv's editable install was made from pyproject.toml: its metadata is hatch's.
    assert importlib.metadata.version("lpwa-console") == __version__


def test_about_says_the_version_python_and_qt(qtbot: Any) -> None:
    from PySide6.QtWidgets import QWidget

    from lpwa_console.ui.help import about_box

    parent = QWidget()
    qtbot.addWidget(parent)
    box = about_box("Embedded sandbox", Path("/data"), parent)
    text = box.text()
    assert __version__ in text
    assert f"Python {platform.python_version()}" in text
    assert f"Qt {qVersion()}" in text and f"PySide6 {pyside_version}" in text
    box.close()
