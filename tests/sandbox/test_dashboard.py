"""The operator's dashboard over HTTP: KPI metadata, last values computed from the simulated
network (refusing a duration the KPI does not list) and dimension elements; only the
operator account reads them."""

from __future__ import annotations

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.sandbox.store import kpis as kpi_store

from .conftest import API, Sandbox

OPS = f"{API}/operators/mine"


def _values(body: dict, key: str) -> list[float]:
    series = {s["key"]: s["values"] for s in body["series"]}
    return [v["value"] for v in series[key]]


def test_kpi_metadata_names_colours_styles_and_durations(sb: Sandbox) -> None:
    kpi = sb.get(f"{OPS}/kpis/traffic", "operator").json()
    assert kpi["ID"] == "traffic"
    assert kpi["lastValues"]["durations"] == ["PT6H", "P1D", "P3D"]
    names = {m["name"]: m for m in kpi["metrics"]}
    assert names["uplinks"]["colorId"] and names["uplinks"]["lineStyle"] == "SOLID"
    assert names["appServerUplinks.*"]["keyDimension"] == "appServer"
    assert sb.get(f"{API}/operators/1/kpis/devices", "operator").status_code == 200
    assert sb.get(f"{API}/operators/id:demo-operator/kpis/devices", "operator").status_code == 200
    assert sb.get(f"{API}/operators/id:other/kpis/devices", "operator").status_code == 404
    missing = sb.get(f"{OPS}/kpis/nothing", "operator")
    assert missing.status_code == 404 and "nothing" in missing.text


def test_only_the_operator_reads_kpis(sb: Sandbox) -> None:
    for role in ("subscriber", "partner", "supplier"):
        assert sb.get(f"{OPS}/kpis/devices", role).status_code == 403
        assert sb.get(f"{OPS}/dimensions/partner/elements", role).status_code == 403
    assert sb.client.get(f"{OPS}/kpis/devices").status_code == 401


def test_last_values_refuse_a_duration_the_kpi_does_not_list(sb: Sandbox) -> None:
    wrong = sb.get(f"{OPS}/kpis/stations/lastValues", "operator", params={"duration": "P3D"})
    assert wrong.status_code == 400
    assert "PT6H, P1D" in wrong.json()["message"] and "P3D" in wrong.json()["message"]
    assert sb.get(f"{OPS}/kpis/stations/lastValues", "operator").status_code == 400
    bad = sb.get(f"{OPS}/kpis/devices/lastValues", "operator", params={"duration": "soon"})
    assert bad.status_code == 400
    # The same length written otherwise is the listed duration.
    same = sb.get(f"{OPS}/kpis/devices/lastValues", "operator", params={"duration": "PT24H"})
    assert same.status_code == 200 and same.json()["duration"] == "P1D"


def test_device_counts_follow_the_network(sb: Sandbox) -> None:
    body = sb.get(f"{OPS}/kpis/devices/lastValues", "operator", params={"duration": "P1D"}).json()
    devices = sb.all_devices() + sb.all_devices("other-subscriber")  # the operator's: all
    lorawan = sum(d.get("connectivity", "LORAWAN") == "LORAWAN" for d in devices)
    assert _values(body, "lorawan")[-1] + _values(body, "cellular")[-1] == len(devices)
    assert _values(body, "lorawan")[-1] == lorawan
    active = sum(d.get("healthState") == "ACTIVE" for d in devices)
    assert _values(body, "active")[-1] == active
    # Backfilled hourly history: a line, not one point.
    assert len(_values(body, "lorawan")) >= 20
    assert body["since"] < body["until"]
    # A device more is counted at once.
    new = {"EUI": "70B3D5FFFE0000AA", "name": "kpi", "connectivity": "LORAWAN"}
    created = sb.post(f"{API}/subscriptions/mine/devices", json=new)
    if created.status_code == 201:
        after = sb.get(
            f"{OPS}/kpis/devices/lastValues", "operator", params={"duration": "PT6H"}
        ).json()
        assert _values(after, "lorawan")[-1] == lorawan + 1


