"""The supplier interface (Document 2 §4.2), under `/suppliers/{supplierUid}`: the supplier
(its `customFields` when asked), the operator's `restricted` part, admins, service accounts
(a secret given once, only its hash kept), their groups, modules, applications with their
manifest, permissions and options, devices sold (products) with their versions, orders and
the helper lists.

`supplierUid` is the UID, `id:` + the supplier's ID, or `mine`. A supplier's account reaches
its own supplier only; the operator reaches any by UID or ID (it has none of its own: `mine`
names nothing) and alone sets the validation state and exclusive vendor (PUT /restricted).
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from pydantic import ValidationError

from ...schema.common import deprecated_value, parse_identifier
from ...schema.suppliers import (
    CUSTOM_FIELD_SET_TARGETS,
    Application,
    ApplicationCreate,
    ApplicationManifest,
    ApplicationManifestUpdate,
    ApplicationOption,
    ApplicationOptionCreate,
    ApplicationOptionPage,
    ApplicationOptionUpdate,
    ApplicationPage,
    ApplicationUpdate,
    CategoryPage,
    CustomFieldSetPage,
    HelperVendorPage,
    ManifestPermissionPage,
    Order,
    Product,
    ProductCreate,
    ProductFilter,
    ProductPage,
    ProductUpdate,
    ProductVersion,
    ProductVersionCreate,
    ProductVersionPage,
    ProductVersionUpdate,
    ServiceAccount,
    ServiceAccountCreate,
    ServiceAccountGroupPage,
    ServiceAccountPage,
    ServiceAccountSecret,
    ServiceAccountUpdate,
    StockFilter,
    Supplier,
    SupplierAdmin,
    SupplierAdminCreate,
    SupplierModulePage,
    SupplierRestricted,
    SupplierRestrictedUpdate,
    SupplierUpdate,
    ValidationState,
)
from ..accounts import Account
from ..auth import OPERATOR_ADMIN, SUPPLIER_ADMIN, AppServices, ClientBodies, SupplierAccount
from ..errors import DUPLICATE, UNKNOWN_REFERENCE, ApiError, bad_request, forbidden, not_found
from ..store import suppliers as store
from ..store.clock import now_ms
from ._common import PageParams, wire_json
from ._router import RecordedRouter

T = TypeVar("T")

router = RecordedRouter(
    prefix="/suppliers/{supplierUid}", tags=["supplier"], dependencies=[ClientBodies]
)


def supplier_uid(conn: sqlite3.Connection, account: Account, supplier: str) -> int:
    """The supplier behind `supplierUid` for this account, or 404."""
    ident = parse_identifier(supplier)
    own = store.of_account(conn, account.id) if account.can(SUPPLIER_ADMIN) else None
    if ident.kind == "mine":
        found = own
    elif ident.kind == "uid":
        found = store.find(conn, uid=ident.uid)
    elif ident.kind == "id":
        found = store.find(conn, ref=ident.value)
    else:
        found = None
    if found is None or (not account.can(OPERATOR_ADMIN) and found != own):
        raise not_found(f"supplier {supplier} not found")
    return found


def _uid(text: str, what: str) -> int:
    ident = parse_identifier(text)
    if ident.kind != "uid":
        raise not_found(f"{what} {text} not found")
    return ident.uid


def _found(found: T | None, what: str, text: str) -> T:
    """`found`, or 404 naming what was asked for as the client wrote it."""
    if found is None:
        raise not_found(f"{what} {text} not found")
    return found


def _deprecated(body: Any) -> dict[str, Any]:
    """The deprecated fields the client sent, by wire name, as sent."""
    return {name: deprecated_value(body, name) for name in body.deprecated_fields_set()}


def _values(body: Any, skip: set[str] | None = None) -> dict[str, Any]:
    """The fields the client set (not deprecated ones), references reduced to their ID."""
    out: dict[str, Any] = {}
    deprecated = body.deprecated_fields_set()
    for name in body.model_fields_set:
        if name in deprecated or (skip and name in skip):
            continue
        value = getattr(body, name)
        if hasattr(value, "ID") and name in ("customFieldSet", "group", "exclusiveVendor"):
            value = value.ID
        elif hasattr(value, "model_dump"):
            value = value.model_dump(exclude_none=True)
        out[name] = value
    return out


def _update_values(body: Any) -> dict[str, Any]:
    """`_values` of an update: a null name is left out (a name cannot be emptied)."""
    values = _values(body)
    if values.get("name", "") is None:
        values.pop("name")
    return values


def _check_cfs(conn: sqlite3.Connection, sup: int, target: str, values: dict[str, Any]) -> None:
    ref = values.get("customFieldSet")
    if ref is not None and not store.cfs_exists(conn, sup, target, ref):
        raise bad_request(f"customFieldSet: unknown custom field set {ref}", UNKNOWN_REFERENCE)


# --- the supplier -----------------------------------------------------------------------------


@router.get("", response_model=Supplier, response_model_exclude_none=True)
def get_supplier(
    supplierUid: str, account: SupplierAccount, svc: AppServices, customFields: str | None = None
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = supplier_uid(conn, account, supplierUid)
    return store.supplier(conn, uid, custom_fields=customFields is not None)


@router.put("", response_model=Supplier, response_model_exclude_none=True)
def update_supplier(
    supplierUid: str, body: SupplierUpdate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        uid = supplier_uid(conn, account, supplierUid)
        values = _values(body) | _deprecated(body)
        if values.get("name") is None:
            values.pop("name", None)
        store.update_supplier(conn, uid, values)
    return store.supplier(svc.db.conn(), uid, custom_fields="customFields" in values)


@router.put("/restricted", response_model=SupplierRestricted, response_model_exclude_none=True)
def update_restricted(
    supplierUid: str, body: SupplierRestrictedUpdate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    """The contracting operator's part: validation state and exclusive vendor."""
    if not account.can(OPERATOR_ADMIN):
        raise forbidden("the validation state and exclusive vendor are the operator's to set")
    with svc.db.write() as conn:
        uid = supplier_uid(conn, account, supplierUid)
        values = _values(body)
        vendor = values.get("exclusiveVendor")
        if vendor is not None and not store.vendor_exists(conn, vendor):
            raise bad_request(f"exclusiveVendor: unknown vendor {vendor}", UNKNOWN_REFERENCE)
        if values.get("validationState", "") is None:
            raise bad_request("validationState: VALIDATING, VALIDATED or SUSPENDED")
        store.update_supplier(conn, uid, values)
        answer = store.supplier(conn, uid, custom_fields=False)
    return {k: answer.get(k) for k in ("validationState", "exclusiveVendor")}


