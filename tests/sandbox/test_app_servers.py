from __future__ import annotations

from typing import Any

from lpwa_console.sandbox.simulator import Simulator
from lpwa_console.schema.app_servers import (
    AppServer,
    AppServerIotFlowConnectorMetrics,
    AppServerPage,
    SecurityAppServer,
)
from lpwa_console.schema.common import path_segment

from .conftest import API, Sandbox

SERVERS = f"{API}/subscriptions/mine/appServers"
LAKE = path_segment("id:operator/shared-data-lake")  # id%3Aoperator%2Fshared-data-lake
KEY = "000102030405060708090A0B0C0D0E0F"


def _ids(sb: Sandbox, role: str = "subscriber", **params: Any) -> list[str]:
    response = sb.get(SERVERS, role, params=params)
    assert response.status_code == 200, response.text
    AppServerPage.model_validate(response.json())
    return [s["ID"] for s in response.json()["briefs"]]


def test_scope_filter(sb: Sandbox) -> None:
    default = _ids(sb)
    assert "as-metering" in default and not any(i.startswith("operator") for i in default)
    operator = _ids(sb, scope="OPERATOR")
    assert set(operator) == {"operator/shared-data-lake", "operator-kafka-bus"}
    both = _ids(sb, scope=["SUBSCRIPTION", "OPERATOR"])
    assert set(both) == set(default) | set(operator)
    assert sb.get(SERVERS, params={"scope": "NOPE"}).status_code == 400
    page = sb.get(SERVERS, params={"scope": "OPERATOR"}).json()
    assert all("type" not in s and "baseStationCount" not in s for s in page["briefs"])
    assert _ids(sb, type="KAFKA") == ["as-analytics"]
    assert _ids(sb, sort="deviceCount,desc")[0] in ("as-metering", "as-parking")
    # The France team does not see the Berlin-only server.
    assert "as-tracking" not in _ids(sb, "subscriber-restricted")


def test_both_identifier_forms_and_operator_read_only(sb: Sandbox) -> None:
    metering = sb.get(SERVERS).json()["briefs"][0]
    uid = metering["href"].rsplit("/", 1)[1]
    by_uid = sb.get(f"{SERVERS}/{uid}")
    by_id = sb.get(f"{SERVERS}/{path_segment('id:' + metering['ID'])}")
    assert by_uid.status_code == by_id.status_code == 200
    assert by_uid.json() == by_id.json()
    lake = sb.get(f"{SERVERS}/{LAKE}")
    assert lake.status_code == 200, lake.text
    assert AppServer.model_validate(lake.json()).scope == "OPERATOR"
    assert "downlinkSecurity" not in lake.json()
    refused = sb.put(f"{SERVERS}/{LAKE}", json={"name": "mine now"})
    assert refused.status_code == 403
    assert sb.client.delete(f"{SERVERS}/{LAKE}", headers=sb.headers()).status_code == 403
    assert (
        sb.put(
            f"{SERVERS}/{LAKE}/security", json={"downlinkSecurity": {"status": "NONE"}}
        ).status_code
        == 403
    )
    # An OPERATOR server has no UID form.
    row = (
        sb.client.app.state.services.db.conn()
        .execute(  # type: ignore[attr-defined]
            "SELECT id FROM app_servers WHERE scope = 'OPERATOR' LIMIT 1"
        )
        .fetchone()
    )
    assert sb.get(f"{SERVERS}/{row[0]}").status_code == 404
    assert sb.get(f"{SERVERS}/id%3Anope").status_code == 404


def test_destinations_and_create_update_delete(sb: Sandbox) -> None:
    metering = AppServer.model_validate(sb.get(f"{SERVERS}/id%3Aas-metering").json())
    assert len(metering.destinations) == 2
    assert metering.destinations[0].addresses[1].startswith("https://metering-b")
    assert metering.destinations[0].strategy == "BLAST"
    assert metering.destinations[1].ports == "8443,9000-9010"
    body = {
        "name": "My HTTPS server",
        "contentType": "json",
        "destinations": [{"addresses": ["https://a.example", "https://b.example"], "ports": "443,8443",
                          "strategy": "BLAST"}],
        "customHttpHeaders": [{"name": "X-Api-Key", "value": "secret"}],
    }  # fmt: skip
    created = sb.post(SERVERS, json=body)
    assert created.status_code == 201, created.text
    server = AppServer.model_validate(created.json())
    assert server.scope == "SUBSCRIPTION" and server.type == "HTTP"
    assert server.destinations[0].addresses == ["https://a.example", "https://b.example"]
    path = f"{SERVERS}/{path_segment('id:' + server.ID)}"
    updated = sb.put(path, json={"name": "Renamed", "destinations": [
        {"addresses": ["https://c.example"], "ports": "443", "strategy": "SEQUENTIAL"}]})  # fmt: skip
    assert updated.status_code == 200, updated.text
    assert updated.json()["name"] == "Renamed" and updated.json()["occContext"]["version"] == 1
    assert updated.json()["destinations"][0]["strategy"] == "SEQUENTIAL"
    kafka = sb.put(path, json={"destinations": [{"brokerID": "b", "topicName": "t"}]})
    assert kafka.status_code == 400
    assert sb.post(SERVERS, "subscriber-viewer", json=body).status_code == 403
    assert sb.client.delete(path, headers=sb.headers()).status_code == 204
    assert sb.get(path).status_code == 404


