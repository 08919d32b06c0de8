"""Buttons and actions that say why they are disabled: one binding per control, to an action
name of `models/rights.py`.

A pane binds each guarded control once (`gate.bind(self.new_button, "device.create")`) and
then says what it wants (`gate.enable(self.new_button, connected)`) instead of calling
`setEnabled`: the control is enabled when the pane wants it AND the account may perform the
action; when the account may not, its tooltip (and status tip, and accessible description)
gives the reason. Without rights (a platform that does not say) every action is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from ..models.rights import ALLOWED, AccountRights, Verdict, requirement

Target = QAction | QWidget


@dataclass
class _Binding:
    target: Target
    action: str | None  # None: no right needed (only the pane's wish: a selection...)
    wanted: bool = True
    tooltip: str = ""  # the control's own tooltip, shown when it is allowed
    shown: str = ""  # what we set last (to notice a tooltip the pane changed since)
    why: str = ""  # why the pane does not want it now ("Select a device first")


class RightsGate(QObject):
    def __init__(self, rights: AccountRights | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.rights = rights
        self._bindings: dict[int, _Binding] = {}
        if rights is not None:
            rights.changed.connect(self.refresh)

    def check(self, action: str | None) -> Verdict:
        if action is None:
            return ALLOWED
        requirement(action)  # an unknown name is a bug even without rights
        return self.rights.check(action) if self.rights is not None else ALLOWED

    def bind(self, target: Target, action: str | None) -> Target:
        """Guard this control by this action (again: the action changes, e.g. a button
        shared by the sections of a pane)."""
        if action is not None:
            requirement(action)
        binding = self._bindings.get(id(target))
        if binding is not None:
            if binding.action != action:
                binding.action = action
                self._apply(binding)
            return target
        binding = _Binding(target, action, target.isEnabled(), target.toolTip())
        key = id(target)
        self._bindings[key] = binding
        target.destroyed.connect(lambda *_a: self._bindings.pop(key, None))
        self._apply(binding)
        return target

    def unbind(self, target: Target) -> None:
        """No longer guarded: its own tooltip back."""
        binding = self._bindings.pop(id(target), None)
        if binding is None:
            return
        if target.toolTip() == binding.shown:
            target.setToolTip(binding.tooltip)
        if isinstance(target, QAction):
            target.setStatusTip("")
        else:
            target.setAccessibleDescription("")

    def action_of(self, target: Target) -> str | None:
        return self._bindings[id(target)].action

    def enable(self, target: Target, wanted: bool, why: str = "") -> None:
        """What the pane wants (connected, something selected...): the rights decide too.
        `why`: what a control the pane does not want says in its tooltip ("Select a device
        first"); the rights' reason comes first when the account may not anyway."""
        binding = self._bindings.get(id(target))
        if binding is None:
            if not why:
                target.setEnabled(wanted)
                return
            self.bind(target, None)
            binding = self._bindings[id(target)]
        binding.wanted = wanted
        binding.why = "" if wanted else why
        self._apply(binding)

    def refresh(self) -> None:
        for binding in list(self._bindings.values()):
            self._apply(binding)

    def _apply(self, binding: _Binding) -> None:
        target = binding.target
        current = target.toolTip()
        if current != binding.shown:
            binding.tooltip = current  # the pane set a tooltip of its own meanwhile
        verdict = self.check(binding.action)
        target.setEnabled(binding.wanted and verdict.allowed)
        text = binding.tooltip if verdict.allowed else verdict.reason
        if verdict.allowed and binding.why:
            text = f"{binding.tooltip}\n{binding.why}" if binding.tooltip else binding.why
        target.setToolTip(text)
        binding.shown = target.toolTip()
        said = verdict.reason or binding.why
        if isinstance(target, QAction):
            target.setStatusTip(said)
            # A menu hides its actions' tooltips unless told: the reason would not show.
            for holder in target.associatedObjects():
                if isinstance(holder, QMenu):
                    holder.setToolTipsVisible(True)
        else:
            target.setAccessibleDescription(said)
