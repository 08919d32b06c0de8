import pytest
from pydantic import ValidationError

from lpwa_console.schema.app_servers import (
    ALL_SCOPES,
    AppServer,
    AppServerCreate,
    AppServerFilter,
    AppServerIotFlowConnectorMetrics,
    AppServerPage,
    AppServerUpdate,
    HttpDestination,
    SecurityAppServerUpdate,
    app_server_ref,
)
from lpwa_console.schema.common import path_segment

KEY = "2B7E151628AED2A6ABF7158809CF4F3C"


def dest(**extra: object) -> dict[str, object]:
    return {"addresses": ["https://a.example/up", "https://b.example/up"], "ports": "443",
            "strategy": "BLAST", **extra}  # fmt: skip


def test_scope_required_in_responses() -> None:
    page = AppServerPage.model_validate(
        {"briefs": [{"ID": "op-as", "name": "Operator", "scope": "OPERATOR"}], "more": False}
    )
    assert not page.briefs[0].writable
    assert page.briefs[0].path_ref == "id:op-as"
    with pytest.raises(ValidationError, match="scope"):
        AppServerPage.model_validate({"briefs": [{"ID": "x", "name": "x"}]})


def test_single_server_with_destinations() -> None:
    server = AppServer.model_validate(
        {
            "ID": "as-1",
            "name": "n",
            "scope": "SUBSCRIPTION",
            "destinations": [dest(strategy="ROUND_ROBIN")],  # a newer platform's value
            "downlinkSecurity": {"status": "NONE"},
        }
    )
    assert server.destinations[0].addresses[1] == "https://b.example/up"
    assert server.destinations[0].strategy == "ROUND_ROBIN"


def test_create_with_several_destinations() -> None:
    server = AppServerCreate.model_validate(
        {
            "name": "AS",
            "destinations": [dest(), dest(ports="8000-8010,9000", strategy="SEQUENTIAL")],
        }
    )
    wire = server.to_wire()
    assert "scope" not in wire and len(wire["destinations"]) == 2  # type: ignore[arg-type]


@pytest.mark.parametrize("ports", ["", "0", "70000", "10-5", "a"])
def test_bad_ports_name_the_field(ports: str) -> None:
    with pytest.raises(ValidationError) as info:
        HttpDestination.model_validate(dest(ports=ports))
    assert info.value.errors()[0]["loc"][0] == "ports"


def test_destination_rules_by_type() -> None:
    with pytest.raises(ValidationError, match="needs its ports"):
        AppServerCreate.model_validate({"name": "x", "destinations": [dest(ports=None)]})
    with pytest.raises(ValidationError, match="at most one"):
        AppServerCreate.model_validate(
            {"name": "x", "type": "HTTP_CELLULAR",
             "destinations": [dest(ports=None), dest(ports=None)]}
        )  # fmt: skip
    kafka = AppServerCreate.model_validate(
        {"name": "k", "type": "KAFKA", "destinations": [{"brokerID": "b", "topicName": "t"}]}
    )
    assert kafka.to_wire()["type"] == "KAFKA"
    with pytest.raises(ValidationError, match="strategy"):
        AppServerCreate.model_validate({"name": "x", "destinations": [{"addresses": ["h"]}]})


def test_update_does_not_send_type() -> None:
    update = AppServerUpdate(name="n", type="HTTP", occContext={"version": 3})
    assert update.to_wire() == {"name": "n", "occContext": {"version": 3}}


def test_security_update_rules() -> None:
    ok = SecurityAppServerUpdate.model_validate(
        {"downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "as", "downlinkAsKey": KEY}}
    )
    assert ok.downlinkSecurity.downlinkAsKey == KEY
    with pytest.raises(ValidationError, match="needs asID"):
        SecurityAppServerUpdate.model_validate({"downlinkSecurity": {"status": "DOWNLINK_AS_KEY"}})
    with pytest.raises(ValidationError, match="downlinkAsKey"):
        SecurityAppServerUpdate.model_validate(
            {"downlinkSecurity": {"status": "NONE", "downlinkAsKey": "12"}}
        )


def test_metrics_are_all_required() -> None:
    names = AppServerIotFlowConnectorMetrics.model_fields
    full = dict.fromkeys(names, 1)
    assert AppServerIotFlowConnectorMetrics.model_validate(full).uplinksLast24h == 1
    with pytest.raises(ValidationError):
        AppServerIotFlowConnectorMetrics.model_validate({**full, "uplinksLast1h": None})


def test_scope_filter_and_identifier() -> None:
    assert ALL_SCOPES.to_params() == [("scope", "SUBSCRIPTION"), ("scope", "OPERATOR")]
    assert AppServerFilter().to_params() == []
    assert path_segment(app_server_ref("tenant/as:1")) == "id%3Atenant%2Fas%3A1"
