"""Dashboard wire shapes: KPI metadata, wildcard metrics and last values."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lpwa_console.schema.dashboard import Kpi, KpiLastValues, KpiMetric


def test_wildcard_metric_keys() -> None:
    metric = KpiMetric(name="uplinks.*", keyDimension="appServer")
    assert metric.wildcard and metric.stem == "uplinks"
    assert metric.matches("uplinks.as-1") and metric.element_of("uplinks.as-1") == "as-1"
    assert not metric.matches("uplinks.") and not metric.matches("downlinks.as-1")
    plain = KpiMetric(name="uplinks")
    assert not plain.wildcard and plain.matches("uplinks") and plain.element_of("uplinks") is None


def test_kpi_prefers_a_plain_metric_and_lists_dimensions() -> None:
    kpi = Kpi.model_validate(
        {
            "ID": "k",
            "name": "K",
            "metrics": [
                {"name": "a.*", "keyDimension": "partner"},
                {"name": "a.b"},
                {"name": "c.*", "keyDimension": "rfRegion"},
            ],
            "lastValues": {"durations": ["PT6H"]},
        }
    )
    assert kpi.metric_of("a.b") is kpi.metrics[1]
    assert kpi.metric_of("a.x") is kpi.metrics[0]
    assert kpi.metric_of("zzz") is None
    assert kpi.dimensions == ["partner", "rfRegion"]
    assert kpi.durations == ["PT6H"]


def test_last_values_durations_are_iso_and_mandatory() -> None:
    with pytest.raises(ValidationError):
        Kpi.model_validate({"ID": "k", "name": "K", "lastValues": {"durations": []}})
    with pytest.raises(ValidationError):
        Kpi.model_validate({"ID": "k", "name": "K", "lastValues": {"durations": ["soon"]}})
    assert Kpi.model_validate({"ID": "k", "name": "K"}).durations == []


def test_last_values_shape() -> None:
    values = KpiLastValues.model_validate(
        {"kpi": "k", "duration": "P1D", "since": 0, "until": 10,
         "series": [{"key": "a", "values": [{"timestamp": 10, "value": 1}]}]}
    )  # fmt: skip
    assert values.series[0].values[0].value == 1.0
