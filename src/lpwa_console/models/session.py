"""The session: which platform the console talks to, as whom, and whether it works."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QObject, Signal

from ..api import Credentials, LpwaClient
from ..api.errors import APIConnectionError, APITimeoutError
from .embedded import EmbeddedSandbox, SandboxInfo
from .errors import UserError, UserQuestion
from .fleet_index.protocol import SignIn
from .pane_access import OPERATOR, PARTNER, SUBSCRIBER, account_kind
from .profiles import Profile, ProfileStore, SecretStoreError
from .secret_file import PassphraseNeeded
from .tasks import TaskRunner

if TYPE_CHECKING:
    from .field_offline.mode import FieldMode

log = logging.getLogger(__name__)

State = Literal["disconnected", "connecting", "connected", "failed"]
PHASE_TEXT = {
    "starting": "Starting the local sandbox…",
    "demo": "Creating the demo network…",
}
ClientFactory = Callable[[str, Credentials, bool], LpwaClient]


def default_client_factory(base_url: str, credentials: Credentials, verify: bool) -> LpwaClient:
    return LpwaClient(base_url, credentials, verify=verify)


class ConnectionFailed(UserError):
    pass


class SecretLocked(ConnectionFailed, UserQuestion):
    """The profile's secret is in the encrypted secrets file, not opened yet this session:
    the window asks the passphrase (a question, not an error for the activity list)."""


class Session(QObject):
    """Builds the client of the current profile and checks it with one request.

    `client_changed` fires with the new client (or None) so view-models reset their data.
    """

    state_changed = Signal(str)  # State
    account_changed = Signal(str, str)  # account name, role
    client_changed = Signal(object)  # LpwaClient | None
    error = Signal(str)
    profile_changed = Signal(str)
    # What a connect is doing now, in words ("Starting the local sandbox…"); "" when done.
    progress_changed = Signal(str)
    # A connect needs the passphrase of the secrets file (the Profile): the window asks for
    # it, and opens the profile again once the file is open.
    passphrase_needed = Signal(object)

    def __init__(
        self,
        profiles: ProfileStore,
        runner: TaskRunner,
        embedded: EmbeddedSandbox | None = None,
        *,
        client_factory: ClientFactory = default_client_factory,
        field: FieldMode | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.profiles = profiles
        self.runner = runner
        self.embedded = embedded
        self._client_factory = client_factory
        self.profile: Profile | None = None
        self.client: LpwaClient | None = None
        self.operator_client: LpwaClient | None = None
        self.state: State = "disconnected"
        self.account_name = ""
        self.role = ""
        self.message = ""
        self.progress = ""
        # The last connect stopped to ask the passphrase of the secrets file (not an error).
        self.asking_passphrase = False
        self.connect_ms: float | None = None
        # Field mode (models/field_offline): the snapshot the console falls back on when the
        # platform cannot be reached; `offline_text` says so ("Offline, data as of 10:42").
        self.field = field
        self.offline_text = ""
        self._task_id: int | None = None
        self._twin: Callable[[], LpwaClient] | None = None
        self._sign_in: SignIn | None = None
        if embedded is not None:
            embedded.failed.connect(self._sandbox_failed)
            embedded.ready.connect(self._sandbox_ready)
            embedded.phase.connect(self._sandbox_phase)

    def open(self, profile: Profile) -> None:
        """Switch to `profile` without restarting: old clients closed, panes reset."""
        if self._task_id is not None:
            self.runner.cancel(self._task_id)
        self.profile = profile
        self.profiles.set_last_profile(profile.name)
        self.profile_changed.emit(profile.name)
        self._drop_clients()
        if self.field is not None:
            self.field.open_profile(profile)
        sandbox = self.embedded
        if not profile.is_embedded or sandbox is None or (sandbox.info and sandbox.running):
            first = "Signing in…"
        else:  # it may be starting since before this session (startup.py)
            first = PHASE_TEXT.get(sandbox.phase_now, PHASE_TEXT["starting"])
        self.progress = first  # said with the state change, not before it
        self._set_state("connecting", f"Connecting to {profile.name}…")
        self.progress_changed.emit(first)
        self._task_id = self.runner.run(
            f"Connect to {profile.name}",
            self._connect(profile),
            on_done=lambda _: self._connected(),
            on_error=lambda exc, msg: self._connect_failed(profile, exc, msg),
        )

    def _connect_failed(self, profile: Profile, exc: BaseException, message: str) -> None:
        # Set before the state change, so the window asks instead of showing an error.
        self.asking_passphrase = isinstance(exc, SecretLocked)
        self._failed(message)
        if self.asking_passphrase:
            self.passphrase_needed.emit(profile)

    def reconnect(self) -> None:
        if self.profile is not None:
            self.open(self.profile)

    async def _connect(self, profile: Profile) -> None:
        t0 = time.perf_counter()
        if profile.is_embedded:
            info = await self._embedded_info()
            self._set_progress("Signing in…")
            account = info.account(profile.role) or info.account("subscriber")
            if account is None:
                raise ConnectionFailed("The sandbox has no demo account for this role")
            credentials = Credentials(
                info.token_url, str(account["client_id"]), str(account["client_secret"])
            )
            # Plain HTTP on loopback: the client builds no TLS for it (api._base.http_client).
            client = self._client_factory(info.base_url, credentials, True)
            base_url, verify = info.base_url, True
            name = str(account.get("name") or account["client_id"])
            role = str(account.get("role", profile.role))
        else:
            problems = profile.problems()
            if problems:  # e.g. a plain http:// profile saved before it needed confirming
                field, problem = next(iter(problems.items()))
                raise ConnectionFailed(
                    f"{profile.name}: {field.replace('_', ' ')}: {problem} (edit the profile)"
                )
            try:
                secret = self.profiles.secret(profile)
            except PassphraseNeeded as exc:
                raise SecretLocked(
                    f"The client secret of {profile.name} is in the encrypted secrets file:"
                    " type its passphrase"
                ) from exc
            except SecretStoreError as exc:
                raise ConnectionFailed(str(exc)) from exc
            if not secret:
                raise ConnectionFailed(
                    f"No client secret is stored for {profile.name} (one kept for a session"
                    " only is gone once the console closes): edit the profile to type it"
                )
            credentials = Credentials(profile.token_url, profile.client_id, secret)
            self._set_progress("Signing in…")
            client = self._client_factory(profile.subscriber_url, credentials, profile.verify_tls)
            base_url, verify = profile.subscriber_url, profile.verify_tls
            if profile.operator_url:
                self.operator_client = self._client_factory(
                    profile.operator_url, credentials, profile.verify_tls
                )
            # The platform does not say what kind of account this is: the profile does.
            name, role = profile.client_id, account_kind(profile.role)
        snapshot = self.field if not profile.is_embedded else None
        offline_ready = snapshot is not None and snapshot.has_snapshot()
        retries = client.max_retries
        if offline_ready:  # unreachable is said at once: the snapshot opens instead
            _no_retries(client)
        try:
            subscription = await _signed_in(client, role)
        except (APIConnectionError, APITimeoutError):
            await client.aclose()
            offline = snapshot.offline_client() if snapshot is not None and offline_ready else None
            if offline is None:
                raise
            self.client, self.account_name, self.role = offline
            self.role = self.role or role
            self.account_name = self.account_name or name
            self.offline_text = snapshot.offline_text if snapshot is not None else ""
            self.connect_ms = (time.perf_counter() - t0) * 1000
            return
        except BaseException:
            await client.aclose()
            raise
        if offline_ready:
            _no_retries(client, retries)
        self.client = client
        factory = self._client_factory
        self._twin = lambda: factory(base_url, credentials, verify)
        # The fleet index's sync process signs in by itself with these (over its stdin); a
        # factory of our own (tests injecting faults) can only serve a sync in this process.
        if factory is default_client_factory:
            self._sign_in = SignIn(base_url, credentials, verify)
        # The sandbox knows its demo accounts by name; a real platform names the subscription.
        sub_name = getattr(subscription, "name", None)
        self.account_name = name if profile.is_embedded else (sub_name or name)
        self.role = role
        self.connect_ms = (time.perf_counter() - t0) * 1000

    async def _embedded_info(self) -> SandboxInfo:
        sandbox = self.embedded
        if sandbox is None:
            raise ConnectionFailed("No embedded sandbox in this build")
        if sandbox.info is not None and sandbox.running:
            return sandbox.info
        loop = asyncio.get_running_loop()
        future: asyncio.Future[SandboxInfo] = loop.create_future()

        def ready(info: object) -> None:
            if not future.done():
                future.set_result(info)  # type: ignore[arg-type]

        def failed(message: str) -> None:
            if not future.done():
                future.set_exception(ConnectionFailed(message))

        sandbox.ready.connect(ready)
        sandbox.failed.connect(failed)
        try:
            sandbox.start()
            return await future
        finally:
            sandbox.ready.disconnect(ready)
            sandbox.failed.disconnect(failed)

    def _sandbox_phase(self, phase: str) -> None:
        if self.state != "connecting" or self.profile is None or not self.profile.is_embedded:
            return
        text = PHASE_TEXT.get(phase)
        if text:
            self._set_progress(text)

    def _set_progress(self, text: str) -> None:
        if text != self.progress:
            self.progress = text
            self.progress_changed.emit(text)

    def _sandbox_failed(self, message: str) -> None:
        """The sandbox stopped under a working session (a connect in progress gets the
        same message through its own wait): say so, drop the clients, panes empty."""
        if self._task_id is not None or self.profile is None or not self.profile.is_embedded:
            return
        self._drop_clients()
        self.runner.report("Embedded sandbox", message)
        self._failed(message)

    def _sandbox_ready(self, _info: object) -> None:
        """The sandbox is back after a restart: reconnect to its new address and token."""
        if self._task_id is not None or self.profile is None or not self.profile.is_embedded:
            return
        if self.state != "connected":
            log.info("the embedded sandbox is back; reconnecting")
            self.open(self.profile)

    def _connected(self) -> None:
        self._task_id = None
        log.info("connected as %s (%s)", self.account_name, self.role)
        profile = self.profile.name if self.profile else ""
        self._set_state("connected", self.offline_text or f"Connected to {profile}")
        self.account_changed.emit(self.account_name, self.role)
        self.client_changed.emit(self.client)

    def _failed(self, message: str) -> None:
        self._task_id = None
        self._set_state("failed", message)
        self.error.emit(message)

    def _set_state(self, state: State, message: str) -> None:
        ended = state != "connecting" and self.progress
        if state != "connecting":
            self.progress = ""
        if state != "failed":  # kept until the state moves on (the window reads it meanwhile)
            self.asking_passphrase = False
        self.state = state
        self.message = message
        self.state_changed.emit(state)
        if ended:
            self.progress_changed.emit("")

    def new_client(self) -> LpwaClient:
        """Another client of the account signed in (its own connection and token), for work
        in a thread of its own (the fleet index's sync)."""
        if self._twin is None:
            raise ConnectionFailed("Not signed in")
        return self._twin()

    def sync_source(self) -> SignIn | Callable[[], LpwaClient]:
        """How the fleet index's sync signs in (`FleetIndex.open`): the sign-in, for its
        process, or `new_client` when clients come from a factory of the caller's."""
        if self._twin is None:
            raise ConnectionFailed("Not signed in")
        return self._sign_in if self._sign_in is not None else self.new_client

    def _drop_clients(self) -> None:
        self.offline_text = ""
        if self.field is not None:
            self.field.leave_offline()
        old = [c for c in (self.client, self.operator_client) if c is not None]
        self.client = self.operator_client = None
        self._twin = None
        self._sign_in = None
        self.account_name = self.role = ""
        self.client_changed.emit(None)
        self.account_changed.emit("", "")
        for client in old:
            self.runner.run("Close connection", client.aclose(), quiet=True)

    async def aclose(self) -> None:
        """At quit: close the clients (the sandbox is stopped by its owner)."""
        for client in (self.client, self.operator_client):
            if client is not None:
                await client.aclose()
        self.client = self.operator_client = None


def _no_retries(client: LpwaClient, retries: int = 0) -> None:
    """Sign-in's retries off (or back to `retries`): with a snapshot to fall back on, an
    unreachable platform is said at once rather than after the retries' back-off."""
    client.max_retries = retries
    if client.token_provider is not None:
        client.token_provider.max_retries = retries


async def _signed_in(client: LpwaClient, role: str) -> Any:
    """Proof that the account may use the interface of its kind: a subscriber's
    subscription, the operator's operator, a network partner's partner; for another kind
    (a supplier) a token. The subscription, when it is one; else None."""
    kind = account_kind(role)
    if kind == OPERATOR:
        await client.catalogs.operator()
    elif kind == PARTNER:
        await client.partners.get()
    elif kind != SUBSCRIBER:
        provider = client.token_provider
        if provider is not None:
            await provider.token()
    else:
        return await client.subscription.get()
    return None
