"""Full collections wait for the user to be idle."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QWidget

from lpwa_console.ui.idle_gc import THAW_EVERY, THRESHOLDS, IdleCollector, not_idle_while


def test_collects_only_when_idle_and_restores_thresholds(qtbot: Any) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = gc.get_threshold()
    # Idle after 1 s: the tick right after the input stays "not idle" on a loaded machine.
    collector = IdleCollector(app, idle_s=1.0, every_s=0.0, at_most_s=3600)
    collector.timer.stop()  # the test ticks it, so no tick of its own falls in the wait
    try:
        assert gc.get_threshold() == THRESHOLDS
        widget = QWidget()
        qtbot.addWidget(widget)
        press = QMouseEvent(
            QEvent.Type.MouseMove, QPointF(1, 1), QPointF(1, 1),
            Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
        )  # fmt: skip
        QApplication.sendEvent(widget, press)
        collector.tick()
        assert collector.collections == 0  # input just now: not idle
        qtbot.wait(1100)
        collector.tick()
        assert collector.collections == 1
    finally:
        collector.uninstall()
    assert gc.get_threshold() == before


def test_start_up_objects_frozen_at_the_first_tick(qtbot: Any) -> None:
    """What start-up made leaves the collected generations once the loop runs, so a full
    collection walks only what came after; uninstalled, they are collected again."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    collector = IdleCollector(app, idle_s=3600, every_s=3600, at_most_s=3600)
    collector.timer.stop()
    try:
        made_at_start_up = [object() for _ in range(10)], {"a": [1, 2]}
        assert gc.get_freeze_count() == 0
        collector.tick()
        assert collector.frozen > 0
        assert gc.get_freeze_count() >= len(gc.get_referents(made_at_start_up))
        assert not any(made_at_start_up[1] is o for o in gc.get_objects())  # not walked
        assert collector.collections == 0  # freezing is not a collection
    finally:
        collector.uninstall()
    assert gc.get_freeze_count() == 0
    assert any(made_at_start_up[1] is o for o in gc.get_objects())


def test_survivors_of_a_collection_frozen_and_thawed_every_tenth(qtbot: Any) -> None:
    """A full collection freezes what survived it (the next walks only what is new); the
    tenth unfreezes first, so a cycle among frozen objects that became garbage is freed."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    collector = IdleCollector(app, idle_s=0.0, every_s=0.0, at_most_s=3600)
    collector.timer.stop()
    try:
        collector.tick()  # start-up frozen, then the first idle collection
        assert collector.collections == 1

        class Node:
            other: Any = None

        a, b = Node(), Node()
        a.other, b.other = b, a  # a cycle, alive for now
        collector.tick()
        assert not any(o is a for o in gc.get_objects())  # survived: frozen, not walked
        watch = weakref.ref(a)
        del a, b  # garbage now, but frozen: only a thaw can free it
        while collector.collections % THAW_EVERY != THAW_EVERY - 1:
            collector.tick()
            assert watch() is not None  # frozen: not walked, not freed
        collector.tick()  # the tenth: thawed, walked, the cycle freed
        assert collector.collections % THAW_EVERY == 0
        assert watch() is None
        assert gc.get_freeze_count() > 0  # and what is alive frozen again
    finally:
        collector.uninstall()
    assert gc.get_freeze_count() == 0


def test_only_the_ui_thread_collects(qtbot: Any) -> None:
    """A worker thread making garbage never collects it (a Qt wrapper freed there would
    deadlock with the UI thread): automatic collection is off, and the UI thread's timer
    collects the young generations, cycles included."""
    import threading

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    was_enabled = gc.isenabled()
    collector = IdleCollector(app)
    freed_in: list[str] = []

    class Marker:
        def __del__(self) -> None:
            freed_in.append(threading.current_thread().name)

    def make_garbage() -> None:
        marker = Marker()
        marker.cycle = marker  # type: ignore[attr-defined]  # only a collection frees it
        del marker
        for _ in range(50_000):  # far past the young threshold
            pair: list[Any] = []
            pair.append(pair)

    try:
        assert not gc.isenabled()
        worker = threading.Thread(target=make_garbage, name="worker")
        worker.start()
        worker.join()
        assert freed_in == []  # the worker made the garbage, and did not collect it
        qtbot.waitUntil(lambda: freed_in == [threading.main_thread().name], timeout=5000)
    finally:
        collector.uninstall()
    assert gc.isenabled() == was_enabled


class _Runner:
    busy = True


def test_a_busy_console_is_not_idle(qtbot: Any) -> None:
    """A sync or an import the user watches is not an idle moment, input or not; the
    runner is held weakly (a closed console is forgotten)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    collector = IdleCollector(app, idle_s=0.0, every_s=0.0, at_most_s=3600)
    collector.timer.stop()
    try:
        runner = _Runner()
        not_idle_while(app, runner)
        collector.tick()
        assert collector.collections == 0
        runner.busy = False
        collector.tick()
        assert collector.collections == 1
        runner.busy = True
        del runner  # forgotten: nothing holds the collection back
        collector.tick()
        assert collector.collections == 2
    finally:
        collector.uninstall()
