"""The path of a base station under a partner (`mine` by default), shared by the station
resources."""

from __future__ import annotations

from ...schema.common import path_segment


def station_path(bs_uid: str | int, partner: str = "mine") -> str:
    """`bs_uid`: a UID, `i` + lrrID or `u` + lrrUUID (the reference's bsUid forms)."""
    return f"/partners/{path_segment(partner)}/bss/{path_segment(str(bs_uid))}"
