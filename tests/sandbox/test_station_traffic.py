"""The stations' pending traffic: counted per station and hour in arrays, handed back when a
station reports, or at once when a third hour would need its slot."""

from __future__ import annotations

import numpy as np

from lpwa_console.sandbox.station_traffic import HOUR_MS, PendingTraffic

H = 500_000 * HOUR_MS  # an hour's start


def _ints(*values: int) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def _counts(*rows: tuple[int, ...]) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(-1, 6)


def test_counts_add_up_per_station_and_hour_until_taken() -> None:
    traffic = PendingTraffic()
    assert traffic.add(_ints(3, 5000), _ints(H, H), _counts((1, 20, 0, 1, 8, 0), (2, 40, 1, 0, 0, 0)),
                       _ints(H + 10, H + 20)) == []  # fmt: skip
    assert traffic.add(_ints(3), _ints(H), _counts((1, 30, 1, 0, 0, 0)), _ints(H + 5)) == []
    # The next hour takes the other slot.
    assert traffic.add(_ints(3), _ints(H + HOUR_MS), _counts((1, 12, 0, 0, 0, 0)),
                       _ints(H + HOUR_MS + 1)) == []  # fmt: skip
    assert traffic.last_up_of(_ints(3, 5000, 7, 10**7)).tolist() == [H + HOUR_MS + 1, H + 20, 0, 0]
    rows, ups = traffic.take(_ints(3, 7))
    assert sorted(rows) == [(3, H, 2, 50, 1, 1, 8, 0), (3, H + HOUR_MS, 1, 12, 0, 0, 0, 0)]
    assert ups == [(H + HOUR_MS + 1, 3)]
    assert traffic.take(_ints(3)) == ([], [])  # (forgotten once taken)
    rows, ups = traffic.take()  # every station's
    assert rows == [(5000, H, 2, 40, 1, 0, 0, 0)] and ups == [(H + 20, 5000)]
    assert traffic.take() == ([], [])


def test_a_third_hour_hands_back_the_slot_it_needs() -> None:
    traffic = PendingTraffic()
    traffic.add(_ints(8), _ints(H), _counts((4, 80, 0, 1, 8, 0)), _ints(H + 1))
    traffic.add(_ints(8), _ints(H + HOUR_MS), _counts((1, 10, 0, 0, 0, 0)), _ints(H + HOUR_MS))
    older = traffic.add(_ints(8), _ints(H + 2 * HOUR_MS), _counts((1, 11, 0, 0, 0, 0)),
                        _ints(H + 2 * HOUR_MS))  # fmt: skip
    assert older == [(8, H, 4, 80, 0, 1, 8, 0)]
    rows, _ups = traffic.take(_ints(8))
    assert sorted(rows) == [
        (8, H + HOUR_MS, 1, 10, 0, 0, 0, 0),
        (8, H + 2 * HOUR_MS, 1, 11, 0, 0, 0, 0),
    ]


def test_many_hours_of_one_station_in_one_batch() -> None:
    """The demo's backfill hears devices whose last uplinks are days apart."""
    traffic = PendingTraffic()
    hours = _ints(H, H + HOUR_MS, H + 2 * HOUR_MS, H + 3 * HOUR_MS)
    older = traffic.add(_ints(2, 2, 2, 2), hours, _counts(*[(1, 9, 0, 0, 0, 0)] * 4), hours + 7)
    rows, ups = traffic.take(_ints(2))
    assert sorted(older + rows) == [(2, h, 1, 9, 0, 0, 0, 0) for h in hours.tolist()]
    assert ups == [(H + 3 * HOUR_MS + 7, 2)]
