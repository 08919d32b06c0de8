"""A new base station in the view-models: the schema's rules by field while typing, the
request sent, the server's refusals named on their field and in words, the partner's grant
as a refusal with its figures, and the form derived from `BaseStationCreate`."""

from __future__ import annotations

from typing import Any

from lpwa_console.api import APIConnectionError
from lpwa_console.models.forms import form_fields, raw_of, value_of
from lpwa_console.models.partners import PartnerViewModel
from lpwa_console.models.rights import AccountRights, Grants
from lpwa_console.models.stations import StationsViewModel, create_refusal_words
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.partners import Partner
from lpwa_console.schema.stations import BaseStation, BaseStationCreate, RfProbeSetting
from tests.helpers import refusal

MODEL = {"ID": "KERLINK_WIRNET_ISTATION"}
FIELDS = set(BaseStationCreate.model_fields)


def test_lrr_id_rules_while_typing(qloop: Any) -> None:
    vm = StationsViewModel(TaskRunner())
    assert vm.check_create({"model": MODEL}) == {}  # the LRR ID is allocated when left out
    assert vm.check_create({"model": MODEL, "lrrID": "0a1b2c3d"}) == {}
    for typed, words in (
        ("0A1B2C", "8 hexadecimal digits"),
        ("0A1B2C3D4", "8 hexadecimal digits"),
        ("0A1B2C3Z", "8 hexadecimal digits"),
        ("00000000", "is reserved"),
        ("FFFE1234", "is reserved"),
        ("ffff0001", "is reserved"),
    ):
        errors = vm.check_create({"model": MODEL, "lrrID": typed})
        assert set(errors) == {"lrrID"} and words in errors["lrrID"], (typed, errors)
        assert errors["lrrID"].startswith("LRR ID: ")
    assert "model" in vm.check_create({"lrrID": "0A1B2C3D"})  # the model is required
    request = BaseStationCreate.model_validate({"model": MODEL, "lrrID": "0a1b2c3d"})
    assert request.lrrID == "0A1B2C3D"  # stored upper case
    # §2.4: without thresholds, the connection-lost alarm is CRITICAL after 30 seconds.
    wire = request.to_wire()
    assert wire["alarmsConfiguration"]["alarm102"] == [{"duration": "PT30S", "severity": 6}]


def test_create_refused_locally_or_without_a_client(qloop: Any, qtbot: Any) -> None:
    vm = StationsViewModel(TaskRunner())
    with qtbot.waitSignal(vm.save_failed) as failed:
        assert not vm.create({"model": MODEL, "lrrID": "FFFF0000"})
    assert failed.args[1] == "lrrID"
    with qtbot.waitSignal(vm.save_failed) as failed:
        assert not vm.create({"model": MODEL})
    assert failed.args == ["Not connected", ""]


def test_create_sends_and_shows_the_new_station(qloop: Any, qtbot: Any) -> None:
    sent: list[BaseStationCreate] = []

    class Stations:
        async def create(self, request: BaseStationCreate) -> BaseStation:
            sent.append(request)
            return BaseStation.model_validate(
                {"lrrID": request.lrrID or "0A000001", "name": request.name, "model": MODEL}
            )

    class Client:
        stations = Stations()

    vm = StationsViewModel(TaskRunner())
    vm.client = Client()  # type: ignore[assignment]
    vm.reload = lambda: None  # type: ignore[method-assign]
    with qtbot.waitSignal(vm.created) as created:
        assert vm.create({"model": MODEL, "lrrID": "0a1b2c3d", "name": "Depot"})
    assert sent[0].lrrID == "0A1B2C3D" and MODEL["ID"] == sent[0].model.ID
    assert created.args[0].lrrID == "0A1B2C3D"
    assert vm.detail is not None and vm.detail.lrrID == "0A1B2C3D"  # shown at once
    assert vm.showing("i0A1B2C3D") and not vm.saving


