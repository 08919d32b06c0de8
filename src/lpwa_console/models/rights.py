"""What the signed-in account may do, told before the server refuses.

`ACTIONS` names every guarded action of the console ("device.create", "alarm.acknowledge",
...) with the grants it needs: subscription permissions (`grantedPermissions`) and access
rights (`LPWA_MGR::...`). `AccountRights` holds what GET /subscriptions/mine says the account
is granted and answers `check(action)` with a `Verdict`: allowed, or why not in words.

A platform that does not say (no `grantedPermissions`, no `rights`: Document 1 §5.6 does not
show where rights are conveyed) gets every action allowed, and the server judges each request.
Panes of later interfaces add their actions to `ACTIONS` and bind their buttons through
`ui/rights.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient
from ..schema.domains import DomainRestrictions
from .latest import Latest
from .tasks import TaskRunner

READ_NODE = "LPWA_MGR::READ_NODE"
WRITE_NODE = "LPWA_MGR::WRITE_NODE"
ADMIN_NODE = "LPWA_MGR::ADMIN_NODE"
OPERATOR_ADMIN = "OPERATOR::ADMIN"

# The permission letters in words. The platform does not publish their meaning (§5.7); x and
# a are read by the sandbox as "read" and "change", as the subscription settings do.
PERMISSION_WORDS = {
    "x": "read the subscription's resources",
    "a": "change the subscription's resources (write)",
    "ra": "meaning not published by the platform",
    "rc": "meaning not published by the platform",
    "s1": "meaning not published by the platform",
}
PERMISSION_NAMES = {"x": "read permission", "a": "write permission"}
RIGHT_WORDS = {
    READ_NODE: "read devices, multicast groups and their alarms",
    WRITE_NODE: "create and change devices and multicast groups, acknowledge their alarms",
    ADMIN_NODE: "everything WRITE_NODE allows, and change a device's AS routing profile",
    OPERATOR_ADMIN: "use the operator interface: catalogs, partners, queues",
}
# A right in a refusal: words first, its code in brackets for whoever grants it.
RIGHT_NAMES = {
    READ_NODE: "to read devices and multicast groups",
    WRITE_NODE: "to change devices and multicast groups",
    ADMIN_NODE: "to administer devices",
    OPERATOR_ADMIN: "of the operator interface",
}


def right_in_words(right: str) -> str:
    """A missing right in a refusal, e.g. "the access right to change devices and multicast
    groups (LPWA_MGR::WRITE_NODE)"."""
    words = RIGHT_NAMES.get(right)
    return f"the access right {words} ({right})" if words else f"the access right {right}"


@dataclass(frozen=True)
class Requirement:
    """What an action needs: every permission and every right listed."""

    verb: str  # completes "Your account may not …"
    permissions: tuple[str, ...] = ()
    rights: tuple[str, ...] = ()
    note: str = ""  # said after the missing right, e.g. why WRITE_NODE is not enough
    unrestricted: bool = False  # only for an account without domain restrictions
    owner: str = "subscription"  # whose permission letters: "subscription", "network partner"


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    reason: str = ""  # why not, in words ('' when allowed)


ALLOWED = Verdict(True)

# What may be done offline (field mode, issue 23): a device's name, tags and position are
# queued and sent back later (models/field_offline); every other action needs the platform.
# A base station's position too: its updateLocation command is queued the same way.
OFFLINE_ACTIONS = frozenset({"device.edit", "device.tag", "station.locate"})

_DEVICE_WRITE = ("a",), (WRITE_NODE,)
_SUB_WRITE = ("a",), ()


def _device(verb: str) -> Requirement:
    return Requirement(verb, *_DEVICE_WRITE)


def _subscription(verb: str) -> Requirement:
    return Requirement(verb, *_SUB_WRITE)


def _partner(verb: str) -> Requirement:
    return Requirement(verb, ("a",), owner="network partner")


def _supplier(verb: str) -> Requirement:
    return Requirement(verb, owner="supplier")


def _operator(verb: str) -> Requirement:
    return Requirement(verb, owner="operator")


def _create_change(
    kind: str, plural: str, guard: Callable[[str], Requirement], *, delete: bool = True
) -> dict[str, Requirement]:
    """`<kind>.create`, `<kind>.edit` and (with `delete`) `<kind>.delete`, guarded alike:
    "create multicast groups", "change multicast groups", "delete multicast groups"."""
    verbs = {"create": "create", "edit": "change"} | ({"delete": "delete"} if delete else {})
    return {f"{kind}.{action}": guard(f"{verb} {plural}") for action, verb in verbs.items()}


