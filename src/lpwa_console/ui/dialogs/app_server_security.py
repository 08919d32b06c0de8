"""Edit an application server's downlink security (PUT /appServers/{id}/security, Document 1
§4.3): a small form derived from the security request model, pre-filled from what GET
/security answered (the AS key never: it is typed again to change it), checked live by the
schema, sent with the version it was read at."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from ...models.resources import ResourceViewModel
from .resource_form import SchemaFormDialog

SECURITY = "Security"
INTRO = (
    "Downlink security of this application server. With DOWNLINK_AS_KEY, give the AS ID and "
    "its key (32 hexadecimal digits); the stored key is never shown, so type it again to keep "
    "this status."
)


class AppServerSecurityDialog(SchemaFormDialog):
    def __init__(self, vm: ResourceViewModel, item: Any, parent: QWidget | None = None) -> None:
        part = vm.part(SECURITY)
        current = vm.part_current(SECURITY)
        super().__init__(
            part.model,
            current,
            title=f"Security of {vm.kind.label(item)}",
            checker=lambda data: vm.check_part(SECURITY, data),
            submit=lambda data: vm.save_part(SECURITY, data, item, current),
            changes_only=False,  # the security is replaced as a whole
            parent=parent,
            intro=INTRO,
        )
        self.setObjectName("appServerSecurity")
        self.vm = vm
        self.current = current
        self.connect_signals(
            (vm.part_saved, lambda key, _r: self.saved() if key == SECURITY else None),
            (vm.part_failed, self._part_failed),
        )

    def _part_failed(self, key: str, message: str, name: str) -> None:
        if key == SECURITY:
            self.failed(message, name)
