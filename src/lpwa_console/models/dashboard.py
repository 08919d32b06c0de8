"""The operator's dashboard: the KPIs' metadata, their last values over one period for the
whole page (each KPI over that period, or the nearest one its metadata lists), the headline
figures with their trend over the period, refreshed on a timer, and the series a user hides
or shows.

A refresh fetches every KPI's last values in one background task (never two at once) and
then hands each chart plain lists: the pane's work on the UI thread is a `setData` per
series. Only the operator account reads KPIs; any other gets `denied` with a sentence
saying so.
"""

from __future__ import annotations

import asyncio
import csv
import io
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from ..api import LpwaClient, PermissionDeniedError
from ..schema.dashboard import DASHBOARD_KPIS, Kpi, KpiLastValues, KpiMetric
from ..schema.durations import parse_duration
from .errors import user_message
from .tasks import TaskRunner

# The platform's colour identifiers as chart colours; an unknown one gets the next spare.
COLOURS = {
    "blue": "#1f77b4", "orange": "#ff7f0e", "green": "#2ca02c", "red": "#d62728",
    "purple": "#9467bd", "brown": "#8c564b", "pink": "#e377c2", "grey": "#7f7f7f",
    "gray": "#7f7f7f", "olive": "#bcbd22", "cyan": "#17becf",
}  # fmt: skip
SPARE_COLOURS = ("#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d")
DEFAULT_REFRESH_S = 30
OPERATOR_ONLY = (
    "Key performance indicators are the operator's: sign in with the operator account"
    " (in the sandbox, “Demo Operator”) to see the dashboard."
)
DURATION_WORDS = {"PT1H": "Last hour", "PT6H": "Last 6 hours", "PT12H": "Last 12 hours",
                  "P1D": "Last day", "P3D": "Last 3 days", "P7D": "Last week",
                  "P1W": "Last week", "P30D": "Last 30 days"}  # fmt: skip


PERIODS = ("PT6H", "P1D", "P3D")  # the page's period picker
DEFAULT_PERIOD = "P1D"


@dataclass(frozen=True)
class HeadlineSpec:
    """A headline figure: the sum of these series' newest values of one KPI."""

    key: str
    title: str
    kpi: str
    series: tuple[str, ...]
    unit: str  # '' for a count, '%' for a share
    good_up: bool  # whether a rise is good news (said in the trend's colour)


HEADLINES = (
    HeadlineSpec("devicesActive", "Devices active", "devices", ("active",), "", True),
    HeadlineSpec("stationsConnected", "Stations connected", "stations", ("availability",), "%",
                 True),
    HeadlineSpec("alarmsOpen", "Alarms open", "alarms",
                 ("critical", "major", "minor", "warning", "indeterminate"), "", False),
    HeadlineSpec("uplinksPerHour", "Uplinks per hour", "traffic", ("uplinks",), "", True),
)  # fmt: skip


@dataclass(frozen=True)
class Headline:
    key: str
    title: str
    value: str  # "1,234", "94.2 %", "—" when not known
    trend: str  # "▲ 12 over the last day", "no change over the last day", ''
    direction: int  # 1 up, -1 down, 0 flat or unknown
    good: bool | None  # the change is good news, bad news, or neither (None)


def period_of(kpi: Kpi, period: str) -> str:
    """The KPI's own duration for the page's period: the same, or the nearest it lists."""
    if not kpi.durations or period in kpi.durations:
        return period if kpi.durations else ""
    wanted = parse_duration(period)
    return min(kpi.durations, key=lambda d: abs(parse_duration(d) - wanted))


def duration_words(text: str) -> str:
    """`Last 6 hours` for PT6H; other durations in hours or days."""
    if text in DURATION_WORDS:
        return DURATION_WORDS[text]
    try:
        seconds = int(parse_duration(text).total_seconds())
    except ValueError:
        return text
    if seconds % 86400 == 0:
        return f"Last {seconds // 86400} days"
    if seconds % 3600 == 0:
        return f"Last {seconds // 3600} hours"
    return f"Last {seconds // 60} minutes"


