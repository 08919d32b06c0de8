"""The palette's ranking (its device search on the live sandbox: tests/ui/test_palette.py)."""

from __future__ import annotations

from lpwa_console.models.palette import PaletteEntry, rank, score

PANES = [
    PaletteEntry("pane", "Devices", "devices", detail="Ctrl+1"),
    PaletteEntry("pane", "Map", "map", detail="Ctrl+2"),
    PaletteEntry("pane", "Alarms", "alarms", detail="Ctrl+3"),
    PaletteEntry("pane", "Multicast groups", "multicast", detail="Ctrl+4"),
    PaletteEntry("pane", "App servers", "app_servers", detail="Ctrl+5"),
    PaletteEntry("pane", "Network", "network", detail="Ctrl+6"),
]
ACTIONS = [
    PaletteEntry("action", "New device", "a1", detail="Ctrl+N", keywords="View"),
    PaletteEntry("action", "Import devices", "a2", detail="Ctrl+I", keywords="View"),
    PaletteEntry("action", "Export this view", "a3", detail="Ctrl+E", keywords="View"),
    PaletteEntry("action", "Theme: Dark", "a4", keywords="View"),
    PaletteEntry("action", "Subscription settings", "a5", keywords="Connection"),
]
DEVICES = [
    PaletteEntry("device", "Water meter 0001 Paris", "70B3D5E750000001", "DevEUI 70B3D5E750000001"),
    PaletteEntry("device", "Mapping tracker", "70B3D5E750000002", "DevEUI 70B3D5E750000002"),
]
ALL = PANES + ACTIONS + DEVICES


def titles(query: str) -> list[str]:
    return [e.title for e in rank(query, ALL)]


def test_whole_then_start_then_word_then_anywhere_then_letters() -> None:
    assert titles("map")[:2] == ["Map", "Mapping tracker"]  # whole title before its start
    assert titles("dev")[0] == "Devices"  # a title's start before a later word's start
    assert titles("dev")[1:3] == ["New device", "Import devices"]
    assert titles("groups")[0] == "Multicast groups"
    assert titles("ndev")[0] == "New device"  # letters in order: initials
    assert titles("dark") == ["Theme: Dark"]


def test_every_word_must_match_and_order_is_kept_on_ties() -> None:
    assert titles("water paris") == ["Water meter 0001 Paris"]
    assert titles("water berlin") == []
    assert titles("") == [e.title for e in ALL]  # nothing typed: everything, as given


def test_found_by_detail_ranks_below_found_by_title() -> None:
    by_title = score("settings", ACTIONS[4])
    by_keyword = score("connection", ACTIONS[4])
    assert by_title is not None and by_keyword is not None and by_title > by_keyword
    assert score("70b3d5e750000002", DEVICES[1]) is not None
    assert score("zzz", DEVICES[1]) is None
