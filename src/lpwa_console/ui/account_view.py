"""Who is signed in, on which platform, and what the account may do: its permissions, access
rights and domain restrictions in words, and the actions the console keeps disabled for it.
Opened from the account button of the status bar."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from ..models.application_scope import (
    ApplicationScopeViewModel,
    context_in_words,
    permissions_in_words,
)
from ..models.pane_access import ACCOUNT_KIND_WORDS, SUBSCRIBER, account_kind
from ..models.rights import (
    PERMISSION_WORDS,
    RIGHT_WORDS,
    AccountRights,
    restrictions_in_words,
)
from ..models.session import Session
from ..schema.labels import role_words
from .widgets.form_parts import close_buttons

UNKNOWN = "The platform does not say: the server judges each request"


def platform_text(session: Session) -> str:
    profile = session.profile
    if profile is None:
        return "None (not connected)"
    if profile.is_embedded:
        info = session.embedded.info if session.embedded is not None else None
        where = f" at {info.base_url}" if info is not None else ""
        return f"Embedded sandbox (demo platform on this computer){where}"
    return f"{profile.name}: {profile.subscriber_url}"


def _described(names: Iterable[str] | None, words: Mapping[str, str], missing: str) -> list[str]:
    """Each name in bold with its meaning (`missing` when none is published); not known
    (None) said as such, none as "None"."""
    if names is None:
        return [escape(UNKNOWN)]
    return [f"<b>{escape(n)}</b>: {escape(words.get(n, missing))}" for n in sorted(names)] or [
        "None"
    ]


def _list(items: list[str]) -> str:
    return "<ul style='margin:0 0 0 -24px'>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _heading(text: str) -> str:
    return f"<h4 style='margin:10px 0 2px 0'>{escape(text)}</h4>"


def scope_html(vm: ApplicationScopeViewModel | None) -> str:
    """What the application scope says: the console's application, the user's identity,
    the permissions and restrictions authenticate gives, the user's contexts."""
    heading = _heading("On the platform (application scope)")
    if vm is None or vm.state == "idle":
        return heading + _list(["Not connected"])
    if vm.state == "loading":
        return heading + _list(["Asking the platform…"])
    if vm.state == "failed" or vm.scope is None:
        return heading + _list([escape(f"Could not ask the platform: {vm.message}")])
    scope = vm.scope
    if scope.unavailable:
        return heading + _list([escape(scope.unavailable)])
    parts = [heading]
    lines: list[str] = []
    app = scope.application
    if app is not None:
        label = f"{app.name} ({app.ID})" if app.name else app.ID
        uid = f", UID {app.UID}" if app.UID is not None else ""
        lines.append(f"<b>Application</b>: {escape(label + uid)}")
    user = scope.user
    if user is not None:
        who = [f"UID {user.UID}"]
        who.append(f"platform ID {user.platformID}" if user.platformID else "no platform ID")
        who.append(f"OpenID sub {user.oidcSub}" if user.oidcSub else "no OpenID sub")
        name = f"{user.name}: " if user.name else ""
        lines.append(f"<b>User</b>: {escape(name + ', '.join(who))}")
        if user.email:
            lines.append(f"<b>E-mail</b>: {escape(user.email)}")
    parts.append(_list(lines or ["Nothing"]))
    auth = scope.authentication
    if auth is not None:
        parts.append(_heading("Permissions granted for this application"))
        parts.append(
            _list([escape(p) for p in permissions_in_words(auth.grantedPermissions.permission)])
        )
        parts.append(_heading("Domain restrictions for this application"))
        parts.append(
            _list([escape(line) for line in restrictions_in_words(auth.domainRestrictions)])
        )
    if scope.contexts:
        parts.append(_heading("Contexts (where this user acts)"))
        parts.append(_list([escape(context_in_words(c)) for c in scope.contexts]))
    if scope.notes:
        parts.append(_list([escape(note) for note in scope.notes]))
    return "".join(parts)


def _no_grants_words(session: Session) -> str:
    """What stands where a subscriber's permissions would: why there are none to show."""
    if not session.client:
        return "Not connected"
    kind = account_kind(session.role)
    if kind != SUBSCRIBER:  # only a subscription lists permissions and rights
        return (
            f"{ACCOUNT_KIND_WORDS.get(kind, 'This')} accounts have no subscription: what this"
            " one may do is shown by the panes it sees, and the platform judges each request."
        )
    return "Reading what this account may do…"


