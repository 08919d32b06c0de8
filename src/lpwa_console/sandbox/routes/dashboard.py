"""The operator's dashboard (Document 1 §4.5), under `/operators/{operatorUid}`: a KPI's
metadata, its last values over one of the durations the metadata lists, and the elements
of a dimension that qualifies wildcard metrics.

Only the operator account reads them (OPERATOR::ADMIN). The sandbox has one operator:
`mine`, its UID 1 or `id:` + its ID. The values are computed from the simulated network
(store/kpis.py), never constants.
"""

from __future__ import annotations

from typing import Any

from ...schema.dashboard import DimensionElements, Kpi, KpiLastValues
from ...schema.durations import parse_duration
from ..auth import AppServices, ClientBodies, OperatorAccount
from ..errors import bad_request, not_found
from ..store import kpis as store
from ..store.clock import network_now
from ._partners import check_operator
from ._router import RecordedRouter

router = RecordedRouter(prefix="/operators/{operatorUid}", tags=["dashboard"],
                        dependencies=[ClientBodies])  # fmt: skip


def _kpi(operator_uid: str, kpi_uid: str) -> dict[str, Any]:
    check_operator(operator_uid)
    found = store.kpi(kpi_uid)
    if found is None:
        raise not_found(f"KPI {kpi_uid} not found (known: {', '.join(store.KPIS)})")
    return found


@router.get("/kpis/{kpiUid}", response_model=Kpi, response_model_exclude_none=True)
def get_kpi(operatorUid: str, kpiUid: str, account: OperatorAccount) -> dict[str, Any]:
    return _kpi(operatorUid, kpiUid)


@router.get(
    "/kpis/{kpiUid}/lastValues", response_model=KpiLastValues, response_model_exclude_none=True
)
def last_values(
    operatorUid: str,
    kpiUid: str,
    account: OperatorAccount,
    svc: AppServices,
    duration: str | None = None,
) -> dict[str, Any]:
    """The KPI's samples over the last `duration` (one of its `lastValues.durations`), each
    series ending with the value computed now."""
    meta = _kpi(operatorUid, kpiUid)
    listed = meta["lastValues"]["durations"]
    if not duration:
        raise bad_request(f"duration: required, one of {', '.join(listed)}")
    try:
        span = parse_duration(duration)
    except ValueError:
        raise bad_request(f"duration: {duration!r} is not an ISO 8601 duration") from None
    match = next((text for text in listed if parse_duration(text) == span), None)
    if match is None:
        raise bad_request(
            f"duration: KPI {kpiUid} keeps last values over {', '.join(listed)} only,"
            f" not {duration}"
        )
    conn = svc.db.conn()
    now = network_now(conn)
    since = now - int(span.total_seconds() * 1000)
    recorded = store.series(conn, kpiUid, since)
    for key, value in store.snapshot(conn, kpiUid, now).items():
        recorded.setdefault(key, []).append((now, value))
    order = {m["name"].removesuffix(".*"): i for i, m in enumerate(meta["metrics"])}
    keys = sorted(recorded, key=lambda k: (order.get(k, order.get(k.split(".")[0], 99)), k))
    return {
        "kpi": kpiUid,
        "duration": match,
        "since": since,
        "until": now,
        "series": [
            {"key": key, "values": [{"timestamp": t, "value": v} for t, v in recorded[key]]}
            for key in keys
        ],
    }


@router.get(
    "/dimensions/{keyDimension}/elements",
    response_model=DimensionElements,
    response_model_exclude_none=True,
)
def dimension_elements(
    operatorUid: str, keyDimension: str, account: OperatorAccount, svc: AppServices
) -> dict[str, Any]:
    check_operator(operatorUid)
    elements = store.dimension_elements(svc.db.conn(), keyDimension)
    if elements is None:
        raise not_found(
            f"dimension {keyDimension} not found (known: {', '.join(store.DIMENSIONS)})"
        )
    return {"dimension": keyDimension, "elements": elements}
