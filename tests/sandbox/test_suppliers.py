"""The supplier interface over HTTP (Document 2 §4.2): who reaches which supplier, the
supplier and its restricted part, admins, service accounts and their secret, groups,
modules, applications (manifest, permissions, options), devices sold with every list filter,
versions, orders and the helper lists."""

from __future__ import annotations

from typing import Any

import pytest

from lpwa_console.sandbox.accounts import listing
from lpwa_console.sandbox.store import suppliers as store
from lpwa_console.schema.suppliers import OUT_OF_STOCK

from .conftest import API, TOKEN, Sandbox

SUP = f"{API}/suppliers/mine"


def _all(sb: Sandbox, path: str, **params: Any) -> list[dict[str, Any]]:
    page = sb.get(path, "supplier", params={"pageSize": 1000, **params})
    assert page.status_code == 200, page.text
    body = page.json()
    assert not body["more"] and body["count"] == len(body["briefs"])
    return list(body["briefs"])


def test_identifier_forms_and_who_may(sb: Sandbox) -> None:
    mine = sb.get(SUP, "supplier").json()
    assert mine["ID"] == "demo-supplier" and "customFields" not in mine
    uid = mine["href"].rsplit("/", 1)[1]
    for form in (uid, "id:demo-supplier"):
        assert sb.get(f"{API}/suppliers/{form}", "supplier").json()["ID"] == "demo-supplier"
        assert sb.get(f"{API}/suppliers/{form}", "operator").status_code == 200
    assert sb.get(f"{API}/suppliers/id:other", "supplier").status_code == 404
    assert sb.get(f"{API}/suppliers/{int(uid) + 1000}", "operator").status_code == 404
    assert sb.get(SUP, "operator").status_code == 404  # the operator has no supplier
    for role in ("subscriber", "partner"):
        assert sb.get(SUP, role).status_code == 403


def test_supplier_custom_fields_update_and_restricted(sb: Sandbox) -> None:
    asked = sb.get(SUP, "supplier", params={"customFields": "true"}).json()
    assert asked["customFields"]["contact"] == "Jane Doe"
    assert asked["customFieldSet"] == {"ID": "supplier-contact", "name": "Supplier contact"}
    sent = asked | {"description": "New words", "customFields": {"contact": "Bob"}}
    done = sb.put(SUP, "supplier", json=sent)
    assert done.status_code == 200, done.text
    assert done.json()["description"] == "New words"
    assert done.json()["customFields"] == {"contact": "Bob"}
    # The validation state is the operator's: refused in the supplier's PUT and /restricted.
    assert sb.put(SUP, "supplier", json={"colour": "red"}).status_code == 400
    assert (
        sb.put(f"{SUP}/restricted", "supplier", json={"validationState": "SUSPENDED"}).status_code
        == 403
    )
    op = f"{API}/suppliers/id:demo-supplier/restricted"
    changed = sb.put(op, "operator", json={"validationState": "SUSPENDED",
                                           "exclusiveVendor": {"ID": "itron"}})  # fmt: skip
    assert changed.status_code == 200, changed.text
    assert changed.json() == {
        "validationState": "SUSPENDED",
        "exclusiveVendor": {"ID": "itron", "name": "Itron"},
    }
    assert sb.get(SUP, "supplier").json()["validationState"] == "SUSPENDED"
    assert sb.put(op, "operator", json={"exclusiveVendor": {"ID": "nobody"}}).status_code == 400
    assert sb.put(op, "operator", json={"validationState": "TEST"}).status_code == 400
    assert sb.put(op, "operator", json={"exclusiveVendor": None}).json() == {
        "validationState": "SUSPENDED"
    }


