"""Find our resource files in a wheel (lpwa_console/_resources) or a source checkout."""

from __future__ import annotations

from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path


@cache
def resource_root() -> Traversable:
    try:
        packaged = resources.files("lpwa_console") / "_resources"
        if packaged.is_dir():
            return packaged
    except ModuleNotFoundError:
        pass
    # Source checkout: src/lpwa_console/ui/resources.py -> <repo>/resources
    return Path(__file__).resolve().parents[3] / "resources"


def read_text(*parts: str) -> str:
    node = resource_root()
    for part in parts:
        node = node / part
    return node.read_text(encoding="utf-8")


def resource_path(*parts: str) -> str:
    """A resource's path on disk, for Qt APIs that take a file name (icons)."""
    node = resource_root()
    for part in parts:
        node = node / part
    return str(node)
