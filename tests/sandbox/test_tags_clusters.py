from __future__ import annotations

from lpwa_console.schema.devices import MAX_CLUSTERS, DeviceClusters

from .conftest import API, DEVICES, Sandbox


def _euis(sb: Sandbox, n: int) -> list[str]:
    return [d["EUI"] for d in sb.get(DEVICES, params={"pageSize": n}).json()["briefs"][:n]]


def test_tag_and_untag(sb: Sandbox) -> None:
    euis = _euis(sb, 10)
    tagged = sb.post(
        f"{DEVICES}/tags", json={"name": "campaign-7", "action": "TAG", "devEUIs": euis}
    )
    assert tagged.status_code == 200, tagged.text
    assert tagged.json() == {"count": 10}
    found = {d["EUI"] for d in sb.all_devices(tag="campaign-7")}
    assert found == set(euis)
    again = sb.post(f"{DEVICES}/tags", json={"name": "campaign-7", "devEUIs": euis})
    assert again.json() == {"count": 0}  # already tagged: nothing changed
    untagged = sb.post(
        f"{DEVICES}/tags", json={"name": "campaign-7", "action": "UNTAG", "devEUIs": euis[:4]}
    )
    assert untagged.json() == {"count": 4}
    assert len(sb.all_devices(tag="campaign-7")) == 6


def test_untag_of_a_missing_tag_is_200(sb: Sandbox) -> None:
    euis = _euis(sb, 3)
    for name in ("never-existed", "water"):
        response = sb.post(
            f"{DEVICES}/tags", json={"name": name, "action": "UNTAG", "devEUIs": euis}
        )
        assert response.status_code == 200


def test_action_falls_back_to_the_query_parameter(sb: Sandbox) -> None:
    euis = _euis(sb, 2)
    sb.post(f"{DEVICES}/tags", json={"name": "q-tag", "devEUIs": euis})
    response = sb.post(
        f"{DEVICES}/tags", params={"action": "UNTAG"}, json={"name": "q-tag", "devEUIs": euis}
    )
    assert response.json() == {"count": 2}


def test_bad_tag_request_is_400(sb: Sandbox) -> None:
    response = sb.post(f"{DEVICES}/tags", json={"name": "ok", "devEUIs": []})
    assert response.status_code == 400
    assert response.json()["message"].startswith("devEUIs:")


def test_suggestions_prefix_case_insensitive_sorted(sb: Sandbox) -> None:
    sb.post(f"{DEVICES}/tags", json={"name": "Bridge", "devEUIs": _euis(sb, 1)})
    body = sb.get(f"{DEVICES}/tags/suggestions", params={"query": "b"}).json()
    names = [t["name"] for t in body["briefs"]]
    assert names and all(n.lower().startswith("b") for n in names)
    assert "Bridge" in names and "building-A" in names
    assert names == sorted(names, key=str.lower)
    many = [f"z-{i:02d}" for i in range(30)]
    for name in many:
        sb.post(f"{DEVICES}/tags", json={"name": name, "devEUIs": _euis(sb, 1)})
    assert len(sb.get(f"{DEVICES}/tags/suggestions", params={"query": "Z"}).json()["briefs"]) == 20


def test_suggestions_withheld_from_restricted_users_when_the_subscription_says_so(
    sb: Sandbox,
) -> None:
    path = f"{DEVICES}/tags/suggestions"
    assert sb.get(path, "subscriber-restricted", params={"query": "w"}).json()["briefs"]
    sb.put(f"{API}/subscriptions/mine", json={"showTagSuggestionsWhenDomainRestrictions": False})
    assert sb.get(path, "subscriber-restricted", params={"query": "w"}).json()["briefs"] == []
    assert sb.get(path, params={"query": "w"}).json()["briefs"]  # unrestricted: still there


def test_clusters(sb: Sandbox) -> None:
    box = {"minLat": 40.0, "minLon": -5.0, "maxLat": 53.0, "maxLon": 14.0}
    response = sb.get(f"{DEVICES}/clusters", params=box)
    assert response.status_code == 200, response.text
    clusters = DeviceClusters.model_validate(response.json())
    assert 1 <= len(clusters.clusters) <= MAX_CLUSTERS
    located = [d for d in sb.all_devices(**box)]
    assert clusters.count == len(located) == sum(c.count for c in clusters.clusters)
    for cluster in clusters.clusters:
        sw, ne = cluster.bbox.southwest, cluster.bbox.northeast
        assert sw.lat <= cluster.location.lat <= ne.lat
        assert sw.lng <= cluster.location.lng <= ne.lng


def test_small_clusters_carry_their_device(sb: Sandbox) -> None:
    one = sb.get(DEVICES).json()["briefs"][0]
    box = {
        "minLat": one["lat"] - 1e-4,
        "maxLat": one["lat"] + 1e-4,
        "minLon": one["lon"] - 1e-4,
        "maxLon": one["lon"] + 1e-4,
    }
    body = sb.get(f"{DEVICES}/clusters", params=box).json()
    singles = [c for c in body["clusters"] if c["count"] == 1]
    assert singles and all(c["item"]["EUI"] for c in singles)
    assert one["EUI"] in {c["item"]["EUI"] for c in singles}


def test_clusters_honour_filters_and_need_a_box(sb: Sandbox) -> None:
    box = {"minLat": 40.0, "minLon": -5.0, "maxLat": 53.0, "maxLon": 14.0}
    cellular = sb.get(f"{DEVICES}/clusters", params={**box, "connectivity": "CELLULAR"}).json()
    assert cellular["count"] == len(sb.all_devices(connectivity="CELLULAR", **box))
    missing = sb.get(f"{DEVICES}/clusters", params={"minLat": 1})
    assert missing.status_code == 400
    inverted = sb.get(f"{DEVICES}/clusters", params={**box, "minLat": 60})
    assert inverted.status_code == 400
