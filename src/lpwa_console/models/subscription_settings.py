"""The subscription's own settings (`GET|PUT /subscriptions/mine`, Document 1 §2.2): its name,
whether users with domain restrictions get tag suggestions, and whether OTAA root keys may be
protected by an HSM (`options.hsm`).

The view-model reads the subscription once per connection to know whether the account may
change it (the console then offers the settings or not), reads it again when the dialog opens
(to pre-fill what is stored now), and sends only what the user changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import APIStatusError, LpwaClient, PermissionDeniedError
from ..schema.subscription import Subscription, SubscriptionUpdate
from .latest import Latest
from .tasks import TaskRunner
from .validation import field_named_in, validate

# The permission that allows changes to the subscription (the sandbox's reading of `a`; the
# platform does not document the letters). When a subscription lists no permission at all,
# the console cannot tell and lets the server judge.
WRITE_PERMISSION = "a"
HSM_CHOICES = (("Deactivated", "DEACTIVATED"), ("Activated", "ACTIVATED"))


@dataclass(frozen=True)
class SubscriptionSettings:
    """What the dialog edits, as typed."""

    name: str
    show_tag_suggestions: bool
    hsm: str

    @classmethod
    def of(cls, subscription: Subscription) -> SubscriptionSettings:
        return cls(
            name=subscription.name or "",
            show_tag_suggestions=subscription.showTagSuggestionsWhenDomainRestrictions,
            hsm=subscription.options.hsm,
        )


def changes(before: SubscriptionSettings, after: SubscriptionSettings) -> dict[str, Any]:
    """The PUT body: only what changed (a name is never sent empty)."""
    data: dict[str, Any] = {}
    if after.name.strip() != before.name.strip():
        data["name"] = after.name.strip()
    if after.show_tag_suggestions != before.show_tag_suggestions:
        data["showTagSuggestionsWhenDomainRestrictions"] = after.show_tag_suggestions
    if after.hsm != before.hsm:
        data["options"] = {"hsm": after.hsm}
    return data


class SubscriptionSettingsViewModel(QObject):
    availability_changed = Signal()  # connected / may write changed
    loading_changed = Signal(bool)
    loaded = Signal(object)  # Subscription
    load_failed = Signal(str)
    saved = Signal(object)  # Subscription, as the server answered
    save_failed = Signal(str, str)  # message, field ('' for the whole form)

    def __init__(
        self, runner: TaskRunner, client: LpwaClient | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client: LpwaClient | None = None
        self.subscription: Subscription | None = None
        self.denied = ""  # why the account may not change the subscription, when known
        self._latest = Latest()
        self._load_task: int | None = None
        self.set_client(client)

    # --- availability -------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self.client is not None

    @property
    def can_write(self) -> bool:
        return self.connected and not self.denied

    @property
    def reason(self) -> str:
        """Why the settings cannot be changed now ('' when they can)."""
        if not self.connected:
            return "Not connected"
        return self.denied

    def set_client(self, client: LpwaClient | None) -> None:
        self._latest.advance()
        if self._load_task is not None:
            self.runner.cancel(self._load_task)
            self._load_task = None
        self.client = client
        self.subscription = None
        self.denied = ""
        self.availability_changed.emit()
        if client is None:
            return
        generation = self._latest.ticket

        def failed(exc: BaseException, message: str) -> None:
            if self._latest.is_current(generation) and isinstance(exc, PermissionDeniedError):
                self.denied = message  # e.g. an account without a subscription
                self.availability_changed.emit()

        self.runner.run(
            "Read the subscription",
            client.subscription.get(),
            on_done=lambda sub: self._known(generation, sub),
            on_error=failed,
            quiet=True,
        )

    def _known(self, generation: int, subscription: Subscription) -> None:
        if not self._latest.is_current(generation):
            return
        self.subscription = subscription
        # A platform may not say (the 7.3 reference has no grant): unknown, not refused.
        grant = subscription.subscription
        permissions = grant.grantedPermissions if grant is not None else []
        if permissions and WRITE_PERMISSION not in permissions:
            self.denied = (
                "This account can read the subscription but not change it "
                f"(its permissions: {', '.join(permissions)})"
            )
        else:
            self.denied = ""
        self.availability_changed.emit()

    # --- reading ------------------------------------------------------------------------

    def load(self) -> None:
        """Read what is stored now (the dialog pre-fills from it)."""
        client = self.client
        if client is None:
            self.load_failed.emit("Not connected")
            return
        if self._load_task is not None:
            self.runner.cancel(self._load_task)
        generation = self._latest.ticket

        def done(subscription: Subscription) -> None:
            if not self._latest.is_current(generation):
                return
            self._load_task = None
            self.loading_changed.emit(False)
            self._known(generation, subscription)
            self.loaded.emit(subscription)

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest.is_current(generation):
                return
            self._load_task = None
            self.loading_changed.emit(False)
            self.load_failed.emit(message)

        self.loading_changed.emit(True)
        self._load_task = self.runner.run(
            "Read the subscription settings",
            client.subscription.get(),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    # --- changing -----------------------------------------------------------------------

    def check(self, before: SubscriptionSettings, after: SubscriptionSettings) -> dict[str, str]:
        """The errors of what was typed, by field ('' for the whole form)."""
        errors: dict[str, str] = {}
        if not after.name.strip():
            errors["name"] = "The subscription needs a name"
        _request, schema_errors = validate(SubscriptionUpdate, changes(before, after))
        for name, message in schema_errors.items():
            errors.setdefault(name, message)
        return errors

    def save(self, before: SubscriptionSettings, after: SubscriptionSettings) -> bool:
        """PUT what changed from `before` (what the dialog showed) to `after`."""
        client = self.client
        if client is None:
            self.save_failed.emit("Not connected", "")
            return False
        errors = self.check(before, after)
        data = changes(before, after)
        # A platform that gave an occContext wants it back with the change (the reference's
        # PUT requires it: optimistic locking); the sandbox gives none.
        occ = (self.subscription.model_extra or {}).get("occContext") if self.subscription else None
        if data and occ is not None:
            data["occContext"] = occ
        request, schema_errors = validate(SubscriptionUpdate, data)
        if errors or request is None:
            for name, message in (errors or schema_errors).items():
                self.save_failed.emit(message, name)
            return False
        assert isinstance(request, SubscriptionUpdate)
        if not data:
            self.saved.emit(self.subscription)  # nothing changed: nothing to send
            return True
        fields = set(SubscriptionUpdate.model_fields)
        generation = self._latest.ticket

        def done(subscription: Subscription) -> None:
            if self._latest.is_current(generation):
                self._known(generation, subscription)
            self.saved.emit(subscription)

        def failed(exc: BaseException, message: str) -> None:
            if isinstance(exc, PermissionDeniedError):
                self.save_failed.emit(
                    f"The server refused: this account may not change the subscription "
                    f"settings ({exc.message})",
                    "",
                )
                return
            name = field_named_in(exc.message, fields) if isinstance(exc, APIStatusError) else ""
            self.save_failed.emit(message, name)

        self.runner.run(
            "Save the subscription settings",
            client.subscription.update(request),
            on_done=done,
            on_error=failed,
            quiet=True,
        )
        return True
