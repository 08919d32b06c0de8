"""Each simulated device's radio link, a function of the seed and its uid alone: the demo
gives a new device the values its link implies (its SF, RSSI and SNR), and the simulator
draws each uplink around them, so nothing jumps at a device's first simulated uplink.

Pure Python (the demo runs at a new sandbox's start, before numpy is wanted); the
simulator's vectorised draws (`radio.hash_units`) give the same numbers as `unit`."""

from __future__ import annotations

_M64 = 0xFFFFFFFFFFFFFFFF

# The link: RSSI (dBm) and SNR (dB) the device's uplinks scatter around.
RSSI_BASE, RSSI_SPAN = -120.0, 60.0
SNR_BASE, SNR_SPAN = -12.0, 22.0
RSSI_DIE, SNR_DIE = 1, 2  # which die of (seed, uid) each is drawn with
# When a device sends: every period (minutes, one of these by its uid), at its own phase.
PERIODS_MIN = (15, 30, 60, 60, 120, 360)
# Adaptive data rate: the lowest SF whose demodulation floor (SNR, dB) the link clears by
# the margin; SF12 when none does.
ADR_MARGIN_DB = 10.0
SF_FLOOR_DB = ((7, -7.5), (8, -10.0), (9, -12.5), (10, -15.0), (11, -17.5))


def mix(*values: int) -> int:
    """A cheap deterministic hash of integers (splitmix64 steps)."""
    x = 0x9E3779B97F4A7C15
    for v in values:
        x = (x ^ (v & _M64)) * 0xBF58476D1CE4E5B9 & _M64
        x ^= x >> 31
        x = x * 0x94D049BB133111EB & _M64
        x ^= x >> 29
    return x


def unit(*values: int) -> float:
    """A deterministic number in [0, 1) from integers."""
    return (mix(*values) >> 11) / float(1 << 53)


def base_rssi(seed: int, uid: int) -> float:
    return RSSI_BASE + RSSI_SPAN * unit(seed, uid, RSSI_DIE)


def base_snr(seed: int, uid: int) -> float:
    return SNR_BASE + SNR_SPAN * unit(seed, uid, SNR_DIE)


def adr_sf(snr_db: float) -> int:
    """The SF the network's ADR settles a device on, from its link's typical SNR."""
    for sf, floor in SF_FLOOR_DB:
        if snr_db - ADR_MARGIN_DB >= floor:
            return sf
    return 12


def uplink_timing(seed: int, uid: int) -> tuple[int, int]:
    """(period, phase) in ms: the device sends at `phase + k * period`."""
    h = mix(seed, uid)
    period = PERIODS_MIN[h % len(PERIODS_MIN)] * 60_000
    return period, (h >> 16) % period


def last_uplink(seed: int, uid: int, at_ms: int) -> int:
    """When the device last sent at or before `at_ms`."""
    period, phase = uplink_timing(seed, uid)
    return phase + (at_ms - phase) // period * period
