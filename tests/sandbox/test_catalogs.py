"""The operator's catalogs over HTTP (Document 2 §4.1): profiles with `source`,
`language-tag` and `loraProfileID`; creation with `CUSTOM/`; the LoRaWAN rules; base-station
profiles and LRR versions; vendors and RF regions with their texts and a logo; catalog
versions, import and selfUpdate with `force`; one catalog for the operator and the
subscriber."""

from __future__ import annotations

import gzip
import json
from typing import Any

from ..images import png
from .conftest import API, Sandbox

OP = f"{API}/admins/operators/mine"
PNG = png()


def _op(sb: Sandbox, method: str, path: str, **kw: Any) -> Any:
    if method == "delete":
        return sb.client.delete(OP + path, headers=sb.headers("operator"))
    return getattr(sb, method)(OP + path, "operator", **kw)


def test_operator_identifiers_and_rights(sb: Sandbox) -> None:
    assert _op(sb, "get", "").json()["defaultLanguage"] == "en"
    for ident in ("mine", "1", "id:demo-operator"):
        assert (
            sb.get(f"{API}/admins/operators/{ident}/deviceProfiles", "operator").status_code == 200
        )
    assert sb.get(f"{API}/admins/operators/2/deviceProfiles", "operator").status_code == 404
    assert sb.get(f"{OP}/deviceProfiles").status_code == 403  # a subscriber


def test_profiles_source_language_and_lora_id(sb: Sandbox) -> None:
    page = _op(sb, "get", "/deviceProfiles", params={"pageSize": 1000}).json()
    assert page["catalogVersion"] == "2026.10" and page["languageTag"] == "en"
    assert page["count"] == len(page["briefs"]) > 10
    assert {p["source"] for p in page["briefs"]} == {"CATALOG"}
    custom = _op(sb, "get", "/deviceProfiles", params={"source": "CUSTOM"}).json()
    assert custom["briefs"] == [] and custom["count"] == 0
    fr = _op(
        sb, "get", "/deviceProfiles", params={"language-tag": "fr-FR", "pageSize": 1000}
    ).json()
    assert fr["languageTag"] == "fr"
    names = {p["ID"]: p for p in fr["briefs"]}
    assert names["LORA/GenericA.1.1a_ETSI"]["commercialName"] == "LoRaWAN 1.1 - classe A"
    assert names["LORA/GenericA.1.1a_ETSI"]["vendor"]["commercialName"] == "Générique"
    # the demo catalog is complete in its languages (issue 20: "classe A" beside "class A");
    # an item without a text of the language reads in the default one (BENCH/p1 below)
    assert names["LORA/GenericA.1.0.2a_ETSI"]["commercialName"] == "LoRaWAN 1.0.2 - classe A"
    demo = [p for p in fr["briefs"] if p["source"] == "CATALOG"]
    assert demo and {p["languageTag"] for p in demo} == {"fr"}
    # a language the operator has not: the default one
    ja = _op(sb, "get", "/deviceProfiles", params={"language-tag": "ja"}).json()
    assert ja["languageTag"] == "en"
    lora = _op(sb, "get", "/deviceProfiles", params={"loraProfileID": "0x02000002"}).json()
    assert [p["ID"] for p in lora["briefs"]] == ["ABEE/DEABE003-167EU.1.0.2b_ETSI_Rx2-SF12"]
    one = _op(sb, "get", "/deviceProfiles/id:LORA%2FGenericA.1.0.4a_ETSI",
              params={"language-tag": "de"}).json()  # fmt: skip
    assert one["commercialName"] == "LoRaWAN 1.0.4 - Klasse A" and one["catalogVersion"]
    assert one["devNonceCounterBased"] == 1 and one["regionalParameterVersion"] == "E"


