"""The radio traffic stations heard since they last reported, kept in memory and written
when they report (every 5 minutes) rather than at each reception: far fewer scattered page
writes a step.

Arrays indexed by station uid hold each station's counts for at most two hours, the hour
heard in and the one before: a station reports every 5 minutes, so its counts never span
more (a slot still holding an older hour is handed back to be written at once)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

HOUR_MS = 3_600_000
COUNTS = 6  # uplinks, their bytes, CRC failures, downlinks, their bytes, downlinks dropped

Ints = npt.NDArray[np.int64]
Row = tuple[int, ...]  # station uid, hour, the COUNTS counts


class PendingTraffic:
    def __init__(self) -> None:
        self.counts: Ints = np.zeros((2, 0, COUNTS), dtype=np.int64)
        self.hour: Ints = np.zeros((2, 0), dtype=np.int64)  # the slot's hour (ms), 0: empty
        self.last_up: Ints = np.zeros(0, dtype=np.int64)  # latest uplink heard, 0: none

    def _grow(self, top: int) -> None:
        size = len(self.last_up)
        if top < size:
            return
        more = max(top + 1, 2 * size, 1024) - size
        self.counts = np.pad(self.counts, ((0, 0), (0, more), (0, 0)))
        self.hour = np.pad(self.hour, ((0, 0), (0, more)))
        self.last_up = np.pad(self.last_up, (0, more))

    def add(self, stations: Ints, hours: Ints, counts: Ints, latest: Ints) -> list[Row]:
        """Count the traffic of (station, hour) pairs, each pair once: `counts` has a row of
        COUNTS per pair, `latest` the time of its latest uplink. Returns the counts of other
        hours the pairs' slots held, to be written now (a step covers one or two hours; the
        demo's backfill, many)."""
        if not len(stations):
            return []
        self._grow(int(np.max(stations)))
        np.maximum.at(self.last_up, stations, latest)
        out: list[Row] = []
        for hour in np.unique(hours).tolist():
            one = hours == hour
            s, slot = stations[one], (hour // HOUR_MS) % 2  # (distinct stations)
            held = self.hour[slot, s]
            other = (held != 0) & (held != hour)
            if other.any():
                o = s[other]
                out += [
                    (uid, h, *row)
                    for uid, h, row in zip(
                        o.tolist(), held[other].tolist(), self.counts[slot, o].tolist(), strict=True
                    )
                ]
                self.counts[slot, o] = 0
            self.hour[slot, s] = hour
            self.counts[slot, s] += counts[one]
        return out

    def last_up_of(self, uids: Ints) -> Ints:
        """The latest uplink each station heard since it reported (0: none)."""
        inside = uids < len(self.last_up)
        out = np.zeros(len(uids), dtype=np.int64)
        out[inside] = self.last_up[uids[inside]]
        return out

    def take(self, uids: Ints | None = None) -> tuple[list[Row], list[tuple[int, int]]]:
        """Hand back (and forget) the counts of `uids` (else of every station): their rows
        (station, hour, counts...) and (latest uplink, station)."""
        if uids is None:
            uids = np.flatnonzero((self.hour != 0).any(axis=0) | (self.last_up > 0))
        else:
            uids = uids[uids < len(self.last_up)]
        rows: list[Row] = []
        for slot in (0, 1):
            hour = self.hour[slot, uids]
            has = hour != 0
            held = uids[has]
            rows += [
                (uid, h, *row)
                for uid, h, row in zip(
                    held.tolist(), hour[has].tolist(), self.counts[slot, held].tolist(), strict=True
                )
            ]
            self.hour[slot, held] = 0
            self.counts[slot, held] = 0
        latest = self.last_up[uids]
        has = latest > 0
        ups = list(zip(latest[has].tolist(), uids[has].tolist(), strict=True))
        self.last_up[uids] = 0
        return rows, ups