def account_html(
    session: Session,
    rights: AccountRights | None,
    scope: ApplicationScopeViewModel | None = None,
) -> str:
    name = session.account_name or "Nobody (not connected)"
    rows = [
        ("Signed in as", escape(name)),
        ("Role", escape(role_words(session.role) if session.role else "—")),
        ("Platform", escape(platform_text(session))),
        ("Connection", escape(session.state.title())),
    ]
    subscription = rights.subscription if rights is not None else None
    if subscription is not None:
        label = subscription.name or "—"
        if subscription.ID:
            label += f" ({subscription.ID})"
        rows.append(("Subscription", escape(label)))
    table = "".join(
        f"<tr><td style='padding:2px 16px 2px 0;opacity:.7'>{k}</td><td>{v}</td></tr>"
        for k, v in rows
    )
    parts = [f"<h3 style='margin:0 0 6px 0'>{escape(name)}</h3><table>{table}</table>"]
    grants = rights.grants if rights is not None else None
    if grants is None or subscription is None:
        parts.append(f"<p>{escape(_no_grants_words(session))}</p>")
        parts.append(scope_html(scope))
        return "".join(parts)
    permissions = _described(grants.permissions, PERMISSION_WORDS, "meaning not published")
    parts.append("<h4 style='margin:10px 0 2px 0'>Subscription permissions</h4>")
    parts.append(_list(permissions))
    access = _described(grants.rights, RIGHT_WORDS, "no description")
    parts.append("<h4 style='margin:10px 0 2px 0'>Access rights</h4>")
    parts.append(_list(access))
    parts.append("<h4 style='margin:10px 0 2px 0'>Domain restrictions</h4>")
    parts.append(_list([escape(line) for line in restrictions_in_words(grants.restrictions)]))
    denied = rights.denied() if rights is not None else []
    parts.append("<h4 style='margin:10px 0 2px 0'>Not allowed for this account</h4>")
    if not grants.known:
        parts.append(_list([escape(UNKNOWN)]))
    elif not denied:
        parts.append(_list(["Nothing: every action of the console is open to it"]))
    else:
        parts.append(_list(denied_in_words(denied)))
    parts.append(scope_html(scope))
    return "".join(parts)


def denied_in_words(denied: list[tuple[str, str]]) -> list[str]:
    """The actions refused, grouped by what the account lacks: "Without X: a, b, c"."""
    groups: dict[str, list[str]] = {}
    for _action, reason in denied:
        verb, _, lacking = reason.removeprefix("Your account may not ").partition(": it lacks ")
        if lacking:
            groups.setdefault(f"Without {lacking}", []).append(verb)
        else:  # not a missing grant ("it has domain restrictions, and ..."): that reason
            verb, _, why = verb.partition(": ")
            why = why.removeprefix("it ")
            groups.setdefault(f"As it {why}" if why else "Refused", []).append(verb)
    return [
        f"<b>{escape(heading)}</b>: {escape(', '.join(sorted(verbs)))}"
        for heading, verbs in sorted(groups.items())
    ]


class AccountView(QDialog):
    def __init__(
        self, session: Session, rights: AccountRights | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("accountView")
        self.setWindowTitle("Account")
        self.session = session
        self.rights = rights
        self.text = QLabel()
        self.text.setObjectName("accountDetails")
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setWordWrap(True)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setMargin(12)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.text)
        buttons = close_buttons(self)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)
        self.resize(560, 640)
        # The application scope is asked each time the view opens, on the loop.
        self.scope = ApplicationScopeViewModel(session.runner, session.client, parent=self)
        self.scope.changed.connect(self._refresh)
        session.account_changed.connect(self._refresh)
        session.state_changed.connect(self._refresh)
        session.client_changed.connect(self._client_changed)
        if rights is not None:
            rights.changed.connect(self._refresh)
        self._refresh()
        self.scope.load()

    def _client_changed(self, client: object) -> None:
        self.scope.set_client(self.session.client)
        self.scope.load()

    def _refresh(self, *_args: object) -> None:
        self.text.setText(account_html(self.session, self.rights, self.scope))

    def done(self, result: int) -> None:
        self.scope.close()
        super().done(result)
