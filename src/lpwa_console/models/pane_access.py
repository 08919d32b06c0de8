"""Which panes the signed-in account may use: one declared table, pane key -> the kinds of
account that see it (and, optionally, a test on the session's account for finer rules).

An account's kind comes from its role: the subscriber roles (full, restricted, viewer) are
"subscriber"; "operator", "supplier" and "partner" are their own. A pane absent from the
table is shown to every kind. The main window asks `visible_panes` each time the account
changes and rebuilds its navigation (side list, View menu, Ctrl+N keys, command palette).

To add a pane, add one line:  "suppliers": PaneRule({SUPPLIER}),

A pane may show several kinds of data (the map: devices and base stations; the alarms
centre: device, group and station alarms). `DATA_ACCESS` says which accounts have each; a
pane's part that reads one gets the client only for those (`client_for_data`), so a
network partner's map asks nothing of devices the server would refuse it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

T = TypeVar("T")

SUBSCRIBER, OPERATOR, SUPPLIER, PARTNER = "subscriber", "operator", "supplier", "partner"
ACCOUNT_KINDS = (SUBSCRIBER, OPERATOR, SUPPLIER, PARTNER)
# Roles the sandbox's demo accounts have (models/profiles.DEMO_ROLES) -> their kind.
ROLE_KINDS: Mapping[str, str] = {
    "subscriber": SUBSCRIBER,
    "subscriber-restricted": SUBSCRIBER,
    "subscriber-viewer": SUBSCRIBER,
    "operator": OPERATOR,
    "supplier": SUPPLIER,
    "partner": PARTNER,
}


ACCOUNT_KIND_WORDS: Mapping[str, str] = {
    SUBSCRIBER: "Subscriber",
    OPERATOR: "Operator",
    SUPPLIER: "Supplier",
    PARTNER: "Network partner",
}


def account_kind(role: str) -> str:
    """The kind of account of a role; a role nobody declared (or none: not signed in yet)
    is a subscriber, what a remote profile signs in as."""
    return ROLE_KINDS.get(role, SUBSCRIBER)


@dataclass(frozen=True)
class PaneRule:
    """Who sees a pane: these kinds of account, and when `allows` is given, only the
    accounts it accepts (it reads the role)."""

    kinds: frozenset[str]
    allows: Callable[[str], bool] | None = field(default=None, compare=False)

    def __init__(self, kinds: Iterable[str], allows: Callable[[str], bool] | None = None) -> None:
        object.__setattr__(self, "kinds", frozenset(kinds))
        object.__setattr__(self, "allows", allows)

    def visible_to(self, role: str) -> bool:
        if account_kind(role) not in self.kinds:
            return False
        return self.allows is None or self.allows(role)


_SUB = {SUBSCRIBER}
_STATIONS = {SUBSCRIBER, PARTNER}
PANE_ACCESS: dict[str, PaneRule] = {
    "devices": PaneRule(_SUB),
    # a network partner's map and alarms hold its base stations (DATA_ACCESS)
    "map": PaneRule(_STATIONS),
    "alarms": PaneRule(_STATIONS),
    "multicast": PaneRule(_SUB),
    "app_servers": PaneRule(_SUB),
    "network": PaneRule(_SUB),
    # a subscriber's stations are those of its partner; a network partner's its own
    "stations": PaneRule(_STATIONS),
    "partners": PaneRule({OPERATOR}),
    "key_manager": PaneRule(_SUB),
    "catalogs": PaneRule({OPERATOR}),
    "operations": PaneRule({OPERATOR}),
    "suppliers": PaneRule({SUPPLIER}),
    "dashboard": PaneRule({OPERATOR}),
}


# The data a pane's part reads -> who has it: devices and multicast groups are a
# subscription's; base stations a network partner's (a subscriber sees its partner's).
DEVICES, MULTICAST, STATIONS = "devices", "multicast", "stations"
DATA_ACCESS: dict[str, PaneRule] = {
    DEVICES: PaneRule(_SUB),
    MULTICAST: PaneRule(_SUB),
    STATIONS: PaneRule(_STATIONS),
}
# Why a part of a pane is empty for an account without its data, in the user's words.
NO_DATA_WORDS: Mapping[str, str] = {
    DEVICES: "This account has no devices: a network partner's account sees its base stations",
    MULTICAST: "This account has no multicast groups: they belong to a subscription",
    STATIONS: "This account has no base stations",
}


def has_data(data: str, role: str) -> bool:
    """Whether this role's account has this kind of data (`DATA_ACCESS`)."""
    rule = DATA_ACCESS.get(data)
    return rule is None or rule.visible_to(role)


def pane_visible(key: str, role: str, access: Mapping[str, PaneRule] = PANE_ACCESS) -> bool:
    rule = access.get(key)
    return rule is None or rule.visible_to(role)


def visible_panes(
    keys: Iterable[str], role: str, access: Mapping[str, PaneRule] = PANE_ACCESS
) -> list[str]:
    """The keys of the panes this role sees, in their order."""
    return [key for key in keys if pane_visible(key, role, access)]


def client_for_pane(key: str, role: str, client: T | None) -> T | None:
    """The client a pane's view-model gets: None when the account may not use the pane (its
    requests would be refused; nothing is asked for a pane not shown)."""
    return client if client is not None and pane_visible(key, role) else None


def client_for_data(key: str, data: str, role: str, client: T | None) -> T | None:
    """The client of the part of pane `key` that reads `data` (the map's device layer):
    None unless the account may use the pane AND has that data."""
    return client_for_pane(key, role, client) if has_data(data, role) else None
