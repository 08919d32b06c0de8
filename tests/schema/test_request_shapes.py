"""Requests take what answers carry (the reference uses one shape to read and write): read-only
names are dropped, writable names the sandbox does not model are passed on, names fixed at
creation are kept aside for the server to compare, and every other name is refused."""

from __future__ import annotations

import warnings

import pytest
from pydantic import BaseModel, ValidationError

from lpwa_console.schema.app_servers import AppServer, AppServerCreate, AppServerUpdate
from lpwa_console.schema.common import (
    RequestModel,
    ResourceRequest,
    accepting_deprecated_fields,
)
from lpwa_console.schema.devices import Device, DeviceCreate, DeviceUpdate
from lpwa_console.schema.multicast import (
    MulticastGroup,
    MulticastGroupCreate,
    MulticastGroupUpdate,
)
from lpwa_console.schema.network import (
    AsTransportKey,
    AsTransportKeyUpdate,
    CellularNetworkContext,
    CellularNetworkContextUpdate,
)
from lpwa_console.schema.subscription import Subscription, SubscriptionUpdate

# The property names of the reference's schemas (device-manager 7.3, components/schemas,
# oneOf/allOf members included).
REFERENCE_DEVICE = {
    "EUI", "LRRs", "LastGeoRadius", "LastGeoTimestamp", "activation", "adminLat", "adminLon",
    "alarm004", "alarm1", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6", "appEUI", "appKey",
    "appKeyEncryptionMode", "appKeys", "appServers", "avgESP", "avgRSSI", "avgSNR",
    "classBState", "connectivity", "creationDate", "currentClass", "customerAdminData", "debug",
    "domains", "driverMetadata", "exchangeKeyVersion", "firstUpTimestamp", "healthState",
    "historyDwDaily", "historyMicroflowDaily", "historyUpDaily", "hsmAppKeyVersion",
    "hsmNwkKeyVersion", "imsi", "joinServer", "ki", "lastBatChangeBy", "lastBatChanged",
    "lastBatLevel", "lastBatLevelTimestamp", "lastCellID", "lastCellMCCMNC",
    "lastCellTrackingAreaNumber", "lastDwTimestamp", "lastESP", "lastGeoLat", "lastGeoLon",
    "lastInstantPER", "lastMeanPER", "lastMicroflowTimestamp", "lastNbTrans", "lastRAT",
    "lastRSSI", "lastSF", "lastSNR", "lastServingNetworkMCCMNC", "lastTxPower",
    "lastUpTimestamp", "locationType", "markerID", "model", "motionIndicator", "name",
    "networkSubscription", "now", "nwAddress", "nwKey", "nwkKey", "nwkSEncKey", "occContext",
    "ownerToken", "payloadEncryption", "pingSlotPeriod", "sNwkSIntKey", "suspension", "vendor",
    "verificationCode",
}  # fmt: skip
REFERENCE_APP_SERVER = {
    "ID", "baseStationCount", "contentType", "customHttpHeaders", "description", "destinations",
    "deviceCount", "domains", "downlinkSecurity", "flowMatcherTags", "healthState",
    "multicastGroupCount", "name", "notification", "occContext", "state", "tpxIotFlow", "type",
    "validationState",
}  # fmt: skip
REFERENCE_MULTICAST_GROUP = {
    "EUI", "alarm1", "alarm2", "alarm3", "alarm4", "alarm5", "alarm6", "appKeys", "appServers",
    "bss", "class", "creationDate", "customerAdminData", "domains", "downlinkDataRate",
    "downlinkFrequency", "firstDwTimestamp", "historyDwDaily", "lastDwTimestamp", "lastFCntDn",
    "name", "networkSubscription", "now", "nwAddress", "nwKey", "nwkSEncKey", "occContext",
    "pingSlotPeriod", "sNwkSIntKey", "verificationCode",
}  # fmt: skip
REFERENCE_SUBSCRIPTION = {
    "alarmStateNotifications", "baseStationTagsNamespace", "creationTimestamp",
    "defaultIsmBand", "defaultIsmBands", "installationID", "networkSubscriptionsHandling",
    "nonRoamingDevicesNetID", "nsID", "occContext", "operator", "options",
    "roamingDevicesNetID", "segregationID", "state", "subscriber", "twaExchangeKeyVersion",
}  # fmt: skip

