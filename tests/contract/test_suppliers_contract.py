"""The real client's supplier resource against a real sandbox process: every method once, so
a path, parameter or body the two sides read differently fails here. (The session's sandbox
is shared: these tests make their own items rather than rely on counts.)"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator

import pytest

from lpwa_console.api import Credentials, LpwaClient, PermissionDeniedError
from lpwa_console.api.errors import NotFoundError
from lpwa_console.schema.suppliers import (
    ApplicationCreate,
    ApplicationFilter,
    ApplicationManifestUpdate,
    ApplicationOptionCreate,
    ApplicationOptionUpdate,
    ApplicationUpdate,
    CategoryFilter,
    ManifestPermissionInput,
    ProductCreate,
    ProductFilter,
    ProductUpdate,
    ProductVersionCreate,
    ProductVersionUpdate,
    ServiceAccountCreate,
    ServiceAccountUpdate,
    SupplierAdminCreate,
    SupplierRestrictedUpdate,
    SupplierUpdate,
    VendorInput,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _client(sandbox, role: str) -> LpwaClient:  # type: ignore[no-untyped-def]
    account = sandbox.account(role)
    creds = Credentials(sandbox.token_url, account["client_id"], account["client_secret"])
    return LpwaClient(sandbox.base_url, creds)


@pytest.fixture
async def supplier(sandbox) -> AsyncIterator[LpwaClient]:  # type: ignore[no-untyped-def]
    async with _client(sandbox, "supplier") as c:
        yield c


async def test_supplier_admins_and_restricted(supplier: LpwaClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    sup = supplier.suppliers
    me = await sup.get()
    assert me.ID == "demo-supplier" and me.customFields is None
    assert (await sup.get(custom_fields=True)).customFields is not None
    changed = await sup.update(SupplierUpdate(description="Contract test"))
    assert changed.description == "Contract test"
    with pytest.raises(PermissionDeniedError):
        await sup.update_restricted(SupplierRestrictedUpdate(validationState="VALIDATED"))
    async with _client(sandbox, "operator") as operator:
        answer = await operator.suppliers.update_restricted(
            SupplierRestrictedUpdate(validationState="VALIDATED", exclusiveVendor=None),
            supplier="id:demo-supplier",
        )
        assert answer.validationState == "VALIDATED" and answer.exclusiveVendor is None
        vendor = await operator.suppliers.update_restricted(
            SupplierRestrictedUpdate(exclusiveVendor=VendorInput(ID="elsys")),
            supplier="id:demo-supplier",
        )
        assert vendor.exclusiveVendor is not None and vendor.exclusiveVendor.name == "Elsys"
        with pytest.raises(NotFoundError):
            await operator.suppliers.get()  # the operator has no supplier of its own
    async with _client(sandbox, "subscriber") as subscriber:
        with pytest.raises(PermissionDeniedError):
            await subscriber.suppliers.get()
    admin = await sup.create_admin(SupplierAdminCreate(email=f"a{id(sup)}@supplier.example"))
    assert admin.ID


async def test_service_accounts(supplier: LpwaClient, sandbox) -> None:  # type: ignore[no-untyped-def]
    sup = supplier.suppliers
    groups = await sup.service_account_groups()
    assert {g.ID for g in groups.briefs} >= {"integration", "factory"}
    made = await sup.create_service_account(
        ServiceAccountCreate(name="Contract", group={"ID": "integration"})  # type: ignore[arg-type]
    )
    assert made.group is not None and made.secretDate is None
    secret = await sup.new_secret(made.ID)
    assert len(secret.clientSecret.get_secret_value()) >= 32
    assert "*" in repr(secret.clientSecret)  # masked in reprs and logs
    creds = Credentials(sandbox.token_url, made.ID, secret.clientSecret.get_secret_value())
    async with LpwaClient(sandbox.base_url, creds) as robot:  # it signs in with its secret
        assert (await robot.suppliers.get()).ID == "demo-supplier"
    again = await sup.service_account(made.ID)
    assert again.secretDate is not None
    renamed = await sup.update_service_account(made.ID, ServiceAccountUpdate(name="Renamed"))
    assert renamed.name == "Renamed"
    assert made.ID in {a.ID for a in (await sup.service_accounts(1, 1000)).briefs}
    await sup.delete_service_account(made.ID)
    with pytest.raises(NotFoundError):
        await sup.service_account(made.ID)
    modules = await sup.modules()
    assert {m.authentication for m in modules.briefs} == {"SMP", "OIDC"}


async def test_applications(supplier: LpwaClient) -> None:
    sup = supplier.suppliers
    app = await sup.create_application(ApplicationCreate(name="Contract app", SKU="APP-CT"))
    assert app.state == "ACTIVE"
    found = await sup.applications(filters=ApplicationFilter(SKU="APP-CT"))
    assert app.ID in {a.ID for a in found.briefs}
    updated = await sup.update_application(app.ID, ApplicationUpdate(description="Words"))
    assert updated.description == "Words"
    assert (await sup.application(app.ID, custom_fields=True)).customFields == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        manifest = await sup.update_manifest(
            app.ID,
            ApplicationManifestUpdate(
                version="1", permissions=[ManifestPermissionInput(ID="read", mandatory=True)]
            ),
        )
    assert manifest.permissions[0].ID == "read"
    assert (await sup.manifest(app.ID)).version == "1"
    assert (await sup.manifest_permissions(app.ID)).briefs[0].mandatory is True
    option = await sup.create_option(app.ID, ApplicationOptionCreate(name="Opt", SKU="O-1"))
    assert (await sup.option(app.ID, option.ID)).SKU == "O-1"
    changed = await sup.update_option(app.ID, option.ID, ApplicationOptionUpdate(SKU="O-2"))
    assert changed.SKU == "O-2"
    assert [o.ID for o in (await sup.options(app.ID)).briefs] == [option.ID]


async def test_products_versions_orders_helpers(supplier: LpwaClient) -> None:
    sup = supplier.suppliers
    product = await sup.create_product(
        ProductCreate(
            name="Contract product", SKU="CT-1", upfrontPrice=10, stock=5, status="IN_STOCK"
        )
    )
    assert product.stock == 5
    hits = await sup.products(
        filters=ProductFilter(
            SKU="CT-1",
            minUpfrontPrice=10,
            maxUpfrontPrice=10,
            status="IN_STOCK",
            minStock=5,
            maxStock=5,
        )
    )
    assert [p.ID for p in hits.briefs] == [product.ID]
    out = await sup.products(filters=ProductFilter(status="OUT_STOCK", SKU="CT-1"))
    assert out.briefs == []
    await sup.update_product(product.ID, ProductUpdate(status="P15D", stock=0))
    out = await sup.products(filters=ProductFilter(status="OUT_STOCK", SKU="CT-1"))
    assert [p.ID for p in out.briefs] == [product.ID]
    version = await sup.create_version(product.ID, ProductVersionCreate(name="v1", stock=2,
                                                                        status="IN_STOCK"))  # fmt: skip
    full = await sup.product(product.ID, custom_fields=True)
    assert full.stock is None and full.status is None and full.versionCount == 1
    changed = await sup.update_version(product.ID, version.ID, ProductVersionUpdate(stock=1))
    assert changed.stock == 1
    assert (await sup.version(product.ID, version.ID)).status == "IN_STOCK"
    assert [v.ID for v in (await sup.versions(product.ID)).briefs] == [version.ID]
    order = await sup.order("1")
    assert order.orderContext is not None and order.orderContext.products is not None
    selling = await sup.categories()
    assert {c.type for c in selling.briefs} == {"SELLING"}
    internal = await sup.categories(filters=CategoryFilter(type="INTERNAL"))
    assert {c.type for c in internal.briefs} == {"INTERNAL"}
    assert (await sup.custom_field_sets("devices")).briefs
    assert (await sup.vendors()).count
