"""Which panes, and which parts of them, each kind of account gets (models/pane_access.py)."""

from __future__ import annotations

from lpwa_console.models.pane_access import (
    DATA_ACCESS,
    NO_DATA_WORDS,
    client_for_data,
    client_for_pane,
    has_data,
    visible_panes,
)
from lpwa_console.models.rights import Grants
from lpwa_console.schema.partners import Partner

KEYS = ["devices", "map", "alarms", "multicast", "stations", "partners"]


def test_a_network_partner_gets_the_map_and_the_alarms_centre() -> None:
    assert visible_panes(KEYS, "partner") == ["map", "alarms", "stations"]
    subscriber = visible_panes(KEYS, "subscriber")
    assert {"map", "alarms", "stations", "devices"} <= set(subscriber)
    assert "map" not in visible_panes(KEYS, "operator")
    assert "alarms" not in visible_panes(KEYS, "supplier")


def test_each_part_of_a_pane_gets_the_client_only_for_an_account_with_its_data() -> None:
    client = object()
    # a network partner: the map's stations, not its devices (the server would refuse)
    assert client_for_pane("map", "partner", client) is client
    assert client_for_data("map", "stations", "partner", client) is client
    assert client_for_data("map", "devices", "partner", None) is None
    assert client_for_data("map", "devices", "partner", client) is None
    assert client_for_data("alarms", "multicast", "partner", client) is None
    # a subscriber has every part; an operator none of the map (not its pane)
    for data in DATA_ACCESS:
        assert client_for_data("map", data, "subscriber-viewer", client) is client
    assert client_for_data("map", "stations", "operator", client) is None
    assert [d for d in DATA_ACCESS if has_data(d, "partner")] == ["stations"]
    assert has_data("something_new", "supplier")  # data nobody declared is everyone's
    assert set(NO_DATA_WORDS) == set(DATA_ACCESS)


def test_a_network_partners_grants_are_its_partners() -> None:
    """A partner's account has no subscription: /partners/mine says what it may do, and a
    base station alarm's acknowledgement needs the partner's write permission."""
    reader = Partner.model_validate({"partner": {"ID": "p1", "grantedPermissions": ["x"]}})
    grants = Grants.of_partner(reader)
    assert grants.known and grants.rights is None
    verdict = grants.check("station.alarm.acknowledge")
    assert not verdict.allowed
    assert "network partner's write permission ('a')" in verdict.reason
    writer = Partner.model_validate({"partner": {"ID": "p1", "grantedPermissions": ["x", "a"]}})
    assert Grants.of_partner(writer).check("station.alarm.acknowledge").allowed
    # a partner that lists nothing says nothing: the server judges
    silent = Grants.of_partner(Partner.model_validate({"partner": {"ID": "p1"}}))
    assert not silent.known and silent.check("station.alarm.acknowledge").allowed