# Names the reference forbids at creation (x-createForbidden) or in this request: refused.
NOT_AT_CREATION = {"appServersRoutingProfile"}


def _accepted(model: type[RequestModel]) -> set[str]:
    wire = {info.alias or name for name, info in model.model_fields.items()}
    return wire | model.read_only_fields | model.not_modelled_fields | model.fixed_fields


def _answer_names(model: type[BaseModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


@pytest.mark.parametrize(
    ("request_model", "reference", "answer"),
    [
        (DeviceCreate, REFERENCE_DEVICE, Device),
        (DeviceUpdate, REFERENCE_DEVICE, Device),
        (AppServerCreate, REFERENCE_APP_SERVER, AppServer),
        (AppServerUpdate, REFERENCE_APP_SERVER, AppServer),
        (MulticastGroupCreate, REFERENCE_MULTICAST_GROUP, MulticastGroup),
        (MulticastGroupUpdate, REFERENCE_MULTICAST_GROUP, MulticastGroup),
        (SubscriptionUpdate, REFERENCE_SUBSCRIPTION, Subscription),
        (CellularNetworkContextUpdate, set(), CellularNetworkContext),
        (AsTransportKeyUpdate, set(), AsTransportKey),
    ],
)
def test_every_reference_and_answer_name_is_accepted(
    request_model: type[RequestModel], reference: set[str], answer: type[BaseModel]
) -> None:
    expected = reference | _answer_names(answer)
    if request_model in (DeviceCreate,):
        expected -= NOT_AT_CREATION
    assert expected - _accepted(request_model) == set()


def test_read_only_names_are_dropped_and_others_refused() -> None:
    update = DeviceUpdate.model_validate(
        {"name": "n", "alarm3": 2, "vendor": {"logo": "/x"}, "tags": [{"name": "t", "href": "/h"}]}
    )
    assert update.to_wire() == {"name": "n", "tags": [{"name": "t"}]}
    with pytest.raises(ValidationError) as info:
        DeviceUpdate.model_validate({"name": "n", "alarm7": 1})
    assert [e["loc"] for e in info.value.errors()] == [("alarm7",)]
    assert info.value.errors()[0]["type"] == "extra_forbidden"


def test_not_modelled_names_are_passed_on_unchanged() -> None:
    """A real platform applies them: the client sends them as given."""
    network = {"ID": "ns-1", "nwGeolocalization": True, "prAllowed": False}
    create = DeviceCreate.model_validate(
        {"EUI": "000000000522D8EB", "appKey": "8D67B0D6359D11ACFC45AD4BB9CE2D4F",
         "networkSubscription": network, "exchangeKeyVersion": "2"}
    )  # fmt: skip
    assert create.not_modelled() == {"networkSubscription": network, "exchangeKeyVersion": "2"}
    wire = create.to_wire()
    assert wire["networkSubscription"] == network and wire["exchangeKeyVersion"] == "2"
    assert "networkSubscription" not in type(create).model_fields  # never a typed field


def test_the_reference_examples_validate() -> None:
    """The values of the reference's POST examples (device-manager 7.3)."""
    otaa = DeviceCreate.model_validate(
        {
            "EUI": "000000000522D8EB",
            "activation": "OTAA",
            "appKey": "8D67B0D6359D11ACFC45AD4BB9CE2D4F",
            "appServers": [{"ID": "TWA_199906997.1972.AS"}],
            "model": {"ID": "LORA/GenericA.1.0.4a_ETSI"},
            "name": "My LoRaWAN OTAA device",
            "networkSubscription": {"nwGeolocalization": True, "prAllowed": False},
        }
    )
    assert otaa.activation == "OTAA" and "networkSubscription" in otaa.to_wire()
    xml = '<AppSKeys><AppSKey Port="*">8D67B0D6359D11ACFC45AD4BB9CE2D4F</AppSKey></AppSKeys>'
    with accepting_deprecated_fields():  # appKeys is deprecated: no warning for a server
        abp = DeviceCreate.model_validate(
            {
                "EUI": "000000000522D8EB",
                "activation": "ABP",
                "appKeys": xml,
                "appServers": [{"ID": "TWA_199906997.1972.AS"}],
                "model": {"ID": "LORA/GenericA.1.0.4a_ETSI"},
                "name": "My LoRaWAN ABP device",
                "nwAddress": "0070C5BB",
                "nwKey": "46DFD544535CC01B6B1EE7DFED8910FD",
                "networkSubscription": {"nwGeolocalization": True, "prAllowed": False},
            }
        )
    assert abp.effective_app_skey() == "8D67B0D6359D11ACFC45AD4BB9CE2D4F"
    assert abp.not_modelled()["nwKey"] == "46DFD544535CC01B6B1EE7DFED8910FD"
    server = AppServerCreate.model_validate(
        {
            "contentType": "json",
            "destinations": [
                {"addresses": ["https://www.example.com/myApp"], "ports": "*",
                 "strategy": "SEQUENTIAL"}
            ],
            "downlinkSecurity": {
                "downlinkAsKey": "C72C6F867B150B1210ACDA5F3CDFB449",
                "maxTimestampDeviation": 10,
                "status": "DOWNLINK_AS_KEY",
            },
            "name": "My HTTP LoRaWAN app server",
        }
    )  # fmt: skip
    assert server.name == "My HTTP LoRaWAN app server"


def test_an_answer_validates_as_its_update() -> None:
    """The commonest script: read, change one field, send it all back."""
    device = Device.model_validate(
        {
            "EUI": "70B3D5E75E000001", "name": "meter", "ref": "7", "href": "/d/7",
            "healthState": "ACTIVE", "alarm3": 1, "alarmCount": 1, "now": 1,
            "tags": [{"name": "water", "href": "/d/7/tags/1"}],
            "appServers": [{"ID": "as-1", "name": "AS", "href": "/appServers/1"}],
            "model": {"ID": "m", "commercialName": "M", "connectivity": "LORAWAN"},
            "asTransportKey": {"ID": "k", "name": "K"},
            "appServersRoutingProfile": {"ID": "rp", "name": "RP",
                                         "lorawanAsTransportKey": {"ID": "k", "name": "K"}},
            "alarmsConfiguration": {"alarm004": [{"status": "ENABLE", "level": 3,
                                                  "duration": "P2D"}]},
        }
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing deprecated is set by an answer sent back
        update = DeviceUpdate.model_validate(device.model_dump(exclude_none=True) | {"name": "x"})
    assert update.name == "x" and update.fixed_values()["EUI"] == "70B3D5E75E000001"
    wire = update.to_wire()
    assert wire["appServers"] == [{"ID": "as-1"}] and wire["asTransportKey"] == {"ID": "k"}
    assert "EUI" not in wire and "alarm3" not in wire and "model" in wire  # model: passed on


def test_a_model_cannot_declare_a_name_it_models() -> None:
    with pytest.raises(TypeError, match="declared and modelled: name"):

        class Broken(RequestModel):  # pyright: ignore[reportUnusedClass]
            read_only_fields = frozenset({"name"})
            name: str


def test_only_a_resource_request_keeps_values_aside() -> None:
    """Nested models (references, tags) only drop names: what is kept aside belongs to the
    body of a create or an update."""
    with pytest.raises(TypeError, match="only a ResourceRequest"):

        class Nested(RequestModel):  # pyright: ignore[reportUnusedClass]
            not_modelled_fields = frozenset({"colour"})
            name: str

    class Body(ResourceRequest):
        fixed_fields = frozenset({"ID"})
        name: str | None = None

    assert Body.model_validate({"ID": "a", "name": "n"}).fixed_values() == {"ID": "a"}
    assert Body(name="n").fixed_values() == {} and Body(name="n").not_modelled() == {}
