"""What the bundle leaves out, and that the console still works without it (packaging/).

The frozen console's self-test in `./dev test` checks the whole; these check the parts fast:
the ICU data package is rewritten correctly, ICU reads the smaller library (through Qt),
and pyqtgraph draws a chart with the OpenGL placeholders in place of Qt's OpenGL modules.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import load_by_path

ROOT = Path(__file__).resolve().parents[1]


icu_data = load_by_path("lpwa_icu_data", ROOT / "packaging" / "icu_data.py")


def common_data(items: dict[str, bytes]) -> bytes:
    """An ICU common data package as ICU's own tools write one (little-endian, 'CmnD')."""
    info = struct.pack("<HHBBBB4s4s4s", 20, 0, 0, 0, 2, 0, b"CmnD", b"\x01\0\0\0", b"\x49\0\0\0")
    header = struct.pack("<H2s", 32, b"\xda\x27") + info
    header += b"\0" * (32 - len(header))
    return icu_data.package(header, list(items.items()))


def test_the_package_keeps_english_and_shared_data_only() -> None:
    items = {
        "icudt73l/root.res": b"root" * 5,
        "icudt73l/en_GB.res": b"en-gb",
        "icudt73l/de.res": b"german",
        "icudt73l/pool.res": b"pool",
        "icudt73l/supplementalData.res": b"supplemental",
        "icudt73l/shift_jis.cnv": b"legacy",
        "icudt73l/coll/ucadata.icu": b"collation",
        "icudt73l/coll/fr.res": b"french",
        "icudt73l/brkitr/word.brk": b"rules",
        "icudt73l/brkitr/cjdict.dict": b"dictionary",
        "icudt73l/translit/en.res": b"translit",
        "icudt73l/zone/en.res": b"zones",
    }
    package = common_data(items)
    header, found = icu_data.items(package)
    assert header == 32
    # Each item comes back whole (its padding to 16 bytes after it), in name order.
    assert [name for name, _ in found] == sorted(items)
    for name, data in found:
        assert data[: len(items[name])] == items[name]
        assert not data[len(items[name]) :].strip(b"\0")
    kept = {name for name, _ in found if icu_data.wanted(name)}
    assert kept == {
        "icudt73l/root.res",
        "icudt73l/en_GB.res",
        "icudt73l/pool.res",
        "icudt73l/supplementalData.res",
        "icudt73l/coll/ucadata.icu",
        "icudt73l/brkitr/word.brk",
        "icudt73l/zone/en.res",
    }


def test_a_package_of_kept_items_reads_back_and_is_aligned() -> None:
    package = common_data({"icudt73l/b.res": b"bb", "icudt73l/a.res": b"a" * 17})
    _, found = icu_data.items(package)
    assert [name for name, _ in found] == ["icudt73l/a.res", "icudt73l/b.res"]
    (count,) = struct.unpack_from("<I", package, 32)
    offsets = [struct.unpack_from("<II", package, 36 + 8 * i)[1] for i in range(count)]
    assert all((32 + offset) % 16 == 0 for offset in offsets)


def qt_icu_library() -> Path | None:
    import PySide6

    found = sorted((Path(PySide6.__file__).parent / "Qt" / "lib").glob("libicudata.so.*"))
    return found[0] if found else None


@pytest.mark.skipif(
    qt_icu_library() is None or shutil.which("gcc") is None,
    reason="Qt without its own ICU (Windows, macOS), or no gcc",
)
def test_qt_runs_on_the_smaller_icu_library(tmp_path: Path) -> None:
    original = qt_icu_library()
    assert original is not None
    slim = icu_data.trimmed_library(original, tmp_path)
    assert slim is not None and slim.stat().st_size < original.stat().st_size / 4
    # What Qt asks ICU for: collation, casing, time zone names (English), and it says where
    # it found its data. The library is found first on LD_LIBRARY_PATH (Qt's is a RUNPATH).
    probe = (
        "from PySide6.QtCore import QCollator, QLocale, QTimeZone, QDateTime\n"
        "c = QCollator(QLocale('de_DE'))\n"
        "print(c.compare('Apfel', 'Zebra') < 0, QLocale('de_DE').toUpper('straße'))\n"
        "tz = QTimeZone(b'Europe/Paris')\n"
        "print(tz.displayName(QDateTime.currentDateTime(), QTimeZone.NameType.LongName,"
        " QLocale('en_US')))\n"
    )
    env = dict(os.environ, LD_LIBRARY_PATH=str(tmp_path), LD_DEBUG="libs")
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["True STRASSE", "Central European Standard Time"]
    assert f"{tmp_path}/libicudata.so" in done.stderr  # the small library was the one loaded


def test_pyqtgraph_draws_with_the_opengl_placeholders() -> None:
    hook = ROOT / "packaging" / "rthook_no_opengl.py"
    probe = (
        f"exec(open({str(hook)!r}).read())\n"
        "import sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "import pyqtgraph as pg\n"
        "plot = pg.PlotWidget()\n"
        "plot.plot([1, 2, 3], [3, 1, 2])\n"
        "plot.resize(200, 100)\n"
        "image = plot.grab().toImage()\n"
        "print(type(sys.modules['PySide6.QtOpenGL']).__name__, image.width())\n"
        "try:\n"
        "    sys.modules['PySide6.QtOpenGL'].QOpenGLBuffer\n"
        "except ImportError as missing:\n"
        "    print(missing)\n"
    )
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "OpenGLPlaceholder 200"
    assert "OpenGL drawing is not part of this build" in lines[1]