def test_admins(sb: Sandbox) -> None:
    made = sb.post(f"{SUP}/admins", "supplier", json={"email": "ops@supplier.example"})
    assert made.status_code == 201 and made.json()["email"] == "ops@supplier.example"
    again = sb.post(f"{SUP}/admins", "supplier", json={"email": "OPS@supplier.example"})
    assert again.status_code == 409
    deprecated = sb.post(
        f"{SUP}/admins", "supplier", json={"email": "b@x.example", "apiOnly": True}
    )
    assert deprecated.status_code == 201 and deprecated.json()["apiOnly"] is True
    assert sb.post(f"{SUP}/admins", "supplier", json={"email": "nope"}).status_code == 400


def test_service_accounts_and_their_secret(sb: Sandbox) -> None:
    base = f"{SUP}/serviceAccounts"
    assert {g["ID"] for g in _all(sb, f"{base}/groups")} == {"integration", "factory"}
    before = _all(sb, base)
    made = sb.post(base, "supplier", json={"name": "CI", "group": {"ID": "factory"}})
    assert made.status_code == 201, made.text
    account = made.json()
    assert "clientSecret" not in account and "secretDate" not in account
    assert account["group"] == {"ID": "factory", "name": "Factory"}
    assert len(_all(sb, base)) == len(before) + 1
    path = f"{base}/{account['ID']}"
    first = sb.post(f"{path}/secret", "supplier")
    assert first.status_code == 201
    secret = first.json()["clientSecret"]
    assert len(secret) >= 32
    # Only a hash is kept, and a new secret replaces it.
    db = sb.client.app.state.services.db  # type: ignore[attr-defined]
    uid = store.service_account_uid(db.conn(), 1, account["ID"])
    assert uid is not None
    stored = store.stored_secret_hash(db.conn(), uid)
    assert stored is not None and secret not in stored and store.secret_matches(stored, secret)
    second = sb.post(f"{path}/secret", "supplier").json()["clientSecret"]
    stored = store.stored_secret_hash(db.conn(), uid)
    assert stored is not None
    assert second != secret and not store.secret_matches(stored, secret)
    assert "clientSecret" not in sb.get(path, "supplier").json()
    assert sb.get(path, "supplier").json()["secretDate"] > 0
    renamed = sb.put(path, "supplier", json={"name": "CI robot", "group": None})
    assert renamed.json()["name"] == "CI robot" and "group" not in renamed.json()
    assert sb.put(path, "supplier", json={"group": {"ID": "x"}}).status_code == 400
    assert sb.client.delete(path, headers=sb.headers("supplier")).status_code == 200
    assert sb.get(path, "supplier").status_code == 404
    assert sb.post(f"{path}/secret", "supplier").status_code == 404


def test_a_service_account_signs_in_with_its_secret(sb: Sandbox) -> None:
    base = f"{SUP}/serviceAccounts"
    account = sb.post(base, "supplier", json={"name": "Robot"}).json()

    def sign_in(secret: str) -> Any:
        return sb.client.post(
            TOKEN,
            data={"grant_type": "client_credentials", "client_id": account["ID"],
                  "client_secret": secret},
        )  # fmt: skip

    assert sign_in("").status_code == 401  # no secret made yet
    secret = sb.post(f"{base}/{account['ID']}/secret", "supplier").json()["clientSecret"]
    assert sign_in("wrong").status_code == 401
    token = sign_in(secret)
    assert token.status_code == 200, token.text
    headers = {"Authorization": f"Bearer {token.json()['access_token']}"}
    me = sb.client.get(SUP, headers=headers)
    assert me.status_code == 200 and me.json()["ID"] == "demo-supplier"
    assert sb.client.get(f"{API}/subscriptions/mine", headers=headers).status_code == 403
    assert account["ID"] not in {a["client_id"] for a in listing(db_of(sb).conn())}
    newer = sb.post(f"{base}/{account['ID']}/secret", "supplier").json()["clientSecret"]
    assert sign_in(secret).status_code == 401 and sign_in(newer).status_code == 200
    assert (
        sb.client.delete(f"{base}/{account['ID']}", headers=sb.headers("supplier")).status_code
        == 200
    )
    assert sb.client.get(SUP, headers=headers).status_code == 401  # its tokens went with it
    assert sign_in(newer).status_code == 401


