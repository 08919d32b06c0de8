"""PySide6 6.12 on Python < 3.12 drops a reference to None on every void Qt call and the
interpreter aborts after about 10,000 calls (PITFALLS.md). pyproject.toml pins PySide6 below
6.12 on those Pythons; this test proves the installed pair is safe."""

import sys

from PySide6.QtCore import QObject


def test_void_qt_calls_keep_none_alive() -> None:
    obj = QObject()
    before = sys.getrefcount(None)
    for _ in range(1000):
        obj.setObjectName("x")
    after = sys.getrefcount(None)
    # Python 3.12+ makes None immortal (a huge constant count); before that it must not fall.
    assert after >= before - 10
