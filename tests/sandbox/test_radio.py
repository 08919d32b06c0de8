from lpwa_console.sandbox import radio


def test_signal_falls_with_distance() -> None:
    near, far = radio.rssi_dbm(100), radio.rssi_dbm(2000)
    assert near > far
    assert radio.snr_db(near) >= radio.snr_db(far)
    assert radio.esp_dbm(near, radio.snr_db(near)) <= near
    assert radio.heard(radio.rssi_dbm(500)) and not radio.heard(radio.rssi_dbm(50_000))


def test_reach_fits_in_the_neighbour_cells() -> None:
    reach = radio.reach_m()
    assert 1000 < reach < radio.CELL_DEG * 111_000 * 0.5  # one cell at 60 degrees latitude
    assert not radio.heard(radio.rssi_dbm(reach * 1.01, fading=1.0))


def test_receptions_best_first_at_most_three() -> None:
    stations = [(i, 48.85 + i * 0.002, 2.35) for i in range(1, 6)] + [(9, 49.5, 2.35)]
    got = radio.receptions(48.85, 2.35, stations, [0.0] * len(stations))
    assert [r.bs_uid for r in got] == [1, 2, 3]
    assert got[0].snr >= got[1].snr >= got[2].snr


def test_drift_reverts_to_its_level_and_stays_in_bounds() -> None:
    value = 95.0
    for i in range(200):
        value = radio.drift(value, 30.0, (i * 0.618) % 1)
        assert 0 <= value <= 100
    assert abs(value - 30) < 20


def test_threshold_severity() -> None:
    thresholds = [(3, 60_000), (5, 600_000)]
    assert radio.crossed_severity(59_999, thresholds) is None
    assert radio.crossed_severity(60_000, thresholds) == 3
    assert radio.crossed_severity(700_000, thresholds) == 5


def test_usage_rule_hysteresis() -> None:
    cpu = radio.USAGE_RULES[106]
    assert radio.usage_verdict(cpu, 91, raised=False) is True
    assert radio.usage_verdict(cpu, 85, raised=True) is None
    assert radio.usage_verdict(cpu, 79, raised=True) is False
    assert radio.usage_verdict(cpu, 50, raised=False) is None


def test_command_state_machine() -> None:
    t = 1_000_000
    assert radio.advance_command("reboot", "PENDING", t, t + 2000, t + 1000, True, 0.5) is None
    start = radio.advance_command("reboot", "PENDING", t, t + 2000, t + 3000, True, 0.5)
    assert start is not None and start.status == "PROCESSING" and start.due_ms == t + 2000 + 120_000
    # a reboot ends while its station is away: that is the reboot
    end = radio.advance_command("reboot", "PROCESSING", t, start.due_ms, start.due_ms, False, 0.5)
    assert end is not None and end.status == "COMPLETED"
    # an upgrade can fail
    up = radio.advance_command("upgrade", "PROCESSING", t, t, t, True, 0.1)
    assert up is not None and up.status == "ERR_EXEC"
    # a disconnected station never takes it: ERR_NOSTART after 10 minutes
    assert radio.advance_command("backup", "PENDING", t, t + 2000, t + 60_000, False, 0) is None
    late = radio.advance_command("backup", "PENDING", t, t + 2000, t + 600_000, False, 0)
    assert late is not None and late.status == "ERR_NOSTART" and late.due_ms is None
    # still running and unreachable for 10 minutes after its end: ERR_NOEND
    noend = radio.advance_command("backup", "PROCESSING", t, t, t + 600_000, False, 0)
    assert noend is not None and noend.status == "ERR_NOEND"


def test_scan_takes_minutes() -> None:
    assert radio.scan_run_ms(None, None, None) >= 5 * radio.MINUTE
    assert radio.scan_run_ms(863, 870, 25) >= 2 * radio.MINUTE


