"""The question asked before an action that cannot be taken back (delete, replace a secret,
install a catalog again): one way for every pane, so each question reads and answers alike.
The action's own word on its button, Cancel the default, opened (not run: the event loop goes
on), and the box deletes itself once answered."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget


def ask(
    parent: QWidget,
    name: str,
    title: str,
    text: str,
    answered: Callable[[bool], None],
    *,
    accept: str,
    informative: str = "",
    details: str = "",
    keep: str = "",
    warning: bool = True,
    destructive: bool = False,
) -> QMessageBox:
    """Ask `text` in a box named `name`; `answered(True)` when the user picks `accept`,
    False for Cancel (or `keep`, said instead of Cancel), the default. `details`: a list
    behind "Show Details…"; `destructive`: `accept` deletes something."""
    box = QMessageBox(parent)
    box.setObjectName(name)
    box.setIcon(QMessageBox.Icon.Warning if warning else QMessageBox.Icon.Question)
    box.setWindowTitle(title)
    box.setText(text)
    if informative:
        box.setInformativeText(informative)
    if details:
        box.setDetailedText(details)
    role = (
        QMessageBox.ButtonRole.DestructiveRole if destructive else QMessageBox.ButtonRole.AcceptRole
    )
    chosen = box.addButton(accept, role)
    if keep:
        box.setDefaultButton(box.addButton(keep, QMessageBox.ButtonRole.RejectRole))
    else:
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)

    def finished(_result: int) -> None:
        answered(box.clickedButton() is chosen)
        box.deleteLater()

    box.finished.connect(finished)
    box.open()
    return box