def test_security(sb: Sandbox) -> None:
    path = f"{SERVERS}/id%3Aas-parking/security"
    assert SecurityAppServer.model_validate(sb.get(path).json()).downlinkSecurity.status == "NONE"
    body = {"downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "parking.acme",
                                 "downlinkAsKey": KEY, "maxTimestampDeviation": 30000}}  # fmt: skip
    put = sb.put(path, json=body)
    assert put.status_code == 200, put.text
    got = sb.get(path).json()
    assert got["downlinkSecurity"] == {"status": "DOWNLINK_AS_KEY", "asID": "parking.acme",
                                       "maxTimestampDeviation": 30000}  # fmt: skip
    assert KEY not in str(sb.get(f"{SERVERS}/id%3Aas-parking").json())
    bad = sb.put(path, json={"downlinkSecurity": {"status": "DOWNLINK_AS_KEY"}})
    assert bad.status_code == 400
    lake = sb.get(f"{SERVERS}/{LAKE}/security")
    assert lake.status_code == 200


def test_stale_versions_are_refused_and_the_key_is_kept(sb: Sandbox) -> None:
    path = f"{SERVERS}/id%3Aas-building"
    security = {"status": "DOWNLINK_AS_KEY", "asID": "bms.acme", "downlinkAsKey": KEY,
                "maxTimestampDeviation": 30000}  # fmt: skip
    assert sb.put(f"{path}/security", json={"downlinkSecurity": security}).status_code == 200
    version = sb.get(path).json()["occContext"]["version"]
    # An edit of the security block that does not retype the key keeps the stored key.
    keyless = {k: v for k, v in security.items() if k != "downlinkAsKey"}
    edit = {"downlinkSecurity": {**keyless, "maxTimestampDeviation": 60000},
            "occContext": {"version": version}}  # fmt: skip
    assert sb.put(path, json=edit).status_code == 200
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]
    stored = conn.execute(
        "SELECT security_key, security_max_deviation FROM app_servers WHERE ref = 'as-building'"
    ).fetchone()
    assert tuple(stored) == (KEY, 60000)
    # Turning security on without a key (none stored either) is refused, as on /security.
    bare = {"downlinkSecurity": {"status": "DOWNLINK_AS_KEY"}}
    assert sb.put(f"{SERVERS}/id%3Aas-environment", json=bare).status_code == 400
    # The same version again is stale now: refused, nothing changed.
    stale = sb.put(path, json={"name": "Lost update", "occContext": {"version": version}})
    assert stale.status_code == 409 and stale.json()["code"] == 40901
    assert sb.get(path).json()["name"] != "Lost update"
    old = {"downlinkSecurity": {"status": "NONE"}, "occContext": {"version": version}}
    assert sb.put(f"{path}/security", json=old).status_code == 409


def test_flow_connector_metrics_follow_the_traffic(sb: Sandbox) -> None:
    path = f"{SERVERS}/id%3Aas-metering/iotFlowConnector/metrics"
    sim = Simulator(sb.client.app.state.services.db, seed=4)  # type: ignore[attr-defined]
    sim.step(2 * 3600)
    metrics = AppServerIotFlowConnectorMetrics.model_validate(sb.get(path).json())
    assert metrics.uplinksLast24h >= metrics.uplinksLast1h > 0
    assert metrics.activeThingsLast24h >= metrics.activeThingsLast1h > 0
    lake = sb.get(f"{SERVERS}/{LAKE}/iotFlowConnector/metrics")
    assert lake.status_code == 200 and lake.json()["uplinksLast24h"] == 0


def test_counts_follow_the_domain_restrictions(sb: Sandbox) -> None:
    """deviceCount and multicastGroupCount count direct associations the caller may see
    (reference rule); the sandbox has no base stations or RF probes, so it claims no count
    of them."""
    conn = sb.client.app.state.services.db.conn()  # type: ignore[attr-defined]

    def counts(role: str) -> dict[str, tuple[int, int]]:
        page = sb.get(SERVERS, role, params={"scope": ["SUBSCRIPTION", "OPERATOR"]}).json()
        for brief in page["briefs"]:
            assert "baseStationCount" not in brief and "rfProbeCount" not in brief
        return {s["ID"]: (s["deviceCount"], s["multicastGroupCount"]) for s in page["briefs"]}

    everyone, france = counts("subscriber"), counts("subscriber-restricted")
    direct = dict(
        conn.execute(
            "SELECT a.ref, count(*) FROM device_app_servers l JOIN app_servers a"
            " ON a.id = l.app_server_id WHERE a.subscription_id = 1 GROUP BY a.ref"
        ).fetchall()
    )
    assert {k: v[0] for k, v in everyone.items() if v[0]} == direct
    assert everyone["as-metering"][1] == 2
    for ref, (devices, groups) in france.items():
        assert devices <= everyone[ref][0] and groups <= everyone[ref][1]
    assert sum(v[0] for v in france.values()) < sum(v[0] for v in everyone.values())
    assert sum(v[1] for v in france.values()) < sum(v[1] for v in everyone.values())
    # The same rule on one server.
    metering = "id%3Aas-metering"
    one = sb.get(f"{SERVERS}/{metering}", "subscriber-restricted").json()
    assert (one["deviceCount"], one["multicastGroupCount"]) == france["as-metering"]
    assert "baseStationCount" not in one and "rfProbeCount" not in one
