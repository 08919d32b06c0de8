"""The supplier view-models without a server: words of stock and availability, the order
total, extras, the access check (a supplier's account or not), gated lists and the secret
issuer (hands the secret on once, keeps nothing)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pydantic import SecretStr

from lpwa_console.models.suppliers import (
    NOT_A_SUPPLIER,
    OrderLookup,
    SecretIssuer,
    SupplierAccess,
    order_page,
    order_total,
    product_availability,
    product_extras,
    product_stock,
    stock_words,
    supplier_kinds,
    supplier_view_models,
)
from lpwa_console.models.tasks import TaskRunner
from lpwa_console.schema.suppliers import (
    Order,
    ProductBrief,
    ProductVersionPage,
    ServiceAccountSecret,
    Supplier,
)
from tests.helpers import refusal, run


def test_stock_in_words() -> None:
    assert stock_words("IN_STOCK") == "In stock"
    assert stock_words("P7D") == "Out of stock for 7 days"
    assert stock_words("P1M") == "Out of stock for a month"
    assert stock_words(None) == ""
    own = ProductBrief(ID="1", name="a", stock=1200, status="SOLD_OUT")
    assert (product_stock(own), product_availability(own)) == ("1,200", "Sold out")
    versioned = ProductBrief(ID="2", name="b", versionCount=2)
    assert product_stock(versioned) == "per version (2)"
    assert product_availability(versioned) == "see versions"


def test_order_total_counts_units_tax_and_shipping() -> None:
    order = Order.model_validate(
        {
            "ID": "7",
            "orderContext": {
                "shippingMode": {"supplierUpfrontTax": 5},
                "products": {
                    "product": [
                        {"ID": "1", "quantity": 2, "upfrontPrice": 10, "upfrontTax": 2,
                         "currency": "EUR"},
                        {"ID": "2", "quantity": 1, "upfrontPrice": 100, "currency": "EUR"},
                    ]
                },
            },
        }
    )  # fmt: skip
    assert order_total(order) == "129.00 EUR"
    assert order_total(Order(ID="8")) == ""


def test_kinds_are_declared_for_rights() -> None:
    from lpwa_console.models.rights import ACTIONS

    for kind in supplier_kinds():
        for verb, wanted in (("create", kind.create), ("edit", kind.update),
                             ("delete", kind.delete)):  # fmt: skip
            if wanted is not None:
                assert f"{kind.key}.{verb}" in ACTIONS
        for part in kind.parts:
            assert f"{kind.key}.{part.key.lower()}" in ACTIONS


class FakeSuppliers:
    def __init__(self, refuse: BaseException | None = None) -> None:
        self.refuse = refuse
        self.secrets = 0

    async def get(self, **_kw: Any) -> Supplier:
        if self.refuse is not None:
            raise self.refuse
        return Supplier(ID="s", name="Acme sensors", validationState="VALIDATING")

    async def new_secret(self, account_id: str) -> ServiceAccountSecret:
        self.secrets += 1
        return ServiceAccountSecret(ID=account_id, clientSecret=SecretStr("s3cr3t-" * 6))

    async def order(self, number: str) -> Order:
        if number == "404":
            raise refusal(404, "order 404 not found")
        return Order(ID=number)

    async def versions(self, product: str, *_a: Any) -> ProductVersionPage:
        return ProductVersionPage.model_validate(
            {"briefs": [{"ID": "9", "name": "v2.1", "stock": 3, "status": "IN_STOCK"}]}
        )


def test_access_says_whether_the_account_is_a_suppliers(qtbot: Any, qloop: Any) -> None:
    runner = TaskRunner()
    access = SupplierAccess(runner)
    vms = supplier_view_models(runner, access)
    access.set_client(SimpleNamespace(suppliers=FakeSuppliers()))  # type: ignore[arg-type]
    for vm in vms:
        vm.set_client(SimpleNamespace(suppliers=FakeSuppliers()))  # type: ignore[arg-type]
    vms[0].ensure_loaded()
    assert not vms[0].loaded  # waits for the check
    with qtbot.waitSignal(access.changed, timeout=5000):
        access.ensure_checked()
    qtbot.waitUntil(lambda: access.state == "supplier", timeout=5000)
    assert access.heading() == "Acme sensors · Being validated"
    refused = SupplierAccess(runner)
    refused.set_client(
        SimpleNamespace(suppliers=FakeSuppliers(refusal(403, "needs SUPPLIER::ADMIN")))  # type: ignore[arg-type]
    )
    refused.ensure_checked()
    qtbot.waitUntil(lambda: refused.state == "not_supplier", timeout=5000)
    assert refused.message == NOT_A_SUPPLIER and refused.heading() == ""
    broken = SupplierAccess(runner)
    broken.set_client(SimpleNamespace(suppliers=FakeSuppliers(refusal(503, "busy"))))  # type: ignore[arg-type]
    broken.ensure_checked()
    qtbot.waitUntil(lambda: broken.state == "error", timeout=5000)
    assert "Could not read the supplier" in broken.message
    broken.set_client(None)
    assert broken.state == "unknown"


def test_secret_issuer_hands_it_on_once(qtbot: Any, qloop: Any) -> None:
    runner = TaskRunner()
    issuer = SecretIssuer(runner)
    fake = FakeSuppliers()
    assert not issuer.new_secret("sa-1")  # no client
    issuer.set_client(SimpleNamespace(suppliers=fake))  # type: ignore[arg-type]
    with qtbot.waitSignal(issuer.issued, timeout=5000) as got:
        assert issuer.new_secret("sa-1")
        assert not issuer.new_secret("sa-1")  # one at a time
    account_id, secret = got.args
    assert account_id == "sa-1" and isinstance(secret, SecretStr)
    assert "s3cr3t" not in repr(secret) and fake.secrets == 1
    assert not issuer.busy
    assert not [v for v in vars(issuer).values() if isinstance(v, SecretStr)]


def test_order_lookup_and_product_extras(qtbot: Any, qloop: Any) -> None:
    client: Any = SimpleNamespace(suppliers=FakeSuppliers())
    assert run(qtbot, order_page(client, OrderLookup())).briefs == []
    found = run(qtbot, order_page(client, OrderLookup(order=" 12 ")))
    assert [o.ID for o in found.briefs] == ["12"] and found.count == 1
    assert run(qtbot, order_page(client, OrderLookup(order="404"))).count == 0
    extras = run(qtbot, product_extras(client, ProductBrief(ID="1", name="p", versionCount=1)))
    assert extras["Versions"] == {"v2\u20241": "3 in stock · In stock"}  # not a path
    alone = run(qtbot, product_extras(client, ProductBrief(ID="1", name="p")))
    assert "own" in next(iter(alone["Versions"].values()))