def test_server_refusals_in_words() -> None:
    duplicate = refusal(409, "lrrID: a base station with lrrID 0A1B2C3D exists")
    assert create_refusal_words(duplicate, "x", FIELDS) == (
        "A base station with LRR ID 0A1B2C3D exists",
        "lrrID",
    )
    model = refusal(400, "model: unknown base station model NOPE")
    assert create_refusal_words(model, "x", FIELDS) == (
        "Unknown base station model NOPE",
        "model",
    )
    full = refusal(
        403, "totalBaseStationsGranted: the partner may have 12 base stations and has them all"
    )
    message, field = create_refusal_words(full, "x", FIELDS)
    assert field == "" and message.startswith(
        "Not created: the partner has used all the base stations it was granted"
    )
    assert "may have 12 base stations" in message
    offline = APIConnectionError("refused")
    assert create_refusal_words(offline, "Cannot reach the platform", FIELDS) == (
        "Cannot reach the platform",
        "",
    )


def _partner(used: int, granted: int | None, permissions: list[str]) -> Partner:
    return Partner.model_validate(
        {
            "partner": {"ID": "acme", "name": "Acme", "grantedPermissions": permissions},
            "totalBaseStationsUsed": used,
            "totalBaseStationsGranted": granted,
        }
    )


def test_partner_grant_and_permission_as_refusals(qloop: Any) -> None:
    vm = PartnerViewModel(TaskRunner())
    assert vm.create_refusal() == "" and vm.create_note() == ""  # not known: the server judges
    vm.partner = _partner(12, 12, ["x", "a"])
    assert vm.create_refusal() == (
        "No more base stations may be created: 12 of 12 granted base stations are used"
    )
    vm.partner = _partner(1200, 1000, ["x", "a"])  # the grant lowered below what is used
    assert "1,200 of 1,000 granted base stations are used" in vm.create_refusal()
    vm.partner = _partner(9, 12, ["x", "a"])
    assert vm.create_refusal() == ""
    assert vm.create_note() == "Acme may create 3 more base stations (9 of 12 granted are used)"
    vm.partner = _partner(11, 12, [])  # permissions not listed: the grant only
    assert vm.create_refusal() == ""
    assert "1 more base station (" in vm.create_note()
    vm.partner = _partner(3, None, ["x"])
    assert vm.create_refusal() == (
        "Your account may not create base stations: it lacks the network partner's write"
        " permission ('a')"
    )
    vm.partner = _partner(3, None, ["x", "a"])
    assert vm.create_note() == "Acme has 3 base stations (no limit)"


def test_rights_action(qloop: Any) -> None:
    rights = AccountRights(TaskRunner())
    assert rights.check("station.create").allowed  # the platform did not say
    rights.grants = Grants(permissions=frozenset({"x"}))
    verdict = rights.check("station.create")
    assert not verdict.allowed
    assert verdict.reason == (
        "Your account may not create base stations: it lacks the network partner's write"
        " permission ('a')"
    )


def test_form_fields_of_a_new_station() -> None:
    fields = {f.name: f for f in form_fields(BaseStationCreate)[0]}
    model = fields["model"]
    assert model.kind == "object" and model.required and model.label == "Base station model"
    ident = next(f for f in model.forms[0].fields if f.name == "ID")
    assert ident.reference == "stationModels" and ident.required
    assert fields["lrrID"].label == "LRR ID" and not fields["lrrID"].required
    assert "allocated by the network" in fields["lrrID"].tooltip
    # The RF probe is a yes or no, sent as {"enabled": ...}, read back as such.
    probe = fields["rfProbe"]
    assert probe.kind == "ref" and probe.yes_no
    assert value_of(probe, "true") == {"enabled": True}
    assert value_of(probe, "false") == {"enabled": False}

    class Station:
        rfProbe = RfProbeSetting(enabled=True)

    assert raw_of(probe, Station()) == "true"
    assert fields["rfHardwareConfig"].choice_words("S1_A2_B1") == "1 sector, 2 antennas, 1 board"