def test_create_adds_custom_prefix_and_checks_length(sb: Sandbox) -> None:
    body = {"ID": "acme-sensor", "commercialName": "Acme sensor", "vendor": {"ID": "elsys"},
            "macMinorVersion": 6, "defaultIsmBands": [{"ID": "eu868"}],
            "loraProfileIDs": ["0x05000009"], "macMaxTxEIRP": [14, 16]}  # fmt: skip
    made = _op(sb, "post", "/deviceProfiles", json=body)
    assert made.status_code == 201, made.text
    item = made.json()
    assert item["ID"] == "CUSTOM/acme-sensor" and item["source"] == "CUSTOM"
    # forced by LoRaWAN 1.0.4
    assert item["allowedABPAutomaticReset"] == 0 and item["devNonceCounterBased"] == 1
    assert item["maxRedundancyForConfirmedUL"] == 0 and item["permanentlyListening"] == 0
    assert _op(sb, "post", "/deviceProfiles", json=body).status_code == 409
    again = body | {"ID": "CUSTOM/acme-sensor-2"}
    assert _op(sb, "post", "/deviceProfiles", json=again).json()["ID"] == "CUSTOM/acme-sensor-2"
    too_long = _op(sb, "post", "/deviceProfiles", json=body | {"ID": "x" * 34})
    assert too_long.status_code == 400 and "40 characters" in too_long.json()["message"]
    assert _op(sb, "post", "/deviceProfiles", json=body | {"ID": "x" * 33}).status_code == 201
    custom = _op(sb, "get", "/deviceProfiles", params={"source": "CUSTOM"}).json()
    assert custom["count"] == 3
    # one catalog: the subscriber's picker lists it, in the operator's languages too
    fr = sb.get(f"{API}/subscriptions/mine/deviceProfiles",
                params={"ID": "LORA/GenericA.1.1a_ETSI", "language-tag": "fr"}).json()  # fmt: skip
    assert fr["briefs"][0]["commercialName"] == "LoRaWAN 1.1 - classe A"
    assert fr["briefs"][0]["vendor"]["commercialName"] == "Générique"
    picker = sb.get(f"{API}/subscriptions/mine/deviceProfiles", params={"ID": "CUSTOM/acme-sensor"})
    assert [p["ID"] for p in picker.json()["briefs"]] == ["CUSTOM/acme-sensor"]


def test_lorawan_rules_refused(sb: Sandbox) -> None:
    base = {"ID": "r", "commercialName": "R", "macMinorVersion": 10}
    cases = [
        ({"allowedABPAutomaticReset": 1}, "allowedABPAutomaticReset"),
        ({"devNonceCounterBased": 0}, "devNonceCounterBased"),
        ({"defaultRelayActivation": 1}, "defaultRelayActivation"),
        ({"uplinkDwellTime": 1, "defaultIsmBands": [{"ID": "eu868"}]}, "uplinkDwellTime"),
        ({"macMaxTxPower": [37]}, "macMaxTxPower"),
        ({"macMinorVersion": 7}, "macMinorVersion"),
        ({"regionalParameterVersion": "F"}, "regionalParameterVersion"),
        ({"connectivity": "CELLULAR", "mtcLteCategory": "CAT_M9"}, "mtcLteCategory"),
    ]
    for extra, name in cases:
        answer = _op(sb, "post", "/deviceProfiles", json=base | extra)
        assert answer.status_code == 400 and name in answer.json()["message"], (extra, answer.text)
    relay = base | {"ID": "relay", "canOperateAsRelay": 1, "defaultRelayActivation": 1,
                    "defaultIsmBands": [{"ID": "as923"}], "uplinkDwellTime": 1}  # fmt: skip
    assert _op(sb, "post", "/deviceProfiles", json=relay).status_code == 201
    cell = {
        "ID": "cell",
        "commercialName": "C",
        "connectivity": "CELLULAR",
        "mtcLteCategory": "CAT_NB2",
    }
    made = _op(sb, "post", "/deviceProfiles", json=cell).json()
    assert made["mtcLteCategory"] == "CAT_NB2" and "macMinorVersion" not in made


def test_update_applies_rules_on_the_result(sb: Sandbox) -> None:
    body = {"ID": "upd", "commercialName": "U", "macMinorVersion": 4, "allowedABPAutomaticReset": 1}
    uid = _op(sb, "post", "/deviceProfiles", json=body).json()["href"].rsplit("/", 1)[1]
    # moving to 1.0.4 forces the held value
    moved = _op(sb, "put", f"/deviceProfiles/{uid}", json={"macMinorVersion": 6})
    assert moved.status_code == 200 and moved.json()["allowedABPAutomaticReset"] == 0
    bad = _op(sb, "put", f"/deviceProfiles/{uid}", json={"allowedABPAutomaticReset": 1})
    assert bad.status_code == 400
    fixed = _op(sb, "put", f"/deviceProfiles/{uid}", json={"ID": "CUSTOM/other"})
    assert fixed.status_code == 400
    # a null name keeps the name
    named = _op(sb, "put", f"/deviceProfiles/{uid}", json={"commercialName": None})
    assert named.status_code == 200 and named.json()["commercialName"] == "U"
    # what was read goes back
    read = _op(sb, "get", f"/deviceProfiles/{uid}").json()
    assert _op(sb, "put", f"/deviceProfiles/{uid}", json=read).status_code == 200