def test_traffic_and_wildcard_series_come_from_the_frames(sb: Sandbox) -> None:
    body = sb.get(f"{OPS}/kpis/traffic/lastValues", "operator", params={"duration": "P3D"}).json()
    uplinks = _values(body, "uplinks")
    assert len(uplinks) > 60 and max(uplinks) > 0 and len(set(uplinks)) > 1
    per_server = [s["key"] for s in body["series"] if s["key"].startswith("appServerUplinks.")]
    assert per_server
    elements = sb.get(f"{OPS}/dimensions/appServer/elements", "operator").json()
    ids = {e["ID"] for e in elements["elements"]}
    assert {k.split(".", 1)[1] for k in per_server} <= ids


def test_station_availability_and_dimensions(sb: Sandbox) -> None:
    body = sb.get(f"{OPS}/kpis/stations/lastValues", "operator", params={"duration": "P1D"}).json()
    availability = _values(body, "availability")
    assert len(availability) > 10 and all(0 <= v <= 100 for v in availability)
    regions = sb.get(f"{OPS}/dimensions/rfRegion/elements", "operator").json()["elements"]
    partners = sb.get(f"{OPS}/dimensions/partner/elements", "operator").json()["elements"]
    keys = {s["key"] for s in body["series"]}
    assert {f"regionAvailability.{e['ID']}" for e in regions} <= keys
    assert any(f"partnerAvailability.{e['ID']}" in keys for e in partners)
    assert sb.get(f"{OPS}/dimensions/planet/elements", "operator").status_code == 404


def test_alarms_and_key_manager_counts(sb: Sandbox) -> None:
    alarms = sb.get(f"{OPS}/kpis/alarms/lastValues", "operator", params={"duration": "P1D"})
    assert alarms.status_code == 200
    assert {s["key"] for s in alarms.json()["series"]} >= {"critical", "major", "warning"}
    km = sb.get(f"{OPS}/kpis/keyManager/lastValues", "operator", params={"duration": "P7D"}).json()
    total = sum(_values(km, k)[-1] for k in kpi_store.KM_STATES)
    assert total > 0


def test_the_simulator_records_samples(sb: Sandbox) -> None:
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    sim = Simulator(db, seed=3)
    before = kpi_store.last_sample(db.conn())
    sim.step(1)
    first = kpi_store.last_sample(db.conn())
    assert first is not None and (before is None or first > before)
    sim.step(60)  # under 5 minutes: no new sample
    assert kpi_store.last_sample(db.conn()) == first
    sim.step(300)
    assert kpi_store.last_sample(db.conn()) == sim.now_ms


def test_backfilled_traffic_is_the_hours_frames(sb: Sandbox) -> None:
    """Each hourly sample is the previous hour's frames, read from the traffic history."""
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    conn = db.conn()
    body = sb.get(f"{OPS}/kpis/traffic/lastValues", "operator", params={"duration": "P3D"}).json()
    series = {s["key"]: s["values"] for s in body["series"]}
    checked = 0
    for point in series["uplinks"][:-1]:  # the last: computed at the request
        hour = point["timestamp"] - kpi_store.HOUR_MS
        (up,) = conn.execute(
            "SELECT coalesce(sum(up), 0) FROM frame_buckets WHERE ts = ?", (hour,)
        ).fetchone()
        assert point["value"] == up
        checked += 1
    assert checked > 60
    heard = {p["timestamp"]: p["value"] for p in series["uplinks"]}
    devices = sb.get(
        f"{OPS}/kpis/devices/lastValues", "operator", params={"duration": "P3D"}
    ).json()
    communicating = {s["key"]: s["values"] for s in devices["series"]}["communicating"]
    assert any(p["value"] > 0 for p in communicating) and heard
