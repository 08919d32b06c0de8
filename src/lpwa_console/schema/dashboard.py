"""The operator's dashboard (Document 1 §2.9, §4.5): KPI metadata, a KPI's last values over a
window, and the elements of a dimension.

A KPI (`/operators/{operatorUid}/kpis/{kpiUid}`) names its metrics; each metric says how a
chart draws it (`colorId`, `lineStyle`) and, when its name ends with `.*`, which dimension
qualifies its keys (`keyDimension`): the metric `uplinks.*` with `keyDimension` `appServer`
has one series per application server (`uplinks.<appServer ID>`). `lastValues.durations`
lists the windows `.../lastValues?duration=` accepts (required when the KPI has last values).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from .common import ApiModel
from .durations import parse_duration

WILDCARD = ".*"
# The line styles a KPI metric may ask for; a chart draws an unknown one solid.
LineStyle = Literal["SOLID", "DASHED", "DOTTED", "DASH_DOT"]
LINE_STYLES: tuple[str, ...] = ("SOLID", "DASHED", "DOTTED", "DASH_DOT")
# The colour identifiers of the platform's palette, as metrics name them (`colorId`).
COLOR_IDS: tuple[str, ...] = (
    "blue", "orange", "green", "red", "purple", "brown", "pink", "grey", "olive", "cyan",
)  # fmt: skip
# The KPIs the console's dashboard shows, in order (the API has no list of KPIs).
DASHBOARD_KPIS: tuple[str, ...] = ("devices", "traffic", "alarms", "stations", "keyManager")


class KpiMetric(ApiModel):
    name: str
    label: str | None = None
    unit: str | None = None
    colorId: str | None = None  # colour identifier for graphs
    lineStyle: str | None = None  # SOLID, DASHED, DOTTED, DASH_DOT
    keyDimension: str | None = None  # the dimension qualifying a wildcard metric's keys

    @property
    def wildcard(self) -> bool:
        return self.name.endswith(WILDCARD)

    @property
    def stem(self) -> str:
        """`uplinks` for `uplinks.*`; the name itself for a plain metric."""
        return self.name[: -len(WILDCARD)] if self.wildcard else self.name

    def matches(self, key: str) -> bool:
        """Whether a series key (`uplinks.EU868`) is one of this metric's."""
        if self.wildcard:
            return key.startswith(self.stem + ".") and len(key) > len(self.stem) + 1
        return key == self.name

    def element_of(self, key: str) -> str | None:
        """The dimension element a wildcard key names (`EU868` for `uplinks.EU868`)."""
        return key[len(self.stem) + 1 :] if self.wildcard and self.matches(key) else None


class KpiLastValuesSupport(ApiModel):
    durations: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _iso_durations(self) -> KpiLastValuesSupport:
        for text in self.durations:
            parse_duration(text)  # ValueError: not an ISO 8601 duration
        return self


class Kpi(ApiModel):
    ID: str
    name: str
    description: str | None = None
    metrics: list[KpiMetric] = Field(default_factory=list)
    lastValues: KpiLastValuesSupport | None = None

    @property
    def durations(self) -> list[str]:
        return list(self.lastValues.durations) if self.lastValues else []

    def metric_of(self, key: str) -> KpiMetric | None:
        """The metric a series key belongs to (a plain metric before a wildcard one)."""
        plain = [m for m in self.metrics if not m.wildcard and m.matches(key)]
        return plain[0] if plain else next((m for m in self.metrics if m.matches(key)), None)

    @property
    def dimensions(self) -> list[str]:
        return sorted({m.keyDimension for m in self.metrics if m.keyDimension})


class KpiPoint(ApiModel):
    timestamp: int  # epoch ms
    value: float


class KpiSeries(ApiModel):
    key: str  # a metric name, or a wildcard metric's stem + "." + a dimension element
    values: list[KpiPoint] = Field(default_factory=list)


class KpiLastValues(ApiModel):
    kpi: str
    duration: str
    since: int  # epoch ms, the window's start
    until: int  # epoch ms, the window's end (the newest value's time)
    series: list[KpiSeries] = Field(default_factory=list)


class DimensionElement(ApiModel):
    ID: str
    name: str | None = None


class DimensionElements(ApiModel):
    dimension: str
    elements: list[DimensionElement] = Field(default_factory=list)