@router.post(
    "/admins",
    status_code=201,
    response_model=SupplierAdmin,
    response_model_exclude_none=True,
    responses={409: {"description": "An admin with this email exists"}},
)
def create_admin(
    supplierUid: str, body: SupplierAdminCreate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        if store.admin_exists(conn, sup, body.email):
            raise ApiError(409, DUPLICATE, f"email: an admin {body.email} exists")
        api_only = _deprecated(body).get("apiOnly")
        return store.create_admin(conn, sup, body.email, body.name, api_only, now=now_ms())


# --- service accounts ---------------------------------------------------------------------------


@router.get("/serviceAccounts", response_model=ServiceAccountPage, response_model_exclude_none=True)
def list_service_accounts(
    supplierUid: str, account: SupplierAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.service_accounts(conn, sup, paging.offset, paging.size),
        lambda: store.service_account_count(conn, sup),
    )


# A collection path: before /serviceAccounts/{serviceAccountId}.
@router.get(
    "/serviceAccounts/groups",
    response_model=ServiceAccountGroupPage,
    response_model_exclude_none=True,
)
def list_groups(
    supplierUid: str, account: SupplierAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.groups(conn, sup, paging.offset, paging.size),
        lambda: store.group_count(conn, sup),
    )


def _group(conn: sqlite3.Connection, sup: int, values: dict[str, Any]) -> None:
    if values.get("group") is not None:
        found = store.group_uid(conn, sup, values["group"])
        if found is None:
            raise bad_request(f"group: unknown group {values['group']}", UNKNOWN_REFERENCE)
        values["group"] = found


@router.post(
    "/serviceAccounts",
    status_code=201,
    response_model=ServiceAccount,
    response_model_exclude_none=True,
)
def create_service_account(
    supplierUid: str, body: ServiceAccountCreate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        values = _values(body)
        _group(conn, sup, values)
        ref = store.supplier(conn, sup, custom_fields=False)["ID"]
        uid = store.create_service_account(
            conn, sup, ref, body.name, body.description, values.get("group"), now=now_ms()
        )
        return store.service_account(conn, uid)


def _service_account(conn: sqlite3.Connection, sup: int, ref: str) -> int:
    return _found(store.service_account_uid(conn, sup, ref), "service account", ref)


@router.get(
    "/serviceAccounts/{serviceAccountId}",
    response_model=ServiceAccount,
    response_model_exclude_none=True,
)
def get_service_account(
    supplierUid: str, serviceAccountId: str, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return store.service_account(conn, _service_account(conn, sup, serviceAccountId))


@router.put(
    "/serviceAccounts/{serviceAccountId}",
    response_model=ServiceAccount,
    response_model_exclude_none=True,
)
def update_service_account(
    supplierUid: str,
    serviceAccountId: str,
    body: ServiceAccountUpdate,
    account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        uid = _service_account(conn, sup, serviceAccountId)
        values = _update_values(body)
        _group(conn, sup, values)
        store.update_service_account(conn, uid, values)
        return store.service_account(conn, uid)


@router.delete("/serviceAccounts/{serviceAccountId}", status_code=200)
def delete_service_account(
    supplierUid: str, serviceAccountId: str, account: SupplierAccount, svc: AppServices
) -> None:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        store.delete_service_account(conn, _service_account(conn, sup, serviceAccountId))
    svc.tokens.forget_client(serviceAccountId)


@router.post(
    "/serviceAccounts/{serviceAccountId}/secret",
    status_code=201,
    response_model=ServiceAccountSecret,
    response_model_exclude_none=True,
)
def new_secret(
    supplierUid: str, serviceAccountId: str, account: SupplierAccount, svc: AppServices
) -> Response:
    """A new secret, answered this once: the sandbox keeps its scrypt hash only. (Written
    as is: the response model's SecretStr would mask it.) Only the supplier's own accounts
    make one: the operator reaches the supplier, not its credentials (it could sign in as
    the supplier and lock the supplier's own secret out)."""
    if not account.can(SUPPLIER_ADMIN):
        raise forbidden("serviceAccountId: a service account's secret is its supplier's to make")
    now = now_ms()
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        uid = _service_account(conn, sup, serviceAccountId)
        secret = store.new_secret(conn, uid, now=now)
    answer = wire_json({"ID": serviceAccountId, "clientSecret": secret, "secretDate": now})
    answer.status_code = 201
    return answer


@router.get("/modules", response_model=SupplierModulePage, response_model_exclude_none=True)
def list_modules(
    supplierUid: str, account: SupplierAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.modules(conn, sup, paging.offset, paging.size),
        lambda: store.module_count(conn, sup),
    )


# --- applications ---------------------------------------------------------------------------------


@router.get("/applications", response_model=ApplicationPage, response_model_exclude_none=True)
def list_applications(
    supplierUid: str,
    account: SupplierAccount,
    svc: AppServices,
    paging: PageParams,
    SKU: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.applications(conn, sup, SKU, paging.offset, paging.size),
        lambda: store.application_count(conn, sup, SKU),
    )


@router.post(
    "/applications", status_code=201, response_model=Application, response_model_exclude_none=True
)
def create_application(
    supplierUid: str, body: ApplicationCreate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    """The new application is ACTIVE (§3)."""
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        values = _values(body)
        _check_cfs(conn, sup, "applications", values)
        uid = store.create_application(conn, sup, values, _deprecated(body), now=now_ms())
        return store.application(conn, uid, full=True, custom_fields=True)


def _application(conn: sqlite3.Connection, sup: int, text: str) -> int:
    return _found(store.application_uid(conn, sup, _uid(text, "application")), "application", text)


def application_of(
    conn: sqlite3.Connection, account: Account, supplier: str, application: str
) -> int:
    """The application behind `applicationUid` of the supplier behind `supplierUid`, or 404."""
    return _application(conn, supplier_uid(conn, account, supplier), application)


@router.get(
    "/applications/{applicationUid}", response_model=Application, response_model_exclude_none=True
)
def get_application(
    supplierUid: str,
    applicationUid: str,
    account: SupplierAccount,
    svc: AppServices,
    customFields: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = application_of(conn, account, supplierUid, applicationUid)
    return store.application(conn, uid, full=True, custom_fields=customFields is not None)


@router.put(
    "/applications/{applicationUid}", response_model=Application, response_model_exclude_none=True
)
def update_application(
    supplierUid: str,
    applicationUid: str,
    body: ApplicationUpdate,
    account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        uid = _application(conn, sup, applicationUid)
        values = _update_values(body)
        _check_cfs(conn, sup, "applications", values)
        store.update_application(conn, uid, values, _deprecated(body))
        return store.application(conn, uid, full=True, custom_fields="customFields" in values)


@router.get(
    "/applications/{applicationUid}/manifest",
    response_model=ApplicationManifest,
    response_model_exclude_none=True,
)
def get_manifest(
    supplierUid: str, applicationUid: str, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    return store.manifest(conn, application_of(conn, account, supplierUid, applicationUid))


@router.put(
    "/applications/{applicationUid}/manifest",
    response_model=ApplicationManifest,
    response_model_exclude_none=True,
)
def update_manifest(
    supplierUid: str,
    applicationUid: str,
    body: ApplicationManifestUpdate,
    account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:
    """The whole manifest is replaced by what is sent."""
    with svc.db.write() as conn:
        uid = application_of(conn, account, supplierUid, applicationUid)
        store.set_manifest(conn, uid, body.model_dump(exclude_none=True))
        return store.manifest(conn, uid)


@router.get(
    "/applications/{applicationUid}/manifest/permissions",
    response_model=ManifestPermissionPage,
    response_model_exclude_none=True,
)
def manifest_permissions(
    supplierUid: str, applicationUid: str, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = application_of(conn, account, supplierUid, applicationUid)
    items = store.manifest(conn, uid)["permissions"]
    return {"briefs": items, "more": False, "count": len(items)}


@router.get(
    "/applications/{applicationUid}/options",
    response_model=ApplicationOptionPage,
    response_model_exclude_none=True,
)
def list_options(
    supplierUid: str,
    applicationUid: str,
    account: SupplierAccount,
    svc: AppServices,
    paging: PageParams,
) -> dict[str, Any]:
    conn = svc.db.conn()
    app = application_of(conn, account, supplierUid, applicationUid)
    return paging.answer(
        store.options(conn, app, paging.offset, paging.size),
        lambda: store.option_count(conn, app),
    )


@router.post(
    "/applications/{applicationUid}/options",
    status_code=201,
    response_model=ApplicationOption,
    response_model_exclude_none=True,
)
def create_option(
    supplierUid: str,
    applicationUid: str,
    body: ApplicationOptionCreate,
    account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:
    with svc.db.write() as conn:
        app = application_of(conn, account, supplierUid, applicationUid)
        uid = store.create_option(conn, app, _values(body), _deprecated(body), now=now_ms())
        return store.option(conn, uid)


def _option(conn: sqlite3.Connection, app: int, text: str) -> int:
    return _found(store.option_uid(conn, app, _uid(text, "option")), "option", text)


@router.get(
    "/applications/{applicationUid}/options/{optionUid}",
    response_model=ApplicationOption,
    response_model_exclude_none=True,
)
def get_option(
    supplierUid: str, applicationUid: str, optionUid: str, account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    app = application_of(conn, account, supplierUid, applicationUid)
    return store.option(conn, _option(conn, app, optionUid))


@router.put(
    "/applications/{applicationUid}/options/{optionUid}",
    response_model=ApplicationOption,
    response_model_exclude_none=True,
)
def update_option(
    supplierUid: str, applicationUid: str, optionUid: str, body: ApplicationOptionUpdate,
    account: SupplierAccount, svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    with svc.db.write() as conn:
        app = application_of(conn, account, supplierUid, applicationUid)
        uid = _option(conn, app, optionUid)
        values = _update_values(body)
        store.update_option(conn, uid, values, _deprecated(body))
        return store.option(conn, uid)


# --- devices sold (products) and versions -------------------------------------------------------


def product_filter(
    SKU: str | None = None,
    minUpfrontPrice: Annotated[float | None, Query(ge=0)] = None,
    maxUpfrontPrice: Annotated[float | None, Query(ge=0)] = None,
    status: StockFilter | None = None,
    minStock: Annotated[int | None, Query(ge=0)] = None,
    maxStock: Annotated[int | None, Query(ge=0)] = None,
    customFieldSetID: str | None = None,
    validationState: ValidationState | None = None,
) -> ProductFilter:
    try:
        return ProductFilter(**{k: v for k, v in locals().items() if v is not None})
    except ValidationError as exc:
        errors = [dict(e) | {"loc": ("query", *e["loc"])} for e in exc.errors()]
        raise RequestValidationError(errors) from None


ProductFilters = Annotated[ProductFilter, Depends(product_filter)]


@router.get("/devices", response_model=ProductPage, response_model_exclude_none=True)
def list_products(
    supplierUid: str,
    account: SupplierAccount,
    svc: AppServices,
    paging: PageParams,
    filters: ProductFilters,
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    where = store.product_where(sup, filters.model_dump(exclude_none=True))
    return paging.answer(
        store.products(conn, where, paging.offset, paging.size),
        lambda: store.product_count(conn, where),
    )


@router.post("/devices", status_code=201, response_model=Product, response_model_exclude_none=True)
def create_product(
    supplierUid: str, body: ProductCreate, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        values = _values(body)
        _check_cfs(conn, sup, "devices", values)
        vendor = store.supplier(conn, sup, custom_fields=False).get("exclusiveVendor")
        uid = store.create_product(
            conn, sup, values, _deprecated(body), now=now_ms(),
            vendor=vendor["ID"] if vendor else None,
        )  # fmt: skip
        return store.product(conn, uid, full=True, custom_fields=True)


def _product(conn: sqlite3.Connection, sup: int, text: str) -> int:
    return _found(store.product_uid(conn, sup, _uid(text, "device")), "device", text)


def product_of(conn: sqlite3.Connection, account: Account, supplier: str, device: str) -> int:
    """The device sold behind `deviceUid` of the supplier behind `supplierUid`, or 404."""
    return _product(conn, supplier_uid(conn, account, supplier), device)


@router.get("/devices/{deviceUid}", response_model=Product, response_model_exclude_none=True)
def get_product(
    supplierUid: str,
    deviceUid: str,
    account: SupplierAccount,
    svc: AppServices,
    customFields: str | None = None,
) -> dict[str, Any]:
    conn = svc.db.conn()
    uid = product_of(conn, account, supplierUid, deviceUid)
    return store.product(conn, uid, full=True, custom_fields=customFields is not None)


@router.put("/devices/{deviceUid}", response_model=Product, response_model_exclude_none=True)
def update_product(
    supplierUid: str, deviceUid: str, body: ProductUpdate, account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    with svc.db.write() as conn:
        sup = supplier_uid(conn, account, supplierUid)
        uid = _product(conn, sup, deviceUid)
        values = _update_values(body)
        _check_cfs(conn, sup, "devices", values)
        store.update_product(conn, uid, values, _deprecated(body))
        return store.product(conn, uid, full=True, custom_fields="customFields" in values)


@router.get(
    "/devices/{deviceUid}/versions",
    response_model=ProductVersionPage,
    response_model_exclude_none=True,
)
def list_versions(
    supplierUid: str, deviceUid: str, account: SupplierAccount, svc: AppServices,
    paging: PageParams,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    product = product_of(conn, account, supplierUid, deviceUid)
    return paging.answer(
        store.versions(conn, product, paging.offset, paging.size),
        lambda: store.version_count(conn, product),
    )


@router.post(
    "/devices/{deviceUid}/versions",
    status_code=201,
    response_model=ProductVersion,
    response_model_exclude_none=True,
)
def create_version(
    supplierUid: str, deviceUid: str, body: ProductVersionCreate, account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    with svc.db.write() as conn:
        product = product_of(conn, account, supplierUid, deviceUid)
        uid = store.create_version(conn, product, _values(body), now=now_ms())
        return store.version(conn, uid)


def _version(conn: sqlite3.Connection, product: int, text: str) -> int:
    return _found(store.version_uid(conn, product, _uid(text, "version")), "version", text)


@router.get(
    "/devices/{deviceUid}/versions/{versionUid}",
    response_model=ProductVersion,
    response_model_exclude_none=True,
)
def get_version(
    supplierUid: str, deviceUid: str, versionUid: str, account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    conn = svc.db.conn()
    product = product_of(conn, account, supplierUid, deviceUid)
    return store.version(conn, _version(conn, product, versionUid))


@router.put(
    "/devices/{deviceUid}/versions/{versionUid}",
    response_model=ProductVersion,
    response_model_exclude_none=True,
)
def update_version(
    supplierUid: str, deviceUid: str, versionUid: str, body: ProductVersionUpdate,
    account: SupplierAccount, svc: AppServices,
) -> dict[str, Any]:  # fmt: skip
    with svc.db.write() as conn:
        product = product_of(conn, account, supplierUid, deviceUid)
        uid = _version(conn, product, versionUid)
        values = _update_values(body)
        store.update_version(conn, uid, values)
        return store.version(conn, uid)


# --- orders and helpers ---------------------------------------------------------------------------


@router.get(
    "/subscribers/orders/{orderUid}", response_model=Order, response_model_exclude_none=True
)
def get_order(
    supplierUid: str, orderUid: str, account: SupplierAccount, svc: AppServices
) -> dict[str, Any]:
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return _found(store.order(conn, sup, _uid(orderUid, "order")), "order", orderUid)


@router.get("/helpers/categories", response_model=CategoryPage, response_model_exclude_none=True)
def helper_categories(
    supplierUid: str, account: SupplierAccount, svc: AppServices, paging: PageParams,
    type: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """`type` exact; without it, SELLING categories only (§2.3)."""
    conn = svc.db.conn()
    supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.categories(conn, type, paging.offset, paging.size),
        lambda: store.category_count(conn, type),
    )


@router.get(
    "/helpers/{target}/customFieldSets",
    response_model=CustomFieldSetPage,
    response_model_exclude_none=True,
)
def helper_custom_field_sets(
    supplierUid: str, target: str, account: SupplierAccount, svc: AppServices,
    paging: PageParams,
) -> dict[str, Any]:  # fmt: skip
    """`target`: applications, devices or gateways (the gateway interface is deprecated; its
    helper list is still served, empty unless sets were made for it)."""
    if target not in CUSTOM_FIELD_SET_TARGETS:
        raise not_found(f"no custom field sets for {target}")
    conn = svc.db.conn()
    sup = supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.custom_field_sets(conn, sup, target, paging.offset, paging.size),
        lambda: store.custom_field_set_count(conn, sup, target),
    )


@router.get("/helpers/vendors", response_model=HelperVendorPage, response_model_exclude_none=True)
def helper_vendors(
    supplierUid: str, account: SupplierAccount, svc: AppServices, paging: PageParams
) -> dict[str, Any]:
    conn = svc.db.conn()
    supplier_uid(conn, account, supplierUid)
    return paging.answer(
        store.vendors(conn, paging.offset, paging.size),
        lambda: store.vendor_count(conn),
    )
