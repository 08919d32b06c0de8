"""The application icon in each OS's format, drawn from resources/icons/lpwa-console.svg.

`python packaging/icons.py OUT_DIR` writes lpwa-console.png (256 px, Linux), .ico (Windows:
the executable and the installer) and .icns (macOS: the .app) with Qt's own SVG renderer and
image writers, so the build needs nothing beyond the venv. build.py runs it before PyInstaller.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "resources" / "icons" / "lpwa-console.svg"


def render(size: int):  # -> QImage
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(SOURCE)).render(painter)
    painter.end()
    return image


def write_icons(out: Path) -> list[Path]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication, QImageWriter

    app = QGuiApplication.instance() or QGuiApplication([])  # noqa: F841 (kept alive)
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for suffix, size in (("png", 256), ("ico", 256), ("icns", 512)):
        path = out / f"lpwa-console.{suffix}"
        writer = QImageWriter(str(path), suffix.encode())
        if not writer.write(render(size)):
            raise SystemExit(f"icons: cannot write {path}: {writer.errorString()}")
        made.append(path)
    return made


if __name__ == "__main__":
    for path in write_icons(Path(sys.argv[1])):
        print(path)
