"""Forms derived from the request models, nested fields included (no Qt)."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.models.forms import (
    AUTOMATIC,
    FormField,
    Raw,
    Rows,
    automatic_data,
    check_only_data,
    describe,
    error_text,
    form_data,
    form_fields,
    form_for,
    nested_errors,
    pattern_words,
    raw_of,
    typed_fields,
    value_of,
)
from lpwa_console.schema.app_servers import (
    AppServer,
    AppServerCreate,
    AppServerUpdate,
    HttpDestination,
    KafkaDestination,
    SecurityAppServer,
    SecurityAppServerUpdate,
)
from lpwa_console.schema.multicast import (
    MulticastGroup,
    MulticastGroupCreate,
    MulticastGroupUpdate,
)
from lpwa_console.schema.network import (
    AsTransportKeyCreate,
    CellularNetworkContextCreate,
    CellularNetworkContextUpdate,
)


def fields_of(model: Any) -> dict[str, FormField]:
    fields, skipped = form_fields(model)
    assert skipped == []
    return {f.name: f for f in fields}


def sub_fields(spec: FormField, form: int = 0) -> dict[str, tuple[str, bool, bool]]:
    return {f.name: (f.kind, f.required, f.secret) for f in spec.forms[form].fields}


def test_app_server_nested_fields() -> None:
    fields = fields_of(AppServerCreate)
    dest = fields["destinations"]
    assert dest.kind == "table" and [f.model for f in dest.forms] == [
        HttpDestination,
        KafkaDestination,
    ]
    assert [f.label for f in dest.forms] == ["HTTP destination", "Kafka destination"]
    assert sub_fields(dest) == {
        "addresses": ("list", True, False),
        "ports": ("text", False, False),
        "strategy": ("choice", True, False),
    }
    assert dest.forms[0].fields[2].choices == ("SEQUENTIAL", "BLAST")
    assert sub_fields(dest, 1) == {
        "brokerID": ("text", True, False),
        "topicName": ("text", True, False),
    }
    assert dest.noun == "Destination" and fields["customHttpHeaders"].noun == "Custom HTTP header"
    assert sub_fields(fields["customHttpHeaders"]) == {
        "name": ("text", True, False),
        "value": ("text", True, False),
    }
    security = fields["downlinkSecurity"]
    assert security.kind == "object"
    assert sub_fields(security) == {
        "status": ("choice", True, False),
        "asID": ("text", False, False),
        "downlinkAsKey": ("text", False, True),  # a secret, never pre-filled
        "maxTimestampDeviation": ("int", False, False),
    }
    domains = fields["domains"]
    assert sub_fields(domains) == {"name": ("text", True, False), "group": ("ref", True, False)}
    assert domains.forms[0].fields[1].key == "name"  # {"group": {"name": ...}} as one text
    assert fields["flowMatcherTags"].kind == "list"
    occ = fields_of(AppServerUpdate)["occContext"]
    assert (occ.kind, occ.key) == ("ref", "version")


def test_multicast_and_network_fields() -> None:
    fields = fields_of(MulticastGroupCreate)
    assert fields["domains"].kind == "table" and fields["appServers"].kind == "refs"
    assert "appKeys" not in fields and "verificationCode" not in fields  # deprecated
    assert fields["appSKey"].secret and fields["nwKey"].secret
    for model in (CellularNetworkContextCreate, CellularNetworkContextUpdate, AsTransportKeyCreate):
        assert all(f.kind not in ("object", "table") for f in fields_of(model).values())


def test_nested_values_make_a_valid_request() -> None:
    fields, _ = form_fields(AppServerCreate)
    raws: dict[str, Raw] = {
        "name": " Factory ",
        "destinations": Rows(
            [
                {"addresses": "a.example, b.example", "ports": "443", "strategy": "BLAST"},
                {},  # a row added and left blank is not sent
                {"addresses": "10.0.0.8", "ports": "8000-8010", "strategy": "SEQUENTIAL"},
            ]
        ),
        "customHttpHeaders": Rows([{"name": "X-Site", "value": "north"}]),
        "downlinkSecurity": {"status": "NONE", "asID": "", "maxTimestampDeviation": "30"},
        "domains": Rows([{"name": "France/Paris", "group": "Site"}]),
    }
    data = form_data(fields, raws)
    assert data == {
        "name": "Factory",
        "destinations": [
            {"addresses": ["a.example", "b.example"], "ports": "443", "strategy": "BLAST"},
            {"addresses": ["10.0.0.8"], "ports": "8000-8010", "strategy": "SEQUENTIAL"},
        ],
        "customHttpHeaders": [{"name": "X-Site", "value": "north"}],
        "downlinkSecurity": {"status": "NONE", "maxTimestampDeviation": 30},
        "domains": [{"name": "France/Paris", "group": {"name": "Site"}}],
    }
    request = AppServerCreate.model_validate(data)
    assert request.destinations is not None and request.destinations[1] == HttpDestination(
        addresses=["10.0.0.8"], ports="8000-8010", strategy="SEQUENTIAL"
    )
    # Nothing typed in a sub-form or a table: not sent at all.
    security = next(f for f in fields if f.name == "downlinkSecurity")
    assert value_of(security, {"status": "", "asID": " "}) is None
    assert "destinations" not in form_data(fields, {"destinations": Rows([{}, {}])})


def test_the_kind_of_a_table_picks_the_columns_sent() -> None:
    fields, _ = form_fields(AppServerCreate)
    dest = next(f for f in fields if f.name == "destinations")
    rows = [{"addresses": "h", "strategy": "BLAST", "brokerID": "b1", "topicName": "up"}]
    assert value_of(dest, Rows(rows, form=1)) == [{"brokerID": "b1", "topicName": "up"}]
    assert value_of(dest, Rows(rows, form=0)) == [{"addresses": ["h"], "strategy": "BLAST"}]
    assert form_for(dest, "KAFKA") == 1
    assert form_for(dest, "HTTP") == form_for(dest, "HTTP_CELLULAR") == 0
    assert form_for(dest, "json") is None and form_for(dest, "") is None
    headers = next(f for f in fields if f.name == "customHttpHeaders")
    assert form_for(headers, "CUSTOM") is None  # one kind only: nothing to follow


def test_nested_errors_are_located() -> None:
    fields, _ = form_fields(AppServerCreate)
    dest = next(f for f in fields if f.name == "destinations")
    raw = Rows(
        [
            {"addresses": "a.example", "ports": "443", "strategy": "BLAST"},
            {"addresses": "b.example", "ports": "99999"},
            {},
        ]
    )
    errors = nested_errors(dest, raw)
    assert errors[0] == {} and errors[2] == {}  # valid, blank
    assert set(errors[1]) == {"ports", "strategy"}
    assert describe(dest, errors).startswith("Destination 2: Ports: 99999 is not a port")
    assert describe(dest, [{}, {}]) == ""
    security = next(f for f in fields if f.name == "downlinkSecurity")
    assert nested_errors(security, {"asID": "as-1", "maxTimestampDeviation": "-1"}) == [
        {
            "status": "Status: required",
            "maxTimestampDeviation": "Maximum clock difference: at least 0",
        }
    ]
    assert nested_errors(security, {"status": ""}) == [{}]
    domains = next(f for f in fields if f.name == "domains")
    (bad,) = nested_errors(domains, Rows([{"name": "France/Paris", "group": "Site:1"}]))
    assert bad == {
        "group": "Group: a group name has 1 to 20 characters, without : < > or spaces at either end"
    }
    assert nested_errors(fields[0], "x") == []  # a flat field has no rows


def test_nested_errors_word_the_patterns() -> None:
    fields, _ = form_fields(AppServerCreate)
    headers = next(f for f in fields if f.name == "customHttpHeaders")
    (bad,) = nested_errors(headers, Rows([{"name": "X Bad", "value": "caf\u00e9"}]))
    assert bad == {
        "name": "Header: a header name has letters, digits and ! # $ % & ' * + - . ^ _ ` | ~ "
        "only, no spaces",
        "value": "Value: a header value has visible ASCII characters, with spaces or tabs only "
        "between them",
    }
    assert describe(headers, [bad]).startswith("Custom HTTP header 1: Header: a header name")
    domains = next(f for f in fields if f.name == "domains")
    (bad,) = nested_errors(domains, Rows([{"name": "France/", "group": "Site"}]))
    assert bad["name"].startswith("Domain: a domain is 1 to 5 parts")
    messages = [
        m
        for row in nested_errors(headers, Rows([{"name": "a b", "value": "v"}]))
        for m in row.values()
    ]
    assert messages and not any("should match pattern" in m for m in messages)


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"^[0-9A-F]+$", "expected hexadecimal digits (0-9, A-F, in capitals)"),
        (r"^[0-9a-fA-F]{16}$", "expected exactly 16 hexadecimal digits (0-9, A-F)"),
        (r"^[0-9]{6,15}$", "expected 6 to 15 digits"),
        (r"^[A-Z_]{2,}$", "expected at least 2 characters among A-Z _"),
        (r"^[A-Za-z0-9._\-]+$", "expected characters among A-Z a-z 0-9 . _ -"),
        (r"^(a|b)$", "is not in the expected form"),  # never the expression itself
    ],
)
def test_patterns_in_words(pattern: str, words: str) -> None:
    assert pattern_words(pattern) == words


def test_one_wording_for_the_device_form_and_the_nested_forms() -> None:
    from pydantic import BaseModel, Field, ValidationError

    from lpwa_console.models.validation import validate
    from lpwa_console.schema.devices import DeviceUpdate

    class Hex(BaseModel):
        key: str = Field(pattern=r"^[0-9A-F]+$")

    try:
        Hex(key="xyz")
    except ValidationError as exc:
        (error,) = exc.errors()
    assert error["msg"] == "String should match pattern '^[0-9A-F]+$'"
    assert error_text(error) == "expected hexadecimal digits (0-9, A-F, in capitals)"
    _, errors = validate(DeviceUpdate, {"domains": [{"name": "a/", "group": {"name": "g"}}]})
    fields, _ = form_fields(DeviceUpdate)
    domains = next(f for f in fields if f.name == "domains")
    (nested,) = nested_errors(domains, Rows([{"name": "a/", "group": "g"}]))
    # The same words, each naming the field where it shows (the list, the table's column).
    assert errors["domains"].split(": ", 1)[1] == nested["name"].split(": ", 1)[1]
    assert errors["domains"].startswith("Domains: a domain is")
    assert nested["name"].startswith("Domain: a domain is")
    _, errors = validate(DeviceUpdate, {"tags": [{"name": "<b>"}]})
    assert errors["tags"].startswith("Tags: a tag has 1 to 40 characters")


def test_an_item_fills_the_form() -> None:
    server = AppServer.model_validate(
        {
            "ID": "TWA_1.9.AS", "name": "Broker", "scope": "SUBSCRIPTION", "type": "KAFKA",
            "destinations": [{"brokerID": "b1", "topicName": "uplinks"}],
            "customHttpHeaders": [{"name": "X-A", "value": "1"}],
            "downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "as-1", "downlinkAsKey": "00" * 16},
            "domains": [{"name": "France/Paris", "group": {"name": "Site"}}],
            "occContext": {"version": 7},
        }
    )  # fmt: skip
    raws = {f.name: raw_of(f, server) for f in form_fields(AppServerUpdate)[0]}
    dest = raws["destinations"]
    assert isinstance(dest, Rows) and dest.form == 1  # the Kafka columns
    assert dest.rows[0]["brokerID"] == "b1" and dest.rows[0]["addresses"] == ""
    assert raws["downlinkSecurity"] == {
        "status": "DOWNLINK_AS_KEY", "asID": "as-1", "downlinkAsKey": "", "maxTimestampDeviation": "",
    }  # fmt: skip
    assert raws["domains"] == Rows([{"name": "France/Paris", "group": "Site"}])
    assert raws["occContext"] == "7" and "type" not in raws  # check-only: not shown
    http = AppServer.model_validate(
        {
            "ID": "x", "name": "n", "scope": "SUBSCRIPTION",
            "destinations": [{"addresses": ["a", "b"], "ports": "80", "strategy": "BLAST"}],
        }
    )  # fmt: skip
    (spec,) = [f for f in form_fields(AppServerUpdate)[0] if f.name == "destinations"]
    filled = raw_of(spec, http)
    assert isinstance(filled, Rows) and filled.form == 0
    assert filled.rows[0]["addresses"] == "a, b"
    assert raw_of(spec, None) == Rows([], 0)
    group = MulticastGroup.model_validate(
        {"EUI": "01" * 8, "name": "g", **{f"alarm{i}": 0 for i in range(1, 7)},
         "domains": [{"name": "Lyon", "group": {"name": "Site"}}]}
    )  # fmt: skip
    (domains,) = [f for f in form_fields(MulticastGroupCreate)[0] if f.name == "domains"]
    assert raw_of(domains, group) == Rows([{"name": "Lyon", "group": "Site"}])


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({}, {"name": "Broker", "occContext": {"version": "7"}}),  # nested as they were: not sent
        (
            {"destinations": Rows([], 1)},  # every destination removed: cleared
            {"destinations": []},
        ),
        ({"flowMatcherTags": ""}, {"flowMatcherTags": []}),
        (
            {"downlinkSecurity": {"status": "NONE"}},
            {"downlinkSecurity": {"status": "NONE"}},
        ),
    ],
)
def test_editing_sends_what_changed_in_nested_fields(
    change: dict[str, Any], expected: dict[str, Any]
) -> None:
    server = AppServer.model_validate(
        {
            "ID": "TWA_1.9.AS", "name": "Broker", "scope": "SUBSCRIPTION",
            "destinations": [{"brokerID": "b1", "topicName": "uplinks"}],
            "downlinkSecurity": {"status": "DOWNLINK_AS_KEY", "asID": "as-1"},
            "flowMatcherTags": ["a"], "occContext": {"version": 7},
        }
    )  # fmt: skip
    fields, _ = form_fields(AppServerUpdate)
    initial = {f.name: raw_of(f, server) for f in fields}
    data = form_data(fields, {**initial, **change}, initial)
    base = {"name": "Broker", "occContext": {"version": "7"}, "flowMatcherTags": ["a"]}
    assert data == {**base, **expected}
    AppServerUpdate.model_validate(data)


def test_flat_fields_as_before() -> None:
    fields, skipped = form_fields(MulticastGroupCreate)
    assert skipped == []
    data = form_data(fields, {"EUI": " 01 ", "appServers": "a, b", "downlinkDataRate": "3"})
    assert data == {"EUI": "01", "appServers": [{"ID": "a"}, {"ID": "b"}], "downlinkDataRate": 3}
    rate = next(f for f in fields if f.name == "downlinkDataRate")
    assert value_of(rate, "x3") == "x3"  # the schema says what is wrong
    assert raw_of(next(f for f in fields if f.name == "appSKey"), object()) == ""


def test_the_version_is_automatic() -> None:
    fields, _ = form_fields(AppServerUpdate)
    assert "occContext" in {f.name for f in fields}  # derived, as the schema says
    assert "occContext" not in {f.name for f in typed_fields(fields)}  # but never typed
    assert {"occContext"} == AUTOMATIC
    read = AppServer.model_validate(
        {"ID": "a", "name": "n", "scope": "SUBSCRIPTION", "occContext": {"version": 0}}
    )
    assert automatic_data(AppServerUpdate, read) == {"occContext": {"version": 0}}
    security = SecurityAppServer.model_validate(
        {"downlinkSecurity": {"status": "NONE"}, "occContext": {"version": 5}}
    )
    # The first source that has a version wins (what the dialog showed, then the item).
    assert automatic_data(SecurityAppServerUpdate, security, read) == {"occContext": {"version": 5}}
    assert automatic_data(SecurityAppServerUpdate, None, read) == {"occContext": {"version": 0}}
    unversioned = AppServer.model_validate({"ID": "a", "name": "n", "scope": "OPERATOR"})
    assert automatic_data(AppServerUpdate, unversioned) == {}  # the server decides alone
    assert automatic_data(MulticastGroupUpdate, read) == {}  # no occContext in that request
    AppServerUpdate.model_validate({"name": "x", **automatic_data(AppServerUpdate, read)})


def test_check_only_fields_are_not_shown_but_still_check() -> None:
    fields, skipped = form_fields(AppServerUpdate)
    assert "type" not in {f.name for f in fields} and "type" not in skipped
    assert "type" in {f.name for f in form_fields(AppServerCreate)[0]}  # a create sends it
    kafka = AppServer.model_validate(
        {"ID": "a", "name": "n", "scope": "SUBSCRIPTION", "type": "KAFKA"}
    )
    assert check_only_data(AppServerUpdate, kafka) == {"type": "KAFKA"}
    assert check_only_data(AppServerUpdate, None, kafka) == {"type": "KAFKA"}
    assert check_only_data(AppServerCreate, kafka) == {}  # nothing check-only there
    operator = AppServer.model_validate({"ID": "o", "name": "n", "scope": "OPERATOR"})
    assert check_only_data(AppServerUpdate, operator) == {}
    http_rows = {"destinations": [{"addresses": ["h"], "ports": "80", "strategy": "BLAST"}]}
    with pytest.raises(ValueError, match="a KAFKA server takes brokerID"):
        AppServerUpdate.model_validate({**http_rows, **check_only_data(AppServerUpdate, kafka)})
    request = AppServerUpdate.model_validate(
        {"name": "x", **check_only_data(AppServerUpdate, kafka)}
    )
    assert request.to_wire() == {"name": "x"}  # checked with, never sent


# --- words: labels, marks, pydantic's messages translated ------------------------------------


def test_fields_carry_their_words_and_marks() -> None:
    from lpwa_console.models.forms import REQUIRED_LEGEND
    from lpwa_console.schema.multicast import MulticastGroupCreate

    fields = {f.name: f for f in form_fields(MulticastGroupCreate)[0]}
    address = fields["nwAddress"]
    assert address.label == "Group network address (McAddr)" and address.required
    assert address.marked_label == "Group network address (McAddr) *"
    assert REQUIRED_LEGEND.startswith("*")
    assert "API name: nwAddress" in address.tooltip
    period = fields["pingSlotPeriod"]
    assert period.marked_label == "Ping slot period" and "Unit: s" in period.tooltip
    assert fields["class"].choice_words("C") == "Class C (always listening)"
    assert fields["appServers"].reference == "appServers"


def test_a_duration_field_is_edited_as_a_duration() -> None:
    from lpwa_console.schema.devices import Alarm004Threshold

    fields = {f.name: f for f in form_fields(Alarm004Threshold)[0]}
    assert fields["duration"].kind == "duration"
    assert value_of(fields["duration"], "P2D") == "P2D"
    assert fields["level"].label == "Severity"


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"EUI": "70B3D5E75E000001", "nwAddress": "12"}, "nwAddress",
         "Network address (DevAddr): 8 hexadecimal digits expected"),
        ({"EUI": "70B3D5E75E00000G"}, "EUI", "DevEUI: 'G' is not a hexadecimal digit (0-9, A-F)"),
        ({"EUI": "70B3D5E75E00000"}, "EUI", "DevEUI: 16 hexadecimal digits expected"),
        ({"EUI": "70B3D5E75E000001", "adminLat": 91, "adminLon": 2}, "adminLat",
         "Latitude: at most 90"),
        ({"EUI": "70B3D5E75E000001", "adminLat": "north", "adminLon": 2}, "adminLat",
         "Latitude: a number expected"),
        ({"EUI": "70B3D5E75E000001", "name": "n" * 129}, "name", "Name: at most 128 characters"),
        ({"EUI": "70B3D5E75E000001", "activation": "JOIN"}, "activation",
         "Activation: choose one of the values offered"),
        ({}, "EUI", "DevEUI: required"),
        ({"EUI": "70B3D5E75E000001", "adminLat": 10}, "adminLat",
         "Latitude and Longitude go together"),
    ],
)  # fmt: skip
def test_errors_name_the_field_in_plain_words(
    data: dict[str, object], field: str, message: str
) -> None:
    from lpwa_console.models.validation import validate
    from lpwa_console.schema.devices import DeviceCreate

    _, errors = validate(DeviceCreate, data)
    assert errors[field] == message
    assert not any(w in errors[field] for w in ("Input should", "Value error", "pattern"))
