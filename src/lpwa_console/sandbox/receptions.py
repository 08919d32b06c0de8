"""Which stations heard a device's last uplink, best first, as one JSON list kept in the
device's row (`devices.receptions`): `[ts, bs_uid, rssi, snr, esp, bs_uid, ...]`.

The simulator writes the device's row at each of its uplinks anyway; keeping its receptions
there rather than in rows of their own saves a page (and its index entries) per uplink. The
stations' side, which devices a station serves, is `station_devices`: it changes only when a
station joins or leaves a device's set, not when the order or the figures change."""

from __future__ import annotations

import json

Heard = tuple[int, float, float, float]  # station uid, RSSI (dBm), SNR (dB), ESP (dBm)


def pack(ts: int, heard: list[Heard]) -> str:
    # By hand: a step packs a few hundred lists and json.dumps costs ten times as much. The
    # same text: a float's repr is its JSON form (the figures are finite; float() makes a
    # numpy float a Python one, whose repr is the number alone).
    parts = [str(int(ts))]
    parts += [
        f"{int(bs)},{float(rssi)!r},{float(snr)!r},{float(esp)!r}" for bs, rssi, snr, esp in heard
    ]
    return f"[{','.join(parts)}]"


def unpack(text: str | None) -> tuple[int | None, list[Heard]]:
    """(time of the uplink, its stations best first); (None, []) for a device never heard."""
    if not text:
        return None, []
    flat = json.loads(text)
    return int(flat[0]), [
        (int(flat[i]), float(flat[i + 1]), float(flat[i + 2]), float(flat[i + 3]))
        for i in range(1, len(flat) - 3, 4)
    ]


def stations_of(text: str | None) -> set[int]:
    """The stations of a packed list (a split: cheaper than parsing it)."""
    return {int(bs) for bs in text[1:-1].split(",")[1::4]} if text else set()