def test_grid_finds_all_stations_around_when_sparse_and_the_nearest_when_dense() -> None:
    sparse = radio.StationGrid([(1, 48.85, 2.35), (2, 48.87, 2.36), (3, 50.0, 2.35)])
    assert {s[0] for s in sparse.near(48.851, 2.351)} == {1, 2}
    dense_stations = [(i, 48.80 + (i % 40) * 0.003, 2.30 + (i // 40) * 0.003) for i in range(1600)]
    dense = radio.StationGrid(dense_stations)
    near = dense.near(48.86, 2.36)
    assert radio.NEAREST <= len(near) < 200
    closest = min(dense_stations, key=lambda s: radio.distance_m(48.86, 2.36, s[1], s[2]))
    assert closest in near


def test_batch_receptions_match_the_scalar_rule() -> None:
    import numpy as np

    stations = [(i, 48.85 + i * 0.004, 2.35 - i * 0.003) for i in range(1, 9)]
    devices = [(100, 48.851, 2.349), (101, 48.87, 2.33), (102, 60.0, 10.0)]
    rows = [(d, dl, dn, s, sl, sn) for d, dl, dn in devices for s, sl, sn in stations]
    cols = list(zip(*rows, strict=True))
    fading = radio.hash_units(np.array(cols[0]), np.array(cols[3]), 7) * 2 - 1
    got = radio.best_receptions(
        *(np.array(c) for c in cols[:3]), *(np.array(c) for c in cols[3:]), fading
    )
    for dev, lat, lon in devices:
        pairs = [i for i, r in enumerate(rows) if r[0] == dev]
        expected = radio.receptions(lat, lon, [stations[i % 8] for i in pairs],
                                    [float(fading[i]) for i in pairs])  # fmt: skip
        mine = [(int(s), float(r), float(n)) for d, s, r, n in
                zip(got[0], got[2], got[3], got[4], strict=True) if d == dev]  # fmt: skip
        assert mine == [(e.bs_uid, e.rssi, e.snr) for e in expected]
    assert set(got[1].tolist()) <= {1, 2, 3}


def test_hash_units_are_deterministic_and_uniform() -> None:
    import numpy as np

    a = radio.hash_units(np.arange(10_000), 3)
    assert (a == radio.hash_units(np.arange(10_000), 3)).all()
    assert a.min() >= 0 and a.max() < 1 and abs(a.mean() - 0.5) < 0.02


def test_pairs_out_of_reach_are_never_heard() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    n = 4000
    lat, lon = np.full(n, 48.85), np.full(n, 2.35)
    # Stations from a few metres to 20 km away, at every bearing; the best fading.
    s_lat = lat + rng.uniform(-0.18, 0.18, n)
    s_lon = lon + rng.uniform(-0.27, 0.27, n)
    dev, st = np.arange(n), np.arange(n) + 10_000
    fading = np.ones(n)
    reach = radio.within_reach(lat, lon, s_lat, s_lon)
    assert 0 < reach.sum() < n
    heard_all = radio.best_receptions(dev, lat, lon, st, s_lat, s_lon, fading)
    heard_near = radio.best_receptions(
        dev[reach], lat[reach], lon[reach], st[reach], s_lat[reach], s_lon[reach], fading[reach]
    )
    for a, b in zip(heard_all, heard_near, strict=True):
        assert a.tolist() == b.tolist()


def test_the_one_key_order_is_the_four_key_one() -> None:
    """Device, then SNR and RSSI highest first, then station: grouped input or not."""
    import numpy as np

    rng = np.random.default_rng(5)
    for grouped in (True, False):
        n = 3000
        dev = rng.integers(0, 80, n)
        dev = np.sort(dev) if grouped else dev
        st = rng.integers(1, 500, n)
        rssi = np.round(rng.uniform(-140, 10, n), 1)
        snr = np.round(np.clip(rssi + 117, -20, 10), 1)
        got = radio._best_first(dev, st, rssi, snr)
        want = np.lexsort((st, -rssi, -snr, dev))
        assert (dev[got] == dev[want]).all() and (st[got] == st[want]).all()
        assert (rssi[got] == rssi[want]).all()