def test_base_station_profiles_and_lrr_versions(sb: Sandbox) -> None:
    page = _op(sb, "get", "/baseStationProfiles").json()
    kona = next(p for p in page["briefs"] if p["ID"] == "TEKTELIC_KONA_MACRO")
    assert kona["softwareType"] == "LRR_LINUX" and kona["lrrSwVersions"]
    made = _op(sb, "post", "/baseStationProfiles", json={
        "ID": "my-gw", "commercialName": "My gateway", "vendor": {"ID": "KERLINK"},
        "softwareType": "LRR_FREERTOS", "rfHardwareConfig": "S1_A1_B1", "powerConfig": {"x": 1}})  # fmt: skip
    assert made.status_code == 201 and made.json()["ID"] == "CUSTOM/my-gw"
    bad = _op(
        sb,
        "post",
        "/baseStationProfiles",
        json={
            "ID": "g2",
            "commercialName": "G",
            "vendor": {"ID": "KERLINK"},
            "softwareType": "WINDOWS",
        },
    )
    assert bad.status_code == 400
    # A configuration a partner could not read back (its contract lists the five values).
    unreadable = _op(sb, "post", "/baseStationProfiles", json={
        "ID": "g3", "commercialName": "G", "vendor": {"ID": "KERLINK"},
        "softwareType": "LRR_LINUX", "rfHardwareConfig": "S1_A1"})  # fmt: skip
    assert unreadable.status_code == 400 and "rfHardwareConfig" in unreadable.text
    version = _op(
        sb,
        "put",
        "/baseStationProfiles/id:CUSTOM%2Fmy-gw/lrrSwVersions/2.9.1",
        json={"compatibilities": [{"criteria": "FPGA_VERSION", "value": "0x40"}]},
    )
    assert version.status_code == 200 and version.json()["compatibilities"][0]["value"] == "0x40"
    wrong = _op(
        sb,
        "put",
        "/baseStationProfiles/id:CUSTOM%2Fmy-gw/lrrSwVersions/2.9.1",
        json={"compatibilities": [{"criteria": "COLOUR", "value": "red"}]},
    )
    assert wrong.status_code == 400
    one = _op(sb, "get", "/baseStationProfiles/id:CUSTOM%2Fmy-gw").json()
    assert [v["ID"] for v in one["lrrSwVersions"]] == ["2.9.1"]
    assert _op(sb, "get", "/baseStationProfiles", params={"source": "CUSTOM"}).json()["count"] == 1


def test_vendors_and_their_texts(sb: Sandbox) -> None:
    page = _op(sb, "get", "/deviceVendors", params={"loraVendorID": "0x0200"}).json()
    assert [v["ID"] for v in page["briefs"]] == ["abeeway"]
    es = _op(sb, "get", "/deviceVendors/id:abeeway", params={"language-tag": "es"}).json()
    assert es["commercialDescription"] == "Rastreadores de activos"
    put = _op(
        sb,
        "put",
        "/deviceVendors/id:itron/locals/es",
        json={"commercialName": "Itron", "commercialDescription": "Contadores"},
    )
    assert put.status_code == 200 and put.json()["commercialDescription"] == "Contadores"
    assert _op(sb, "get", "/deviceVendors/id:itron/locals/es").json()["commercialName"] == "Itron"
    assert _op(sb, "put", "/deviceVendors/id:itron/locals/xx", json={}).status_code == 404
    made = _op(sb, "post", "/baseStationVendors", json={"ID": "ACME", "commercialName": "Acme"})
    assert made.status_code == 201 and made.json()["source"] == "CUSTOM"
    # no text in that language yet (the demo vendors have theirs in every language)
    assert _op(sb, "get", "/baseStationVendors/id:ACME/locals/es").status_code == 404
    uid = made.json()["href"].rsplit("/", 1)[1]
    assert (
        _op(sb, "put", f"/baseStationVendors/{uid}", json={"commercialName": "Acme Inc"}).json()[
            "commercialName"
        ]
        == "Acme Inc"
    )


def test_rf_regions_locals_and_logo(sb: Sandbox) -> None:
    made = _op(sb, "post", "/rfRegions", json={"ID": "KR920_X", "name": "KR", "ismBand": "kr920"})
    assert made.status_code == 201 and made.json()["ID"] == "CUSTOM/KR920_X"
    uid = made.json()["href"].rsplit("/", 1)[1]
    assert _op(sb, "get", f"/rfRegions/{uid}/logo").status_code == 404
    posted = _op(sb, "post", f"/rfRegions/{uid}/logo", files={"file": ("l.png", PNG, "image/png")})
    assert posted.status_code == 201 and posted.json()["logo"].endswith("/logo")
    got = _op(sb, "get", f"/rfRegions/{uid}/logo")
    assert got.content == PNG and got.headers["content-type"] == "image/png"
    text = _op(
        sb, "post", f"/rfRegions/{uid}/logo", files={"file": ("l.png", b"hello", "image/png")}
    )
    assert text.status_code == 400
    big = _op(sb, "post", f"/rfRegions/{uid}/logo", content=PNG + b"\x00" * 300_000)
    assert big.status_code == 413
    local = _op(sb, "put", f"/rfRegions/{uid}/locals/fr", json={"name": "Corée"})
    assert local.json()["name"] == "Corée"
    fr = _op(sb, "get", "/rfRegions", params={"language-tag": "fr", "source": "CUSTOM"}).json()
    assert fr["briefs"][0]["name"] == "Corée"
    assert _op(sb, "delete", f"/rfRegions/{uid}").status_code == 204
    assert _op(sb, "get", f"/rfRegions/{uid}").status_code == 404


