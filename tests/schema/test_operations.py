"""The operator operations' shapes: queue items, filters, HSM group bodies."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lpwa_console.schema.operations import (
    PROV_TYPES,
    SUB_SYSTEMS,
    CommandQueueFilter,
    OperatorDevice,
    OperatorDeviceFilter,
    OperatorHsmGroup,
    OperatorHsmGroupCreate,
    OperatorHsmGroupUpdate,
    ProvisioningQueueFilter,
    ProvisioningQueueItem,
    prov_action_allowed,
)


def test_queue_item_keeps_unknown_fields_and_filters_check_values() -> None:
    item = ProvisioningQueueItem.model_validate(
        {"UID": "1", "type": "RF_REGION", "action": "CREATION", "subSystem": "LRC", "x": 1}
    )
    assert item.model_extra == {"x": 1}
    assert ProvisioningQueueFilter(subSystem="PGW").to_params() == [("subSystem", "PGW")]
    with pytest.raises(ValidationError):
        ProvisioningQueueFilter(subSystem="NOPE")  # type: ignore[arg-type]
    assert len(PROV_TYPES) == 12 and SUB_SYSTEMS == ("LRC", "SPR", "HSS_SPR", "PGW")
    with pytest.raises(ValidationError):
        CommandQueueFilter(lrrID="XYZ")


def test_actions_per_type() -> None:
    assert prov_action_allowed("DEVICE", "ACTIVATION")
    assert not prov_action_allowed("DEVICE", "CREATION")
    assert prov_action_allowed("DEVICE_PROFILE", "DELETION")
    assert not prov_action_allowed("HSM_GROUP", "DEACTIVATION")
    assert all(prov_action_allowed(t, "UPDATE") for t in PROV_TYPES)


def test_device_filter_and_item() -> None:
    assert OperatorDeviceFilter(imei="35999900000012", lorawanDebug=True).to_params() == [
        ("imei", "35999900000012"),
        ("lorawanDebug", "true"),
    ]
    assert OperatorDeviceFilter(imei="").to_params() == []
    with pytest.raises(ValidationError, match="14 or 15 digits"):
        OperatorDeviceFilter(imei="1234")
    device = OperatorDevice.model_validate({"UID": "1", "lorawanDebug": True})
    assert device.lorawanDebug and device.connectivity == "LORAWAN"


def test_hsm_group_bodies_accept_what_was_read() -> None:
    read = OperatorHsmGroup(UID="3", ID="g", name="G", subscriberID="100",
                            hsmNwkKeyVersion="g-nwk-v1", hsmAppKeyVersion="g-app-v1")  # fmt: skip
    update = OperatorHsmGroupUpdate.model_validate(read.model_dump(exclude_none=True))
    assert update.to_wire() == {"name": "G", "hsmNwkKeyVersion": "g-nwk-v1"}
    assert update.fixed_values() == {"ID": "g"}
    with pytest.raises(ValidationError):
        OperatorHsmGroupCreate(ID="bad id", name="x", subscriberID="100")
    with pytest.raises(ValidationError):
        OperatorHsmGroupUpdate.model_validate({"colour": "red"})
