"""What the status bar says of the fleet index while it fills (issue 23 §1)."""

from __future__ import annotations

from lpwa_console.models.fleet_index.progress import SyncProgress
from lpwa_console.ui.fleet_index_status import progress_text


def test_the_fill_then_the_search_indexing_are_said_with_the_count() -> None:
    walking = SyncProgress("filling", "device", done=12_000, total=1_100_000)
    assert progress_text(walking) == "Indexing the fleet: 12,000 of 1,100,000 (devices)"
    indexing = SyncProgress(
        "filling", None, 1_100_000, 1_100_000, message="Indexing the fleet for search"
    )
    assert progress_text(indexing) == "Indexing the fleet for search: 1,100,000 of 1,100,000"
    failed = SyncProgress("failed", message="Fleet index: could not be opened")
    assert progress_text(failed) == "Fleet index: could not be opened"
