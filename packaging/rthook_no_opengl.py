"""Runtime hook of the bundle: placeholders for Qt's OpenGL modules, which it leaves out.

pyqtgraph imports PySide6.QtOpenGL and QtOpenGLWidgets when it loads (9 MB of bindings) but
uses them only when OpenGL drawing is switched on, which the console never does (it was
slower, PITFALLS.md). The placeholders let pyqtgraph load; touching anything in them says
what is missing. `QOpenGLWidget` is a plain widget class that refuses to be made, so
pyqtgraph can subclass it and `isinstance` checks answer False.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

MISSING = "OpenGL drawing is not part of this build of the console"


class OpenGLPlaceholder(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if name == "QOpenGLWidget":
            return opengl_widget()
        raise ImportError(f"{self.__name__}.{name}: {MISSING}")


@functools.cache
def opengl_widget() -> type:
    # Qt is imported only when pyqtgraph asks: the sandbox child never loads it.
    from PySide6.QtWidgets import QWidget

    class QOpenGLWidget(QWidget):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise RuntimeError(MISSING)

    return QOpenGLWidget


for name in ("PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets"):
    sys.modules[name] = OpenGLPlaceholder(name)