def _file(version: str, n: int = 3) -> dict[str, Any]:
    return {
        "format": "lpwa-catalog/1", "catalog": "deviceProfiles", "version": version,
        "vendors": [{"ID": "bench", "commercialName": "Bench", "locals": {"fr": {"commercialName": "Banc"}}}],
        "profiles": [
            {"ID": f"BENCH/p{i}", "commercialName": f"P{i}", "vendorID": "bench",
             "macMinorVersion": 5, "defaultIsmBands": ["eu868"],
             "locals": {"de": {"commercialName": f"G{i}"}}}
            for i in range(n)
        ],
    }  # fmt: skip


def test_catalog_import_versions_and_force(sb: Sandbox) -> None:
    assert _op(sb, "get", "/deviceProfiles/catalog").json()["version"] == "2026.10"
    done = _op(
        sb,
        "post",
        "/deviceProfiles/catalog",
        files={"file": ("c.json", json.dumps(_file("2027.1")))},
    )
    assert done.status_code == 201, done.text
    assert done.json()["imported"] == 3 and done.json()["version"] == "2027.1"
    assert len(done.json()["added"]) == 3
    again = _op(sb, "post", "/deviceProfiles/catalog", content=json.dumps(_file("2027.1")))
    assert again.status_code == 409 and "force" in again.json()["message"]
    zipped = gzip.compress(json.dumps(_file("2027.1", 4)).encode())
    forced = _op(sb, "post", "/deviceProfiles/catalog", content=zipped, params={"force": "true"})
    assert forced.status_code == 201 and forced.json()["added"] == ["BENCH/p3"]
    de = _op(sb, "get", "/deviceProfiles/id:BENCH%2Fp1", params={"language-tag": "de"}).json()
    assert de["commercialName"] == "G1" and de["catalogVersion"] == "2027.1"
    wrong = _op(sb, "post", "/rfRegions/catalog", content=json.dumps(_file("2027.2")))
    assert wrong.status_code == 400
    broken = _file("2027.3")
    broken["profiles"][0]["macMinorVersion"] = 6
    broken["profiles"][0]["allowedABPAutomaticReset"] = 1
    refused = _op(sb, "post", "/deviceProfiles/catalog", content=json.dumps(broken))
    assert refused.status_code == 400 and "allowedABPAutomaticReset" in refused.json()["message"]
    assert _op(sb, "post", "/deviceProfiles/catalog", content=b"{nope").status_code == 400


def test_self_update(sb: Sandbox) -> None:
    for kind in ("deviceProfiles", "baseStationProfiles", "rfRegions"):
        offered = _op(sb, "get", f"/{kind}/catalog/selfUpdate").json()
        assert offered["version"] == "2026.11" and offered["installedVersion"] == "2026.10"
        assert offered["added"]
        done = _op(sb, "post", f"/{kind}/catalog/selfUpdate")
        assert done.status_code == 201 and done.json()["installedVersion"] == "2026.11"
        assert _op(sb, "post", f"/{kind}/catalog/selfUpdate").status_code == 409
        forced = _op(sb, "post", f"/{kind}/catalog/selfUpdate", params={"force": "true"})
        assert forced.status_code == 201 and forced.json()["added"] == []
    dwell = _op(sb, "get", "/deviceProfiles/id:MILE%2FEM300-TH.1.0.3_AS923").json()
    assert dwell["uplinkDwellTime"] == 1


def test_a_custom_base_station_profile_is_a_model_for_new_stations(sb: Sandbox) -> None:
    # One catalog: the operator's new profile is what a partner's new station may be.
    made = _op(sb, "post", "/baseStationProfiles", json={
        "ID": "roof-gw", "commercialName": "Roof gateway", "vendor": {"ID": "KERLINK"},
        "softwareType": "LRR_LINUX", "rfHardwareConfig": "S1_A2_B1"})  # fmt: skip
    assert made.status_code == 201, made.text
    bss = f"{API}/partners/mine/bss"
    station = sb.post(bss, json={"model": {"ID": "CUSTOM/roof-gw"}, "name": "Roof"})
    assert station.status_code == 201, station.text
    model = station.json()["model"]
    assert model["commercialName"] == "Roof gateway" and model["softwareType"] == "LRR_LINUX"
    assert station.json()["vendor"]["ID"] == "KERLINK"
