"""Parts every form shares: the required-fields legend, message lines that keep their room,
and the rule that a dialog fits the screen (the form scrolls, the buttons stay in view)."""

from __future__ import annotations

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

from ...models.forms import REQUIRED_LEGEND
from ..layouts import FLUSH, fill
from ..theme import severity_color

# Room kept around the scrolled form: the dialog's margins, message lines and buttons.
FRAME_ROOM = 40


def required_legend() -> QLabel:
    """ "* required": said once, at the top, so the marks mean something from the start."""
    label = QLabel(REQUIRED_LEGEND)
    label.setObjectName("requiredLegend")
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def message_line(name: str, *, error: bool = True) -> QLabel:
    """A line for "Saving…", a refusal or a form-wide rule: as tall as one line even when
    empty, so a message appearing does not move the buttons under the mouse."""
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setMinimumHeight(label.fontMetrics().height())
    if error:
        label.setStyleSheet(f"color: {severity_color(6).name()}")
    policy = label.sizePolicy()
    policy.setRetainSizeWhenHidden(True)
    label.setSizePolicy(policy)
    return label


def with_message(field: QWidget, message: QLabel) -> QWidget:
    """A form row's cell: the input with its own message line (a reason, an error) just
    under it."""
    cell = QWidget()
    fill(QVBoxLayout(cell), field, message, margins=FLUSH).setSpacing(1)
    return cell


def words_label(name: str, text: str = "", *, warning: bool = False) -> QLabel:
    """A wrapped line of words (named `name`); a `warning` in the warning colour."""
    label = QLabel(text)
    label.setObjectName(name)
    label.setWordWrap(True)
    if warning:
        label.setStyleSheet(f"color: {severity_color(5).name()}")
    return label


def screen_area(widget: QWidget) -> QRect:
    screen = widget.screen() or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 720)


def fit_dialog(
    dialog: QDialog,
    scroll: QScrollArea,
    area: QRect,
    *,
    min_width: int = 480,
    max_width: int = 760,
) -> None:
    """Size `dialog` to the form in `scroll` plus what is around it (buttons, messages),
    within `area` (the screen's available part, less room for the window frame): a long
    form scrolls instead of pushing its buttons off the screen."""
    content = scroll.widget()
    assert content is not None
    around = dialog.sizeHint().height() - scroll.sizeHint().height()
    wanted = content.sizeHint().height() + around + 8
    limit = area.height() - FRAME_ROOM
    width = content.sizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 40
    width = min(max(min_width, width), max_width, area.width() - 40)
    dialog.setMaximumHeight(max(limit, around + 100))
    dialog.resize(width, min(wanted, limit))