def db_of(sb: Sandbox) -> Any:
    return sb.client.app.state.services.db  # type: ignore[attr-defined]


def test_modules(sb: Sandbox) -> None:
    modules = _all(sb, f"{SUP}/modules")
    assert {m["authentication"] for m in modules} == {"SMP", "OIDC"}


def test_applications_manifest_and_options(sb: Sandbox) -> None:
    base = f"{SUP}/applications"
    apps = _all(sb, base)
    assert len(apps) == 4 and all(a["state"] == "ACTIVE" for a in apps)
    assert [a["SKU"] for a in _all(sb, base, SKU="APP-TRACK")] == ["APP-TRACK"]
    assert _all(sb, base, SKU="APP") == []  # exact, not a prefix
    made = sb.post(base, "supplier", json={"name": "Flood watch", "SKU": "APP-FLOOD",
                                           "customFieldSet": {"ID": "app-support"},
                                           "customFields": {"supportEmail": "a@b.example"}})  # fmt: skip
    assert made.status_code == 201, made.text
    app = made.json()
    assert app["state"] == "ACTIVE" and app["customFields"] == {"supportEmail": "a@b.example"}
    path = f"{base}/{app['ID']}"
    assert "customFields" not in sb.get(path, "supplier").json()
    assert sb.get(path, "supplier", params={"customFields": "1"}).json()["customFields"]
    bad = sb.post(base, "supplier", json={"name": "X", "customFieldSet": {"ID": "radio"}})
    assert bad.status_code == 400 and bad.json()["message"].startswith("customFieldSet")
    assert sb.put(path, "supplier", json={"state": "TEST", "SKU": "APP-F2"}).json()["SKU"] == (
        "APP-F2"
    )
    manifest = sb.get(f"{path}/manifest", "supplier").json()
    assert manifest == {"permissions": []}
    sent = {"version": "2", "permissions": [{"ID": "read", "name": "Read", "mandatory": True}]}
    assert sb.put(f"{path}/manifest", "supplier", json=sent).json()["version"] == "2"
    perms = sb.get(f"{path}/manifest/permissions", "supplier").json()
    assert perms["count"] == 1 and perms["briefs"][0]["ID"] == "read"
    twice = {"permissions": [{"ID": "a"}, {"ID": "a"}]}
    assert sb.put(f"{path}/manifest", "supplier", json=twice).status_code == 400
    option = sb.post(f"{path}/options", "supplier", json={"name": "Extra", "SKU": "OPT-X"})
    assert option.status_code == 201
    opt_path = f"{path}/options/{option.json()['ID']}"
    assert sb.put(opt_path, "supplier", json={"SKU": "OPT-Y"}).json()["SKU"] == "OPT-Y"
    assert [o["SKU"] for o in _all(sb, f"{path}/options")] == ["OPT-Y"]
    assert sb.get(f"{base}/99999", "supplier").status_code == 404
    assert sb.get(f"{base}/abc/manifest", "supplier").status_code == 404


def _products(sb: Sandbox, **params: Any) -> list[dict[str, Any]]:
    return _all(sb, f"{SUP}/devices", **params)


