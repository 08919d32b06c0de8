"""A domain-restricted account keeps its items inside its own domains (issue 21): it cannot
make a device or a station cross-domain (no domain: seen by every restricted account),
through PUT, the device import or `/bss/domains`. Written from the restricted side."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import API, DEVICES, Sandbox
from .test_device_import import line

ROLE = "subscriber-restricted"
PARTNER_ROLE = "partner-restricted"
BSS = f"{API}/partners/mine/bss"
PARIS = {"name": "France/Paris", "group": {"name": "Site"}}
METERING = {"name": "Metering", "group": {"name": "Vertical"}}


def _france_device(sb: Sandbox) -> dict[str, Any]:
    return next(
        d for d in sb.all_devices(ROLE)
        if any(x["name"].startswith("France/") for x in d["domains"])
    )  # fmt: skip


def _france_station(sb: Sandbox) -> dict[str, Any]:
    page = sb.get(BSS, PARTNER_ROLE, params={"domain": "Site:France/Paris", "pageSize": 10})
    assert page.status_code == 200, page.text
    return dict(page.json()["briefs"][0])


def test_a_restricted_device_cannot_be_made_cross_domain(sb: Sandbox) -> None:
    device = _france_device(sb)
    path = f"{DEVICES}/{device['ref']}"
    refused = sb.put(path, ROLE, json={"domains": []})
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == 40302 and refused.json()["message"].startswith("domains:")
    assert sb.put(path, ROLE, json={"domains": None}).status_code == 403
    assert sb.get(path, ROLE).json()["domains"] == device["domains"]  # nothing changed
    # Inside its domains it still moves the device, and an unrestricted account may empty it.
    moved = sb.put(path, ROLE, json={"domains": [PARIS]})
    assert moved.status_code == 200, moved.text
    assert sb.put(path, json={"domains": []}).status_code == 200
    # An item already cross-domain stays so (no change), and may be brought inside.
    assert sb.put(path, ROLE, json={"domains": []}).status_code == 200
    assert sb.put(path, ROLE, json={"domains": [PARIS]}).status_code == 200


def test_the_import_cannot_make_a_restricted_device_cross_domain(sb: Sandbox) -> None:
    device = _france_device(sb)
    path = f"{DEVICES}/{device['ref']}"
    before = sb.get(path, ROLE).json()["domains"]
    activation = sb.get(path, ROLE).json().get("activation")
    operation = {"OTAA": "UPDATE_OTAA", "ABP": "UPDATE_ABP"}.get(activation, "UPDATE_CELLULAR")
    # Column AC holding only a separator: the import's form of "domains": [].
    text = line(operation, B=device["EUI"], AC=",")
    answer = sb.post(f"{DEVICES}/import", ROLE, files={"csv": ("d.csv", text.encode(), "text/csv")})
    assert answer.status_code == 200 and "40302" in answer.text, answer.text
    assert sb.get(path, ROLE).json()["domains"] == before
    # The same line from an unrestricted account does empty them: it was an escape.
    sb.post(f"{DEVICES}/import", files={"csv": ("d.csv", text.encode(), "text/csv")})
    assert sb.get(path).json().get("domains", []) == []


def test_a_restricted_station_cannot_be_made_cross_domain(sb: Sandbox) -> None:
    station = _france_station(sb)
    path = f"{BSS}/i{station['lrrID']}"
    before = sb.get(path, PARTNER_ROLE).json()["domains"]
    refused = sb.put(path, PARTNER_ROLE, json={"domains": []})
    assert refused.status_code == 403, refused.text
    assert refused.json()["code"] == 40302
    # Removing its one domain through /bss/domains is the same escape.
    removed = sb.post(
        f"{BSS}/domains", PARTNER_ROLE,
        json={"removedDomains": before, "LRRIDs": [station["lrrID"]]},
    )  # fmt: skip
    assert removed.status_code == 403, removed.text
    assert removed.json()["message"].startswith("removedDomains:")
    assert sb.get(path, PARTNER_ROLE).json()["domains"] == before
    # Removing a domain of another group leaves it inside: allowed.
    added = sb.post(
        f"{BSS}/domains", PARTNER_ROLE,
        json={"addedDomains": [PARIS, METERING], "LRRIDs": [station["lrrID"]]},
    )  # fmt: skip
    assert added.status_code == 204, added.text
    dropped = sb.post(
        f"{BSS}/domains", PARTNER_ROLE,
        json={"removedDomains": [METERING], "LRRIDs": [station["lrrID"]]},
    )  # fmt: skip
    assert dropped.status_code == 204, dropped.text
    # The unrestricted partner account may still make it cross-domain.
    assert sb.put(path, json={"domains": []}).status_code == 200


# Multicast groups and application servers carry domains too (the reference's MulticastGroup
# and AppServer): the same rule, through the same check as devices.
SUB = f"{API}/subscriptions/mine"
KINDS = ["multicastGroups", "appServers"]


def _france_item(sb: Sandbox, kind: str) -> tuple[str, list[dict[str, Any]]]:
    """(path, domains) of an item of `kind` inside the France team's domains."""
    page = sb.get(f"{SUB}/{kind}", ROLE, params={"pageSize": 100})
    assert page.status_code == 200, page.text
    item = next(
        i for i in page.json()["briefs"]
        if i.get("domains") and all(d["name"].startswith("France/") for d in i["domains"])
    )  # fmt: skip
    path = f"{SUB}/{kind}/{item['href'].rsplit('/', 1)[1]}"
    return path, sb.get(path, ROLE).json()["domains"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_restricted_group_or_server_cannot_be_made_cross_domain(sb: Sandbox, kind: str) -> None:
    path, before = _france_item(sb, kind)
    for domains in ([], None):
        refused = sb.put(path, ROLE, json={"domains": domains})
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == 40302 and refused.json()["message"].startswith("domains:")
    assert sb.get(path, ROLE).json()["domains"] == before  # nothing changed
    outside = sb.put(path, ROLE, json={"domains": [{"name": "Germany/Berlin",
                                                     "group": {"name": "Site"}}]})  # fmt: skip
    assert outside.status_code == 403 and outside.json()["code"] == 40302
    # Inside its domains it still moves the item; an unrestricted account may empty it, and
    # an item already cross-domain stays so and may be brought inside.
    assert sb.put(path, ROLE, json={"domains": [PARIS]}).status_code == 200
    assert sb.put(path, json={"domains": []}).status_code == 200
    assert sb.put(path, ROLE, json={"domains": []}).status_code == 200
    assert sb.put(path, ROLE, json={"domains": before}).status_code == 200
    assert sb.get(path, ROLE).json()["domains"] == before


@pytest.mark.parametrize("kind", KINDS)
def test_another_tenant_cannot_move_a_group_or_server(sb: Sandbox, kind: str) -> None:
    path, before = _france_item(sb, kind)
    for domains in ([], [PARIS]):
        answer = sb.put(path, "other-subscriber", json={"domains": domains})
        assert answer.status_code == 404, answer.text
    assert sb.get(path, ROLE).json()["domains"] == before


@pytest.mark.parametrize("kind", ["devices", "multicastGroups"])
def test_a_restricted_item_cannot_be_routed_to_a_hidden_server(sb: Sandbox, kind: str) -> None:
    # `as-tracking` is Berlin's: the France team reads 404 for it, so it may not send its
    # items' traffic there either (as unknown: 400), on create or update.
    hidden = f"{SUB}/appServers/id%3Aas-tracking"
    assert sb.get(hidden, ROLE).status_code == 404
    if kind == "devices":
        path = f"{DEVICES}/{_france_device(sb)['ref']}"
    else:
        path, _ = _france_item(sb, kind)
    before = sb.get(path, ROLE).json().get("appServers", [])
    refused = sb.put(path, ROLE, json={"appServers": [{"ID": "as-tracking"}]})
    assert refused.status_code == 400, refused.text
    assert refused.json()["message"].startswith("appServers:")
    assert sb.get(path, ROLE).json().get("appServers", []) == before
    # Linked by an account that sees it, it may be sent back as read.
    linked = [{"ID": "as-tracking"}, *({"ID": s["ID"]} for s in before)]
    assert sb.put(path, json={"appServers": linked}).status_code == 200
    again = sb.put(path, ROLE, json={"appServers": linked})
    assert again.status_code == 200, again.text
    if kind == "multicastGroups":
        created = sb.post(
            f"{SUB}/{kind}", ROLE,
            json={"name": "hidden route", "EUI": "00AA00AA00AA00AB", "nwAddress": "0A0B0C0E",
                  "appSKey": "000102030405060708090A0B0C0D0E0F", "domains": [PARIS],
                  "appServers": [{"ID": "as-tracking"}]},
        )  # fmt: skip
        assert created.status_code == 400, created.text
    # Another tenant's items cannot name this tenant's servers at all.
    theirs = sb.put(path, "other-subscriber", json={"appServers": [{"ID": "as-metering"}]})
    assert theirs.status_code == 404


def test_the_import_cannot_route_a_restricted_device_to_a_hidden_server(sb: Sandbox) -> None:
    device = _france_device(sb)
    path = f"{DEVICES}/{device['ref']}"
    current = sb.get(path, ROLE).json()
    if current.get("appServersRoutingProfile"):  # servers and a profile exclude each other
        assert sb.put(path, json={"appServersRoutingProfile": None}).status_code == 200
    before = sb.get(path, ROLE).json().get("appServers", [])
    operation = {"OTAA": "UPDATE_OTAA", "ABP": "UPDATE_ABP"}.get(
        current.get("activation"), "UPDATE_CELLULAR"
    )
    text = line(operation, B=device["EUI"], T="as-tracking")

    def send(role: str) -> str:
        answer = sb.post(
            f"{DEVICES}/import", role, files={"csv": ("d.csv", text.encode(), "text/csv")}
        )
        assert answer.status_code == 200, answer.text
        return answer.text

    assert "appServers: unknown ID as-tracking" in send(ROLE)
    assert sb.get(path, ROLE).json().get("appServers", []) == before
    # The administrator may; then the France team may send the same line back.
    assert "as-tracking" not in send("subscriber")
    assert [s["ID"] for s in sb.get(path, ROLE).json()["appServers"]] == ["as-tracking"]
    assert "as-tracking" not in send(ROLE)