ACTIONS: dict[str, Requirement] = {
    # devices (the sandbox's DeviceWriter: permission a and WRITE_NODE)
    **_create_change("device", "devices", _device, delete=False),
    "device.import": _device("import devices"),
    "device.tag": _device("tag or untag devices"),
    "device.delete": _device("delete devices"),
    "device.alarm004": _device("change a device's no-uplink alarm thresholds"),
    "device.routing": Requirement(
        "change a device's AS routing profile",
        ("a",),
        (WRITE_NODE, ADMIN_NODE),
        note="LPWA_MGR::WRITE_NODE is not enough",
    ),
    "alarm.acknowledge": _device("acknowledge alarms"),
    # multicast groups are guarded like devices
    **_create_change("multicast", "multicast groups", _device),
    # subscription resources: permission a
    **_create_change("app_servers", "application servers", _subscription),
    "app_servers.security": _subscription("change an application server's security"),
    **_create_change("network_contexts", "network contexts", _subscription),
    **_create_change("as_transport_keys", "AS transport keys", _subscription),
    **_create_change("hsm_groups", "HSM groups", _subscription),
    **_create_change("network_subscriptions", "network subscriptions", _subscription),
    # the key manager: devices like devices, keys like subscription resources
    **_create_change("km_devices", "key manager devices", _device),
    "km_devices.claim": _device("claim key manager devices"),
    "km_devices.import": _device("import key manager devices"),
    **_create_change("km_as_keys", "AS keys", _subscription, delete=False),
    "km.generate_keys": _subscription("generate AppKeys and NwkKeys"),
    # base stations (Document 2 §4.3): the partner's write permission
    **_create_change("station", "base stations", _partner, delete=False),
    "station.tag": _partner("tag or untag base stations"),
    # Settings reach every domain (one limits what restricted accounts see): the sandbox
    # refuses them to a domain-restricted account.
    "subscription.edit": Requirement(
        "change the subscription's settings", *_SUB_WRITE, unrestricted=True
    ),
    # base station admin commands (Document 2 §4.3): the reference asks the network
    # partner's permission a for every command and for lastCmdStatus, which follows them
    "station.command": _partner("send commands to base stations"),
    # updateLocation: the one command queued offline (field mode), so an action of its own
    "station.locate": _partner("change base stations' location"),
    "station.command.disruptive": _partner("reboot, restart, restore or upgrade base stations"),
    "station.support_password": _partner("change a base station's support password"),
    # base station alarms (routes/station_alarms.py): the partner's write permission, as
    # the station's other changes; device and group alarms keep "alarm.acknowledge"
    "station.alarm.acknowledge": _partner("acknowledge base station alarms"),
    # operator operations (Document 2 §4.1): the operator's account, judged by the server
    # (the platform lists no permission letters or rights for an operator)
    **_create_change("operator_hsm_groups", "HSM groups", _operator, delete=False),
    # the supplier interface (Document 2 §4.2): the platform conveys no supplier permission
    # letters, so these are allowed and the server judges (a supplier's own accounts only)
    **_create_change("supplier_applications", "applications", _supplier, delete=False),
    "supplier_applications.manifest": _supplier("change an application's manifest"),
    "supplier_applications.option": _supplier("add options to applications"),
    **_create_change("supplier_products", "products", _supplier, delete=False),
    "supplier_products.version": _supplier("add versions to products"),
    **_create_change("supplier_service_accounts", "service accounts", _supplier),
    "supplier_service_accounts.secret": _supplier("make a service account's secret"),
    # the operator's catalogs (Document 2 §4.1): the operator interface's own right
    "catalog.edit": Requirement(
        "change the catalogs' profiles, vendors and RF regions",
        rights=(OPERATOR_ADMIN,),
        owner="operator",
    ),
    "catalog.update": Requirement(
        "install catalog versions", rights=(OPERATOR_ADMIN,), owner="operator"
    ),
}


def requirement(action: str) -> Requirement:
    """The requirement of a known action; KeyError for a name nobody declared (a typo in a
    binding would otherwise leave a button enabled for everyone)."""
    return ACTIONS[action]


def _permission_name(letter: str, owner: str = "subscription") -> str:
    name = PERMISSION_NAMES.get(letter)
    return f"the {owner}'s {name} ('{letter}')" if name else f"the permission '{letter}'"