def _stock_rows(sb: Sandbox) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every product with its versions."""
    out = []
    for p in _products(sb):
        versions = _all(sb, f"{SUP}/devices/{p['ID']}/versions") if p["versionCount"] else []
        out.append((p, versions))
    return out


def test_products_stock_and_status_only_without_versions(sb: Sandbox) -> None:
    rows = _stock_rows(sb)
    assert len(rows) == 50
    for product, versions in rows:
        if versions:
            assert "stock" not in product and "status" not in product
            assert all("status" in v and "stock" in v for v in versions)
        else:
            assert "status" in product and "stock" in product


def _matches(product: dict[str, Any], versions: list[dict[str, Any]], test: Any) -> bool:
    return any(test(v) for v in versions) if versions else test(product)


@pytest.mark.parametrize(
    ("params", "test"),
    [
        ({"status": "IN_STOCK"}, lambda x: x["status"] == "IN_STOCK"),
        ({"status": "OUT_STOCK"}, lambda x: x["status"] in OUT_OF_STOCK),
        ({"status": "P7D"}, lambda x: x["status"] == "P7D"),
        ({"minStock": 100, "maxStock": 900}, lambda x: 100 <= x["stock"] <= 900),
        ({"minStock": 0, "maxStock": 0}, lambda x: x["stock"] == 0),
        ({"status": "IN_STOCK", "minStock": 500},
         lambda x: x["status"] == "IN_STOCK" and x["stock"] >= 500),
    ],
)  # fmt: skip
def test_product_stock_filters(sb: Sandbox, params: dict[str, Any], test: Any) -> None:
    rows = _stock_rows(sb)
    expected = {p["ID"] for p, versions in rows if _matches(p, versions, test)}
    got = {p["ID"] for p in _products(sb, **params)}
    assert got == expected and got


def test_product_exact_and_price_filters(sb: Sandbox) -> None:
    everything = _products(sb)
    prices = sorted(p["upfrontPrice"] for p in everything)
    low, high = prices[10], prices[30]
    got = _products(sb, minUpfrontPrice=low, maxUpfrontPrice=high)
    assert {p["ID"] for p in got} == {
        p["ID"] for p in everything if low <= p["upfrontPrice"] <= high
    }  # inclusive at both ends
    assert any(p["upfrontPrice"] in (low, high) for p in got)
    sku = everything[3]["SKU"]
    assert [p["SKU"] for p in _products(sb, SKU=sku)] == [sku]
    metering = _products(sb, customFieldSetID="metering")
    assert metering and all(p["customFieldSet"]["ID"] == "metering" for p in metering)
    suspended = _products(sb, validationState="SUSPENDED")
    assert all(p["validationState"] == "SUSPENDED" for p in suspended)
    assert len(suspended) < 50
    for bad in ({"status": "LOW"}, {"minStock": -1}, {"minUpfrontPrice": 5, "maxUpfrontPrice": 1},
                {"minStock": 9, "maxStock": 1}, {"validationState": "TEST"}):  # fmt: skip
        assert sb.get(f"{SUP}/devices", "supplier", params=bad).status_code == 400, bad
    first = sb.get(f"{SUP}/devices", "supplier", params={"pageSize": 10}).json()
    assert first["count"] == 50 and first["more"] and len(first["briefs"]) == 10


def test_product_create_update_and_versions(sb: Sandbox) -> None:
    base = f"{SUP}/devices"
    made = sb.post(base, "supplier", json={"name": "Flood sensor", "SKU": "FS-1",
                                           "upfrontPrice": 42.5, "stock": 3,
                                           "status": "IN_STOCK", "weight": 0.2,
                                           "pricePlan": {"ID": "PP-FS", "version": 2}})  # fmt: skip
    assert made.status_code == 201, made.text
    product = made.json()
    assert product["stock"] == 3 and product["weight"] == 0.2
    assert product["pricePlan"] == {"ID": "PP-FS", "version": 2}
    path = f"{base}/{product['ID']}"
    assert sb.put(path, "supplier", json={"stock": 0, "status": "SOLD_OUT"}).json()["stock"] == 0
    assert sb.put(path, "supplier", json={"status": "GONE"}).status_code == 400
    version = sb.post(f"{path}/versions", "supplier",
                      json={"name": "v2", "stock": 7, "status": "IN_STOCK"})  # fmt: skip
    assert version.status_code == 201
    now = sb.get(path, "supplier").json()
    assert now["versionCount"] == 1 and "stock" not in now and "status" not in now
    assert [p["ID"] for p in _products(sb, SKU="FS-1", status="IN_STOCK")] == [product["ID"]]
    v_path = f"{path}/versions/{version.json()['ID']}"
    assert sb.put(v_path, "supplier", json={"status": "P1M", "stock": 0}).json()["status"] == "P1M"
    assert _products(sb, SKU="FS-1", status="IN_STOCK") == []
    assert [p["ID"] for p in _products(sb, SKU="FS-1", status="OUT_STOCK")] == [product["ID"]]
    assert sb.get(v_path, "supplier").json()["stock"] == 0
    assert sb.get(f"{path}/versions/99999", "supplier").status_code == 404


def test_orders(sb: Sandbox) -> None:
    order = sb.get(f"{SUP}/subscribers/orders/1", "supplier")
    assert order.status_code == 200, order.text
    body = order.json()
    assert body["ID"] == "1" and body["subscriber"]["ID"] == "100"
    context = body["orderContext"]
    assert context["shippingMode"]["supplierUpfrontTax"] == 4.5
    line = context["products"]["product"][0]
    assert {"upfrontTax", "pricePlanVersion", "currency"} <= set(line)
    assert sb.get(f"{SUP}/subscribers/orders/99999", "supplier").status_code == 404
    assert sb.get(f"{SUP}/subscribers/orders/x", "supplier").status_code == 404


def test_helpers(sb: Sandbox) -> None:
    selling = _all(sb, f"{SUP}/helpers/categories")
    assert selling and {c["type"] for c in selling} == {"SELLING"}
    assert [c["ID"] for c in _all(sb, f"{SUP}/helpers/categories", type="INTERNAL")] == ["internal"]
    devices = _all(sb, f"{SUP}/helpers/devices/customFieldSets")
    assert {s["ID"] for s in devices} == {"radio", "metering"}
    assert devices[0]["fields"]
    assert [s["ID"] for s in _all(sb, f"{SUP}/helpers/applications/customFieldSets")] == [
        "app-support"
    ]
    assert _all(sb, f"{SUP}/helpers/gateways/customFieldSets") == []
    assert sb.get(f"{SUP}/helpers/things/customFieldSets", "supplier").status_code == 404
    assert any(v["ID"] == "itron" for v in _all(sb, f"{SUP}/helpers/vendors"))


def test_the_operator_makes_no_secret_for_a_supplier(sb: Sandbox) -> None:
    """Supplier credentials belong to the supplier: the operator reaches the supplier but
    cannot make (or reset) a service account's secret, so it cannot sign in as it."""
    base = f"{SUP}/serviceAccounts"
    account = sb.post(base, "supplier", json={"name": "Robot"}).json()
    secret = sb.post(f"{base}/{account['ID']}/secret", "supplier").json()["clientSecret"]
    as_operator = f"{API}/suppliers/id:demo-supplier/serviceAccounts/{account['ID']}"
    assert sb.get(as_operator, "operator").status_code == 200  # it reaches the supplier
    refused = sb.post(f"{as_operator}/secret", "operator")
    assert refused.status_code == 403, refused.text
    assert "clientSecret" not in refused.text and "serviceAccountId" in refused.json()["message"]
    # The supplier's secret still signs in; nothing the operator holds does.
    signed = sb.client.post(
        TOKEN,
        data={"grant_type": "client_credentials", "client_id": account["ID"],
              "client_secret": secret},
    )  # fmt: skip
    assert signed.status_code == 200
    # A service account the operator creates has no secret it could read either.
    made = sb.post(f"{API}/suppliers/id:demo-supplier/serviceAccounts", "operator",
                   json={"name": "Operator's"})  # fmt: skip
    if made.status_code == 201:
        assert "clientSecret" not in made.json()
        path = f"{API}/suppliers/id:demo-supplier/serviceAccounts/{made.json()['ID']}/secret"
        assert sb.post(path, "operator").status_code == 403
