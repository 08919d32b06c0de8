import pytest
from pydantic import ValidationError

from lpwa_console.schema.station_monitoring import Indicators, ServedDevices
from lpwa_console.schema.station_radio import AntennaUpdate, RfProbeUpdate, StationFrames


def test_antenna_update_accepts_what_was_read() -> None:
    read = {"index": 0, "name": "ANT0", "gain": 2.0, "cableLoss": 0.5, "rx1": {},
            "occContext": {"version": 1}, "altitudeAboveGround": 12, "type": "OMNI"}  # fmt: skip
    update = AntennaUpdate.model_validate(read)
    assert update.to_wire() == {"altitudeAboveGround": 12, "type": "OMNI"}


@pytest.mark.parametrize(
    ("field", "value"),
    [("altitudeAboveGround", 0), ("altitudeAboveGround", 301), ("azimuth", 361),
     ("horizontalHPBW", 10), ("latitude", 91), ("longitude", -181), ("cableDelay", 2000)],
)  # fmt: skip
def test_antenna_ranges_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValidationError, match=field):
        AntennaUpdate.model_validate({field: value})


def test_antenna_clear_values() -> None:
    update = AntennaUpdate.model_validate({"altitudeAboveGround": -1, "latitude": -999})
    assert update.altitudeAboveGround == -1 and update.latitude == -999


def test_rf_probe_and_frames() -> None:
    assert RfProbeUpdate(enabled=True).to_wire() == {"enabled": True}
    with pytest.raises(ValidationError):
        RfProbeUpdate.model_validate({"enabled": True, "mode": 1})
    frames = StationFrames.model_validate(
        {"now": 9, "briefs": [{"timestamp": 1, "up": {"count": 3}, "dw": {"count": 1}}]}
    )
    assert frames.series() == ([1], [3], [1])


def test_monitoring_shapes() -> None:
    inds = Indicators.model_validate({"recordedSince": 1, "inds": [{"ID": "urcv", "current": 7}]})
    assert inds.value("urcv") == 7 and inds.value("ucrc") is None
    served = ServedDevices.model_validate({"devices": [], "lrrs": [], "more": False, "count": 0})
    assert served.count == 0
