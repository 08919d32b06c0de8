"""What the platform's application scope says about the signed-in user (Document 1 §4.5, §5):
the console's own application, the user's identity (UID, platform ID, OpenID sub), the
permissions and domain restrictions authenticate gives, and the user's contexts.

The account view asks when it opens (`load`); everything is read on the loop, an answer of
an older load (another connection) is dropped. A platform that does not offer the scope (404
or 403 on the application) is said in one line, not as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient, NotFoundError, PermissionDeniedError
from ..schema.applications import (
    CONSOLE_APPLICATION_ID,
    Application,
    Authentication,
    User,
    UserContext,
)
from .errors import user_message
from .latest import Latest
from .rights import PERMISSION_WORDS, restrictions_in_words
from .tasks import TaskRunner


@dataclass
class ApplicationScope:
    """One reading of the scope. `unavailable`: why there is nothing to show ('' when the
    platform offers it); `notes`: what one of the later requests could not tell."""

    application: Application | None = None
    authentication: Authentication | None = None
    user: User | None = None
    contexts: list[UserContext] = field(default_factory=list)
    unavailable: str = ""
    notes: list[str] = field(default_factory=list)


async def read_scope(
    client: LpwaClient, application_id: str = CONSOLE_APPLICATION_ID
) -> ApplicationScope:
    """The application, then authenticate, then the user it names and the user's contexts.
    A refusal of a later step is a note; a connection failure of any step raises."""
    scope = client.applications.of(f"id:{application_id}")
    out = ApplicationScope()
    try:
        out.application = await scope.get()
    except NotFoundError:
        out.unavailable = (
            f"This platform does not offer the application scope: it does not know the"
            f" console's application ({application_id})"
        )
        return out
    except PermissionDeniedError:
        out.unavailable = (
            "This platform does not offer the application scope to this account (refused)"
        )
        return out
    try:
        out.authentication = await scope.authenticate()
    except PermissionDeniedError:
        out.notes.append(
            "The platform authenticates subscription users only: this account is not one,"
            " so it gives no permissions or restrictions here"
        )
        return out
    except NotFoundError:
        out.notes.append("The platform does not offer authentication for this application")
        return out
    user_uid = out.authentication.userUid
    if user_uid is None:
        out.notes.append("The platform did not say which user this account is")
        return out
    try:
        out.user = await scope.user(user_uid)
        out.contexts = (await scope.contexts(user_uid)).items
    except (NotFoundError, PermissionDeniedError) as exc:
        out.notes.append(f"The user {user_uid} could not be read: {user_message(exc)}")
    return out


def permissions_in_words(letters: Sequence[str]) -> list[str]:
    if not letters:
        return ["None"]
    return [f"{p}: {PERMISSION_WORDS.get(p, 'meaning not published')}" for p in letters]


def context_in_words(context: UserContext) -> str:
    """ "Subscription Acme Utilities (100): permissions x, a; restricted to ..." in one line."""
    kind = {
        "SUBSCRIBER": "Subscription",
        "PARTNER": "Network partner",
        "OPERATOR": "Operator",
        "SUPPLIER": "Device supplier",
    }.get(context.type or "", (context.type or "Context").replace("_", " ").capitalize())
    what = context.name or context.ID or ""
    if context.name and context.ID:
        what = f"{context.name} ({context.ID})"
    letters = context.grantedPermissions.permission
    text = f"{kind} {what}".strip()
    text += f": permissions {', '.join(letters)}" if letters else ": no subscription permission"
    restrictions = context.domainRestrictions
    if restrictions is not None and restrictions.and_:
        text += "; " + "; ".join(
            line[0].lower() + line[1:] for line in restrictions_in_words(restrictions)
        )
    return text


class ApplicationScopeViewModel(QObject):
    """Reads the scope for the view that shows it. `state`: idle (no client), loading,
    loaded, failed (a connection error: `message`)."""

    changed = Signal()

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        *,
        application_id: str = CONSOLE_APPLICATION_ID,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client = client
        self.application_id = application_id
        self.scope: ApplicationScope | None = None
        self.state = "idle"
        self.message = ""
        self._latest = Latest()
        self._task: int | None = None

    def set_client(self, client: LpwaClient | None) -> None:
        if client is self.client:
            return
        self.client = client
        self.scope = None
        self._latest.advance()
        self._stop()
        self.state = "idle"
        self.changed.emit()

    def load(self) -> None:
        """Read the scope again (the view calls this when it opens)."""
        self._stop()
        self._latest.advance()
        if self.client is None:
            self.state, self.scope = "idle", None
            self.changed.emit()
            return
        generation = self._latest.ticket
        self.state, self.message = "loading", ""
        self.changed.emit()

        def done(scope: ApplicationScope) -> None:
            if not self._latest.is_current(generation):
                return
            self._task = None
            self.scope, self.state = scope, "loaded"
            self.changed.emit()

        def failed(_exc: BaseException, message: str) -> None:
            if not self._latest.is_current(generation):
                return
            self._task = None
            self.scope, self.state, self.message = None, "failed", message
            self.changed.emit()

        self._task = self.runner.run(
            "Read the application scope",
            read_scope(self.client, self.application_id),
            on_done=done,
            on_error=failed,
            quiet=True,
        )

    def _stop(self) -> None:
        if self._task is not None:
            self.runner.cancel(self._task)
            self._task = None

    def close(self) -> None:
        self._latest.advance()
        self._stop()
