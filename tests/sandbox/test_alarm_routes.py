"""The alarm routes of devices and multicast groups come from one factory (add_owner_routes)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from lpwa_console.sandbox.routes import alarms
from lpwa_console.sandbox.routes.alarms import DEVICES, GROUPS, Owners, add_owner_routes
from lpwa_console.schema.alarms import AlarmPage, MulticastAlarmPage

from .conftest import API, Sandbox

GROUPS_PATH = f"{API}/subscriptions/mine/multicastGroups"


def _routes(router: APIRouter) -> dict[str, tuple[str, set[str]]]:
    return {r.name: (r.path, r.methods) for r in router.routes if isinstance(r, APIRoute)}


def test_both_owner_kinds_get_the_same_routes_under_their_old_names() -> None:
    app = FastAPI()
    alarms.router.add_to(app, "")
    routes = _routes(app.router)
    for owners, uid in ((DEVICES, "deviceUid"), (GROUPS, "multicastGroupUid")):
        base = f"/subscriptions/mine{owners.path}"
        noun = owners.noun
        assert routes[f"{noun}_alarms"] == (f"{base}/alarms", {"GET"})
        assert routes[f"ack_{noun}_alarms"] == (f"{base}/alarms/ack", {"POST"})
        assert routes[f"one_{noun}_alarms"] == (f"{base}/{{{uid}}}/alarms", {"GET"})
        assert routes[f"ack_one_{noun}_alarms"] == (f"{base}/{{{uid}}}/alarms/ack", {"POST"})
        assert routes[f"ack_one_{noun}_alarm"] == (
            f"{base}/{{{uid}}}/alarms/{{alarmUid}}/ack",
            {"POST"},
        )
    assert routes["device_alarm_histories"][0] == "/subscriptions/mine/devices/alarms/histories"
    assert len(routes) == 11


def test_add_owner_routes_names_the_path_parameter() -> None:
    def visible(conn: Any, account: Any, uid: str) -> int:
        return 1

    owners = Owners("M", "/things", "thingUid", visible, "thing", MulticastAlarmPage, "thing")
    router = APIRouter()
    add_owner_routes(router, owners)
    app = FastAPI()
    app.include_router(router)
    spec = app.openapi()
    one = spec["paths"]["/things/{thingUid}/alarms"]["get"]
    assert one["operationId"] == "one_thing_alarms_things__thingUid__alarms_get"
    assert [(p["name"], p["in"]) for p in one["parameters"] if p["in"] == "path"] == [
        ("thingUid", "path")
    ]
    ack = spec["paths"]["/things/{thingUid}/alarms/{alarmUid}/ack"]["post"]
    assert [p["name"] for p in ack["parameters"] if p["in"] == "path"] == ["thingUid", "alarmUid"]
    assert set(spec["paths"]) == {
        "/things/alarms",
        "/things/alarms/ack",
        "/things/{thingUid}/alarms",
        "/things/{thingUid}/alarms/ack",
        "/things/{thingUid}/alarms/{alarmUid}/ack",
    }


def test_ack_one_group_alarm(sb: Sandbox) -> None:
    page = MulticastAlarmPage.model_validate(sb.get(f"{GROUPS_PATH}/alarms").json())
    first, second = [a for a in page.briefs if not a.acked][:2]
    group = f"{GROUPS_PATH}/e{first.multicastGroup.EUI}"
    other = f"{GROUPS_PATH}/e{second.multicastGroup.EUI}"
    assert group != other
    # An alarm is acknowledged through its own group only, and once.
    assert sb.post(f"{other}/alarms/{first.alarmUid}/ack").status_code == 404
    assert sb.post(f"{group}/alarms/not-a-uid/ack").status_code == 404
    assert sb.post(f"{group}/alarms/{first.alarmUid}/ack", "subscriber-viewer").status_code == 403
    assert sb.post(f"{group}/alarms/{first.alarmUid}/ack").json() == {"count": 1}
    assert sb.post(f"{group}/alarms/{first.alarmUid}/ack").json() == {"count": 0}
    listed = AlarmPage.model_validate(sb.get(f"{group}/alarms").json())
    acked = next(a for a in listed.briefs if a.alarmUid == first.alarmUid)
    assert acked.acked and acked.ackedInfo
    assert sb.get(f"{GROUPS_PATH}/e{first.multicastGroup.EUI}").json()["alarmCount"] == 0
    missing = sb.post(f"{GROUPS_PATH}/e0000000000000000/alarms/{first.alarmUid}/ack")
    assert missing.status_code == 404


def test_group_alarms_carry_href_and_filter_eui_prefixes(sb: Sandbox) -> None:
    page = MulticastAlarmPage.model_validate(sb.get(f"{GROUPS_PATH}/alarms").json())
    assert page.briefs
    for alarm in page.briefs:
        group = sb.get(f"{GROUPS_PATH}/e{alarm.multicastGroup.EUI}").json()
        assert alarm.href == f"{group['href']}/alarms/{alarm.alarmUid}"
        assert 0 <= alarm.level <= 5
    eui = page.briefs[0].multicastGroup.EUI
    by_prefix = sb.get(f"{GROUPS_PATH}/alarms", params={"devEUI": eui[:-1].lower()}).json()
    assert by_prefix["briefs"] and all(
        a["multicastGroup"]["EUI"].startswith(eui[:-1]) for a in by_prefix["briefs"]
    )
    # One group's state=1 is its cleared alarms only.
    one = sb.get(f"{GROUPS_PATH}/e{eui}/alarms", params={"state": 1}).json()["briefs"]
    assert one and all(a["state"] == 1 for a in one)
