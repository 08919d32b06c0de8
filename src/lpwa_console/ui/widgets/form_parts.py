"""Parts every form shares: the required-fields legend, message lines that keep their room,
the scrolled body, the Save / Cancel and Close buttons, and the rule that a dialog fits the
screen (the form scrolls, the buttons stay in view)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

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


def form_scroll(body: QWidget, name: str = "") -> QScrollArea:
    """A form's `body` in a frameless scroll area that sizes it: a form taller than the
    dialog scrolls, its message lines and buttons staying in view below."""
    scroll = QScrollArea()
    if name:
        scroll.setObjectName(name)
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(body)
    return scroll


class SaveButtons(QDialogButtonBox):
    """Save (named `action` when given, e.g. "Create") and Cancel: Save calls `save`
    (which checks, then sends), Cancel rejects `dialog`."""

    def __init__(self, dialog: QDialog, save: Callable[[], None], action: str = "") -> None:
        super().__init__(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        if action:
            self.save_button.setText(action)
        self.accepted.connect(save)
        self.rejected.connect(dialog.reject)

    @property
    def save_button(self) -> QPushButton:
        return self.button(QDialogButtonBox.StandardButton.Save)


def close_buttons(dialog: QDialog, *actions: QPushButton) -> QDialogButtonBox:
    """Close, which rejects `dialog` (Esc does the same), after the dialog's own `actions`
    ("Copy")."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
    for button in actions:
        buttons.addButton(button, QDialogButtonBox.ButtonRole.ActionRole)
    buttons.rejected.connect(dialog.reject)
    return buttons


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