def colour_of(metric: KpiMetric | None, index: int) -> str:
    """A metric's chart colour from its `colorId` (a `#rrggbb` is taken as it is)."""
    colour_id = (metric.colorId or "") if metric else ""
    if colour_id.startswith("#") and len(colour_id) in (4, 7):
        return colour_id
    return COLOURS.get(colour_id.lower(), SPARE_COLOURS[index % len(SPARE_COLOURS)])


@dataclass
class Series:
    """One line of a chart."""

    key: str
    label: str
    colour: str
    line_style: str  # SOLID, DASHED, DOTTED, DASH_DOT
    unit: str
    times_s: list[float] = field(default_factory=list)  # epoch seconds
    values: list[float] = field(default_factory=list)
    element: str | None = None  # the dimension element of a wildcard metric's key
    visible: bool = True


class DashboardViewModel(QObject):
    kpis_changed = Signal()  # the metadata arrived (or was cleared)
    values_changed = Signal(str)  # a KPI's series are new
    visibility_changed = Signal(str, str, bool)  # kpi, key, visible
    state_changed = Signal()  # loading, denied, error or ready
    error = Signal(str)

    def __init__(
        self,
        runner: TaskRunner,
        client: LpwaClient | None = None,
        parent: QObject | None = None,
        *,
        kpi_uids: tuple[str, ...] = DASHBOARD_KPIS,
        refresh_s: int = DEFAULT_REFRESH_S,
    ) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client: LpwaClient | None = None
        self.kpi_uids = kpi_uids
        self.kpis: list[Kpi] = []
        self.durations: dict[str, str] = {}
        self.period = DEFAULT_PERIOD  # the page's; each KPI's nearest is in `durations`
        self.answered: dict[str, str] = {}  # the duration of each KPI's values shown
        self.series: dict[str, list[Series]] = {}
        self.updated_ms: dict[str, int] = {}
        self.hidden: dict[str, set[str]] = {}
        self.element_names: dict[str, dict[str, str]] = {}  # dimension -> ID -> name
        self.denied: str | None = None
        self.failure: str | None = None
        self.loading = False
        self.refreshes = 0
        self.fetched_at: float | None = None  # monotonic time of the last refresh's answer
        self._meta_task: int | None = None
        self._refresh_task: int | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(refresh_s * 1000)
        self.timer.timeout.connect(self.refresh)
        self.wants_auto = True  # the user's choice
        self.active = True  # the pane is shown (a hidden pane's charts need no refresh)
        if client is not None:
            self.set_client(client)

    # --- the connection ---------------------------------------------------------------------

    @property
    def has_client(self) -> bool:
        return self.client is not None

    @property
    def refreshing(self) -> bool:
        return self._refresh_task is not None

    def set_client(self, client: LpwaClient | None) -> None:
        for task in (self._meta_task, self._refresh_task):
            if task is not None:
                self.runner.cancel(task)
        self._meta_task = self._refresh_task = None
        self.client = client
        self.kpis, self.series, self.updated_ms, self.answered = [], {}, {}, {}
        self.element_names = {}
        self.denied = self.failure = None
        self.loading = client is not None
        self.kpis_changed.emit()
        self.state_changed.emit()
        if client is None:
            self.timer.stop()
            return
        self._meta_task = self.runner.run(
            "Dashboard KPIs", self._load_metadata(client), on_done=self._metadata_done,
            on_error=self._metadata_failed, quiet=True,
        )  # fmt: skip

    async def _load_metadata(
        self, client: LpwaClient
    ) -> tuple[list[Kpi], dict[str, dict[str, str]]]:
        found_kpis = await asyncio.gather(
            *(client.dashboard.kpi(u) for u in self.kpi_uids), return_exceptions=True
        )
        errors = [k for k in found_kpis if isinstance(k, BaseException)]
        kpis = [k for k in found_kpis if isinstance(k, Kpi)]
        denied = next((e for e in errors if isinstance(e, PermissionDeniedError)), None)
        if denied is not None or (errors and not kpis):
            raise denied or errors[0]  # one unknown KPI leaves the others shown
        dimensions = sorted({d for kpi in kpis for d in kpi.dimensions})
        found = await asyncio.gather(*(client.dashboard.dimension_elements(d) for d in dimensions))
        names = {e.dimension: {x.ID: x.name or x.ID for x in e.elements} for e in found}
        return kpis, names

    def _metadata_done(self, result: tuple[list[Kpi], dict[str, dict[str, str]]]) -> None:
        self._meta_task = None
        self.kpis, self.element_names = result
        for kpi in self.kpis:
            self.durations[kpi.ID] = period_of(kpi, self.period) or default_duration(kpi)
        self.loading = False
        self.kpis_changed.emit()
        self.state_changed.emit()
        self.refresh()
        self._sync_timer()

    def _metadata_failed(self, exc: BaseException, message: str) -> None:
        self._meta_task = None
        self.loading = False
        if isinstance(exc, PermissionDeniedError):
            self.denied = OPERATOR_ONLY
        else:
            self.failure = message
            self.error.emit(message)
        self.state_changed.emit()

    # --- durations and refresh --------------------------------------------------------------

    def kpi(self, uid: str) -> Kpi | None:
        return next((k for k in self.kpis if uid == k.ID), None)

    def set_period(self, period: str) -> None:
        """One period for the whole page: each KPI over it, or over the nearest it keeps."""
        self.period = period
        changed = []
        for kpi in self.kpis:
            duration = period_of(kpi, period) or default_duration(kpi)
            if self.durations.get(kpi.ID) != duration:
                self.durations[kpi.ID] = duration
                changed.append(kpi.ID)
        if changed:
            self.refresh(changed)
        self.state_changed.emit()

    def period_note(self, uid: str) -> str:
        """Why a chart shows another period than the page's ('' when it is the same)."""
        duration = self.durations.get(uid, "")
        if not duration or duration == self.period:
            return ""
        return (
            f"{duration_words(duration)}: this indicator has no"
            f" {duration_words(self.period).removeprefix('Last ').lower()} view"
        )

    def headlines(self) -> list[Headline]:
        """The page's headline figures: the newest value and its change over the period."""
        return [self._headline(spec) for spec in HEADLINES]

    def _headline(self, spec: HeadlineSpec) -> Headline:
        by_key = {s.key: s for s in self.series.get(spec.kpi, [])}
        found = [by_key[k] for k in spec.series if k in by_key and by_key[k].values]
        if not found:
            return Headline(spec.key, spec.title, "—", "", 0, None)
        newest = sum(s.values[-1] for s in found)
        oldest = sum(s.values[0] for s in found)

        def figure(v: float) -> str:  # a share to a tenth, a count whole
            return f"{v:,.1f}" if spec.unit == "%" else f"{round(v):,}"

        unit = f" {spec.unit}" if spec.unit else ""
        value = f"{figure(newest)}{unit}"
        # The period of the values read (a new period's answer may not be there yet).
        period = duration_words(self.answered.get(spec.kpi) or self.period).lower()
        delta = newest - oldest
        if abs(delta) < 1e-9:
            return Headline(spec.key, spec.title, value, f"no change over the {period}", 0, None)
        arrow = "▲" if delta > 0 else "▼"
        points = " points" if spec.unit == "%" else ""
        direction = 1 if delta > 0 else -1
        trend = f"{arrow} {figure(abs(delta))}{points} over the {period}"
        return Headline(spec.key, spec.title, value, trend, direction, (delta > 0) == spec.good_up)

    def set_duration(self, uid: str, duration: str) -> bool:
        """Pick one of the KPI's durations and fetch its values; False for another."""
        kpi = self.kpi(uid)
        if kpi is None or duration not in kpi.durations:
            return False
        if self.durations.get(uid) != duration:
            self.durations[uid] = duration
            self.refresh([uid])
        return True

    def set_auto_refresh(self, on: bool, seconds: int | None = None) -> None:
        """Refresh every `seconds` (the interval so far by default) while the pane shows."""
        if seconds is not None:
            self.timer.setInterval(max(1, seconds) * 1000)
        self.wants_auto = on
        self._sync_timer()

    def set_active(self, active: bool) -> None:
        """The pane shown or hidden: the timer runs only while it shows, and values older
        than one interval are fetched again when it shows."""
        self.active = active
        self._sync_timer()
        stale = self.fetched_at is not None and (
            (time.monotonic() - self.fetched_at) * 1000 > self.timer.interval()
        )
        if active and self.kpis and self.wants_auto and stale:
            self.refresh()

    def _sync_timer(self) -> None:
        if self.wants_auto and self.active and self.kpis and not self.denied:
            if not self.timer.isActive():
                self.timer.start()
        else:
            self.timer.stop()

    @property
    def auto_refresh(self) -> bool:
        return self.timer.isActive()

    def refresh(self, uids: list[str] | None = None) -> bool:
        """Fetch the last values of these KPIs (all by default) in the background; False
        when a refresh is under way already (the timer never stacks them) or nothing to do."""
        client = self.client
        if client is None or not self.kpis:
            return False
        if self._refresh_task is not None:
            if uids is None:
                return False
            # A new duration: the refresh under way is cancelled and made again, with it.
            self.runner.cancel(self._refresh_task)
            self._refresh_task = None
            uids = None
        wanted = [k.ID for k in self.kpis if k.durations and (uids is None or k.ID in uids)]
        if not wanted:
            return False
        pairs = [(uid, self.durations[uid]) for uid in wanted]

        async def fetch() -> list[KpiLastValues | BaseException]:
            calls = (client.dashboard.last_values(uid, d) for uid, d in pairs)
            return list(await asyncio.gather(*calls, return_exceptions=True))

        self._refresh_task = self.runner.run(
            "Dashboard refresh", fetch(), on_done=self._refresh_done,
            on_error=self._refresh_failed, quiet=True,
        )  # fmt: skip
        self.state_changed.emit()
        return True

    def _refresh_done(self, answers: list[KpiLastValues | BaseException]) -> None:
        self._refresh_task = None
        self.refreshes += 1
        self.fetched_at = time.monotonic()
        failures = [a for a in answers if isinstance(a, BaseException)]
        for answer in answers:
            if isinstance(answer, KpiLastValues):
                self.set_values(answer)
        if failures:
            if any(isinstance(f, PermissionDeniedError) for f in failures):
                self.denied = OPERATOR_ONLY
                self._sync_timer()
            self.failure = user_message(failures[0])
            self.error.emit(self.failure)
        else:
            self.failure = None
        self.state_changed.emit()

    def _refresh_failed(self, _exc: BaseException, message: str) -> None:
        self._refresh_task = None
        self.failure = message
        self.error.emit(message)
        self.state_changed.emit()

    # --- series -----------------------------------------------------------------------------

    def set_values(self, answer: KpiLastValues) -> None:
        """Turn an answer into the KPI's chart series (labels, colours, styles)."""
        kpi = self.kpi(answer.kpi)
        if kpi is None:
            return
        hidden = self.hidden.setdefault(kpi.ID, set())
        order = {m.name: i for i, m in enumerate(kpi.metrics)}
        out: list[Series] = []
        wildcard_seen: dict[str, int] = {}
        for raw in answer.series:
            metric = kpi.metric_of(raw.key)
            index = order.get(metric.name, len(order)) if metric else len(order)
            colour = colour_of(metric, index)
            element = metric.element_of(raw.key) if metric else None
            label = (metric.label or metric.stem) if metric else raw.key
            if metric is not None and element is not None:
                nth = wildcard_seen.get(metric.name, 0)
                wildcard_seen[metric.name] = nth + 1
                names = self.element_names.get(metric.keyDimension or "", {})
                label = f"{names.get(element, element)} ({label})"  # the element first
                if nth:  # each element its own shade: the metric's colour, then spares
                    colour = SPARE_COLOURS[(index + nth) % len(SPARE_COLOURS)]
            out.append(
                Series(
                    key=raw.key,
                    label=label,
                    colour=colour,
                    line_style=(metric.lineStyle or "SOLID").upper() if metric else "SOLID",
                    unit=(metric.unit or "") if metric else "",
                    times_s=[p.timestamp / 1000.0 for p in raw.values],
                    values=[p.value for p in raw.values],
                    element=element,
                    visible=raw.key not in hidden,
                )
            )
        self.series[kpi.ID] = out
        self.answered[kpi.ID] = answer.duration
        self.updated_ms[kpi.ID] = answer.until
        self.values_changed.emit(kpi.ID)

    def set_visible(self, uid: str, key: str, visible: bool) -> None:
        hidden = self.hidden.setdefault(uid, set())
        (hidden.discard if visible else hidden.add)(key)
        for series in self.series.get(uid, []):
            if series.key == key and series.visible != visible:
                series.visible = visible
                self.visibility_changed.emit(uid, key, visible)

    def value_text(self, uid: str, seconds: float) -> str | None:
        """The hover text at a time: the sample nearest `seconds` of each visible series,
        None outside the data."""
        shown = [s for s in self.series.get(uid, []) if s.visible and s.times_s]
        if not shown:
            return None
        first = min(s.times_s[0] for s in shown)
        last = max(s.times_s[-1] for s in shown)
        if not first <= seconds <= last:
            return None
        parts: list[str] = []
        when = seconds
        for series in shown:
            i = _nearest(series.times_s, seconds)
            when = series.times_s[i] if series is shown[0] else when
            unit = f" {series.unit}" if series.unit and series.unit != "%" else series.unit
            parts.append(f"{series.label} {_number(series.values[i])}{unit}")
        stamp = datetime.fromtimestamp(when).strftime("%d %b %H:%M")
        return f"{stamp}  ·  " + "  ·  ".join(parts)

    # --- export -----------------------------------------------------------------------------

    def csv_text(self, uid: str, *, visible_only: bool = False) -> str:
        """The KPI's values, one row per sample: time (UTC, ISO 8601), series, value."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["time", "series", "key", "value", "unit"])
        for series in self.series.get(uid, []):
            if visible_only and not series.visible:
                continue
            for t, v in zip(series.times_s, series.values, strict=True):
                stamp = datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")
                # A plain number (no thousands separator): spreadsheets read it as one.
                writer.writerow([stamp, series.label, series.key, plain_number(v), series.unit])
        return out.getvalue()

    def export_csv(self, uid: str, path: Path | str) -> int:
        """Write the KPI's values as CSV; returns the rows written."""
        text = self.csv_text(uid)
        Path(path).write_text(text, encoding="utf-8")
        return text.count("\n") - 1


def default_duration(kpi: Kpi) -> str:
    """A day when the KPI offers it, else its shortest duration."""
    if "P1D" in kpi.durations:
        return "P1D"
    return min(kpi.durations, key=lambda d: parse_duration(d), default="")


def _nearest(times: list[float], t: float) -> int:
    import bisect

    i = bisect.bisect_left(times, t)
    if i == 0:
        return 0
    if i >= len(times):
        return len(times) - 1
    return i if times[i] - t < t - times[i - 1] else i - 1


def plain_number(value: float) -> str:
    """1800, 93.5: what a spreadsheet reads as a number in any locale's CSV import."""
    number = float(value)
    if number.is_integer():
        return str(int(number))
    return f"{number:.6f}".rstrip("0").rstrip(".")


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