@dataclass(frozen=True)
class Grants:
    """What an account is granted, as far as the platform says. None: not said."""

    permissions: frozenset[str] | None = None
    rights: frozenset[str] | None = None
    restrictions: DomainRestrictions | None = None

    @classmethod
    def of(cls, subscription: Any) -> Grants:
        """From an answer of GET /subscriptions/mine. An empty permission list says nothing
        (the subscription settings read it the same way)."""
        grant = getattr(subscription, "subscription", None)
        permissions = list(getattr(grant, "grantedPermissions", None) or [])
        rights = getattr(grant, "rights", None)
        restrictions = getattr(grant, "domainRestrictions", None)
        return cls(
            frozenset(str(p) for p in permissions) if permissions else None,
            frozenset(str(r) for r in rights) if isinstance(rights, list) else None,
            restrictions if isinstance(restrictions, DomainRestrictions) else None,
        )

    @classmethod
    def of_partner(cls, partner: Any) -> Grants:
        """From an answer of GET /partners/mine: a network partner's account (it has no
        subscription) is granted its partner's permissions and domain restrictions; the
        access rights are a subscription's, so they are not said."""
        identity = getattr(partner, "partner", None)
        permissions = list(getattr(identity, "grantedPermissions", None) or [])
        restrictions = getattr(identity, "domainRestrictions", None)
        return cls(
            frozenset(str(p) for p in permissions) if permissions else None,
            None,
            restrictions if isinstance(restrictions, DomainRestrictions) else None,
        )

    @property
    def known(self) -> bool:
        return self.permissions is not None or self.rights is not None

    def check(self, action: str) -> Verdict:
        need = requirement(action)
        lacking: list[str] = []
        if self.permissions is not None:
            lacking += [
                _permission_name(p, need.owner)
                for p in need.permissions
                if p not in self.permissions
            ]
        if self.rights is not None:
            lacking += [right_in_words(r) for r in need.rights if r not in self.rights]
        restricted = self.restrictions is not None and bool(self.restrictions.and_)
        if need.unrestricted and restricted and not lacking:
            return Verdict(
                False,
                f"Your account may not {need.verb}: it has domain restrictions, and these"
                " settings reach every domain",
            )
        if not lacking:
            return ALLOWED
        reason = f"Your account may not {need.verb}: it lacks {' and '.join(lacking)}"
        if need.note and self.rights is not None and any(r not in self.rights for r in need.rights):
            reason += f"; {need.note}"
        return Verdict(False, reason)


def restrictions_in_words(restrictions: DomainRestrictions | None) -> list[str]:
    """One sentence per item of `and` (a resource must match all of them), or one saying
    there is no restriction."""
    items = restrictions.and_ if restrictions is not None else []
    if not items:
        return ["None: every domain of the subscription is visible"]
    lines = []
    for item in items:
        how = "starts with" if item.type == "PREFIX" else "is exactly"
        lines.append(
            f"Only resources in a domain of group “{item.group.name}” whose name {how} "
            f"“{item.name}”"
        )
    return lines


class AccountRights(QObject):
    """The current account's grants, read once per client from GET /subscriptions/mine.
    `changed` fires when they are known (or forgotten for another session)."""

    changed = Signal()

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.grants = Grants()
        self.subscription: Any = None
        # Set while the console browses an offline snapshot: why the platform's actions are
        # disabled ("Offline, data as of 10:42: this needs a connection to the platform").
        self.offline_reason = ""
        self._latest = Latest()

    # what older callers read
    @property
    def rights(self) -> frozenset[str] | None:
        return self.grants.rights

    @property
    def permissions(self) -> tuple[str, ...]:
        return tuple(sorted(self.grants.permissions or ()))

    @property
    def routing_read_only(self) -> bool:
        """WRITE_NODE without ADMIN_NODE cannot change appServersRoutingProfile (§5.4)."""
        return not self.check("device.routing").allowed

    def check(self, action: str) -> Verdict:
        if self.offline_reason and action not in OFFLINE_ACTIONS:
            requirement(action)
            return Verdict(False, self.offline_reason)
        return self.grants.check(action)

    def set_offline(self, reason: str) -> None:
        """Offline ("" when back): every action but those queued offline is refused."""
        if reason != self.offline_reason:
            self.offline_reason = reason
            self.changed.emit()

    def allows(self, action: str) -> bool:
        return self.check(action).allowed

    def denied(self) -> list[tuple[str, str]]:
        """Every declared action this account may not perform, with the reason."""
        out = []
        for name in ACTIONS:
            verdict = self.check(name)
            if not verdict.allowed:
                out.append((name, verdict.reason))
        return out

    def set_client(self, client: LpwaClient | None, *, partner: bool = False) -> None:
        """Read the grants of this client's account: its subscription's, or for a network
        partner's account (`partner`: it has no subscription to read) its partner's."""
        self._latest.advance()
        self.grants = Grants()
        self.subscription = None
        self.changed.emit()
        if client is None:
            return
        generation = self._latest.ticket
        if partner:
            self.runner.run(
                "Read account rights",
                client.partners.get("mine"),
                on_done=lambda mine: self._partner_loaded(generation, mine),
                quiet=True,
            )
            return
        self.runner.run(
            "Read account rights",
            client.subscription.get(),
            on_done=lambda sub: self._loaded(generation, sub),
            quiet=True,
        )

    def set_partner(self, partner: Any) -> None:
        """A network partner's account: its partner's permissions (GET /partners/mine)."""
        self.subscription = None
        self.grants = Grants.of_partner(partner)
        self.changed.emit()

    def _partner_loaded(self, generation: int, partner: Any) -> None:
        if self._latest.is_current(generation):
            self.set_partner(partner)

    def set_subscription(self, subscription: Any) -> None:
        self.subscription = subscription
        self.grants = Grants.of(subscription)
        self.changed.emit()

    def _loaded(self, generation: int, subscription: Any) -> None:
        if self._latest.is_current(generation):
            self.set_subscription(subscription)
