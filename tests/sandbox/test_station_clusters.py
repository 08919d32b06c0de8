"""Station clusters share the devices' query (store/clusters.py): from the tile summary and
the box's edge tiles they give what grouping every station in the box gives, for every box
and domain restriction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lpwa_console.sandbox import SandboxSettings, accounts, demo
from lpwa_console.sandbox.demo_stations import seed_more_stations
from lpwa_console.sandbox.store import station_clusters, stations
from lpwa_console.schema.domains import DomainRestrictions
from lpwa_console.schema.stations import BaseStationFilter

from .test_derived import BOXES

FRANCE = DomainRestrictions.model_validate(accounts.FRANCE_ONLY)


def _rounded(clusters: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            c["count"],
            round(c["location"]["lat"], 9),
            round(c["location"]["lng"], 9),
            tuple(c["bbox"]["northeast"].values()),
            tuple(c["bbox"]["southwest"].values()),
            (c.get("item") or {}).get("lrrID"),
        )
        for c in clusters
    )


@pytest.mark.parametrize("restrictions", [None, FRANCE])
def test_station_clusters_from_the_summary_agree_with_the_stations(
    tmp_path: Path, restrictions: DomainRestrictions | None
) -> None:
    db = demo.prepare(SandboxSettings(db_path=tmp_path / "s.db", demo_devices=0))
    seed_more_stations(db, 400, seed=7, now=1_800_000_000_000)
    conn = db.conn()
    for partner in [r[0] for r in conn.execute("SELECT DISTINCT partner_uid FROM stations")]:
        w = stations.where(conn, partner, BaseStationFilter(), restrictions, now=0)
        for box in BOXES:
            summary = station_clusters.clusters(conn, partner, w, restrictions, box, filtered=False)
            grouped = station_clusters.clusters(conn, partner, w, restrictions, box, filtered=True)
            assert summary[0] == grouped[0]
            assert _rounded(summary[1]) == _rounded(grouped[1])
    db.close()
