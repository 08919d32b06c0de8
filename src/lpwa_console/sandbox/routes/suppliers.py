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
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Query
from fastapi.responses import Response

from ...schema import suppliers as wire
from ...schema.common import deprecated_value, parse_identifier
from ..accounts import Account
from ..auth import (
    OPERATOR_ADMIN,
    SUPPLIER_ADMIN,
    AppServices,
    ClientBodies,
    SupplierAccount,
)
from ..errors import DUPLICATE, UNKNOWN_REFERENCE, ApiError, bad_request, forbidden, not_found
from ..store import suppliers as store
from ..store.clock import now_ms
from ._common import PageParams, PathScope, query_model, wire_json
from ._router import RecordedRouter
from ._supplier_routes import (
    Children,
    Item,
    add_children_routes,
    add_item_routes,
    child_dependency,
)

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


@dataclass(frozen=True)
class SoldKind:
    """Applications and devices sold: each with custom field sets of its own target, read
    in full, changed by one rule."""

    target: str
    read: Callable[..., dict[str, Any]]
    update: Callable[[sqlite3.Connection, int, dict[str, Any], dict[str, Any]], None]

    def new_values(self, conn: sqlite3.Connection, sup: int, body: Any) -> dict[str, Any]:
        values = _values(body)
        _check_cfs(conn, sup, self.target, values)
        return values

    def get(self, path: ChildPath, custom_fields: str | None) -> dict[str, Any]:
        conn = path.conn()
        return self.read(conn, path.uid(conn), full=True, custom_fields=custom_fields is not None)

    def change(self, path: ChildPath, body: Any) -> dict[str, Any]:
        with path.write() as conn:
            sup, uid = path.uids(conn)
            values = _update_values(body)
            _check_cfs(conn, sup, self.target, values)
            self.update(conn, uid, values, _deprecated(body))
            return self.read(conn, uid, full=True, custom_fields="customFields" in values)


APPLICATIONS = SoldKind("applications", store.application, store.update_application)
PRODUCTS = SoldKind("devices", store.product, store.update_product)


# --- paths: each resource found through its parent's ---------------------------------------


@dataclass(frozen=True)
class SupplierPath(PathScope):
    """`supplierUid`, with who asks: `uid(conn)` is the supplier it names for that account."""

    account: Account

    def uid(self, conn: sqlite3.Connection) -> int:
        return supplier_uid(conn, self.account, self.text)


@dataclass(frozen=True)
class ChildPath:
    """A path identifier under its parent's: `uid` finds the parent, then this in it."""

    parent: SupplierPath | ChildPath
    text: str
    find: Callable[[sqlite3.Connection, int, str], int]

    @property
    def account(self) -> Account:
        return self.parent.account

    def conn(self) -> sqlite3.Connection:
        return self.parent.conn()

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        return self.parent.write()

    def uid(self, conn: sqlite3.Connection) -> int:
        return self.find(conn, self.parent.uid(conn), self.text)

    def uids(self, conn: sqlite3.Connection) -> tuple[int, int]:
        """(parent, this): for a route that needs both."""
        parent = self.parent.uid(conn)
        return parent, self.find(conn, parent, self.text)


def _child(
    what: str, find: Callable[[sqlite3.Connection, int, int], int | None]
) -> Callable[[sqlite3.Connection, int, str], int]:
    """`find(conn, parent, uid)` as a `ChildPath.find`: the text a UID, else 404."""

    def found(conn: sqlite3.Connection, parent: int, text: str) -> int:
        return _found(find(conn, parent, _uid(text, what)), what, text)

    return found


_find_application = _child("application", store.application_uid)
_find_option = _child("option", store.option_uid)
_find_product = _child("device", store.product_uid)
_find_version = _child("version", store.version_uid)


def _find_service_account(conn: sqlite3.Connection, sup: int, ref: str) -> int:
    return _found(store.service_account_uid(conn, sup, ref), "service account", ref)


# The dependencies are async: each builds a small value, no hop through the thread pool.
async def supplier_path(
    supplierUid: str, account: SupplierAccount, svc: AppServices
) -> SupplierPath:
    return SupplierPath(supplierUid, svc, account)


OfSupplier = Annotated[SupplierPath, Depends(supplier_path)]


def _under(
    parent: Callable[..., Any], param: str, find: Callable[[sqlite3.Connection, int, str], int]
) -> Callable[..., Any]:
    """The path dependency of the path parameter `param` under `parent`'s (a dependency):
    the resource `find` finds in its parent."""
    return child_dependency(parent, param, lambda up, text: ChildPath(up, text, find))


application_path = _under(supplier_path, "applicationUid", _find_application)
product_path = _under(supplier_path, "deviceUid", _find_product)
service_account_path = _under(supplier_path, "serviceAccountId", _find_service_account)
option_path = _under(application_path, "optionUid", _find_option)
version_path = _under(product_path, "versionUid", _find_version)
OfApplication = Annotated[ChildPath, Depends(application_path)]
OfProduct = Annotated[ChildPath, Depends(product_path)]
OfServiceAccount = Annotated[ChildPath, Depends(service_account_path)]
OfOption = Annotated[ChildPath, Depends(option_path)]
OfVersion = Annotated[ChildPath, Depends(version_path)]


def application_of(
    conn: sqlite3.Connection, account: Account, supplier: str, application: str
) -> int:
    """The application behind `applicationUid` of the supplier behind `supplierUid`, or 404."""
    return _find_application(conn, supplier_uid(conn, account, supplier), application)


def product_of(conn: sqlite3.Connection, account: Account, supplier: str, device: str) -> int:
    """The device sold behind `deviceUid` of the supplier behind `supplierUid`, or 404."""
    return _find_product(conn, supplier_uid(conn, account, supplier), device)


# --- the supplier -----------------------------------------------------------------------------


@router.reads("", wire.Supplier)
def get_supplier(sup: OfSupplier, customFields: str | None = None) -> dict[str, Any]:
    conn = sup.conn()
    return store.supplier(conn, sup.uid(conn), custom_fields=customFields is not None)


@router.replaces("", wire.Supplier)
def update_supplier(sup: OfSupplier, body: wire.SupplierUpdate) -> dict[str, Any]:
    with sup.write() as conn:
        uid = sup.uid(conn)
        values = _values(body) | _deprecated(body)
        if values.get("name") is None:
            values.pop("name", None)
        store.update_supplier(conn, uid, values)
    return store.supplier(sup.conn(), uid, custom_fields="customFields" in values)


@router.put("/restricted", response_model=wire.SupplierRestricted, response_model_exclude_none=True)
def update_restricted(
    supplierUid: str,
    body: wire.SupplierRestrictedUpdate,
    account: SupplierAccount,
    svc: AppServices,
) -> dict[str, Any]:
    """The contracting operator's part: validation state and exclusive vendor."""
    # No OfSupplier: the 403 comes before the supplier's 404 (a supplier learns nothing of
    # another).
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


@router.creates(
    "/admins",
    wire.SupplierAdmin,
    responses={409: {"description": "An admin with this email exists"}},
)
def create_admin(sup: OfSupplier, body: wire.SupplierAdminCreate) -> dict[str, Any]:
    with sup.write() as conn:
        uid = sup.uid(conn)
        if store.admin_exists(conn, uid, body.email):
            raise ApiError(409, DUPLICATE, f"email: an admin {body.email} exists")
        api_only = _deprecated(body).get("apiOnly")
        return store.create_admin(conn, uid, body.email, body.name, api_only, now=now_ms())


# --- service accounts ---------------------------------------------------------------------------


@router.reads("/serviceAccounts", wire.ServiceAccountPage)
def list_service_accounts(sup: OfSupplier, paging: PageParams) -> dict[str, Any]:
    conn = sup.conn()
    return paging.of(store.service_accounts, store.service_account_count, conn, sup.uid(conn))


# A collection path: before /serviceAccounts/{serviceAccountId}.
@router.reads("/serviceAccounts/groups", wire.ServiceAccountGroupPage)
def list_groups(sup: OfSupplier, paging: PageParams) -> dict[str, Any]:
    conn = sup.conn()
    return paging.of(store.groups, store.group_count, conn, sup.uid(conn))


def _group(conn: sqlite3.Connection, sup: int, values: dict[str, Any]) -> None:
    if values.get("group") is not None:
        found = store.group_uid(conn, sup, values["group"])
        if found is None:
            raise bad_request(f"group: unknown group {values['group']}", UNKNOWN_REFERENCE)
        values["group"] = found


@router.creates("/serviceAccounts", wire.ServiceAccount)
def create_service_account(sup: OfSupplier, body: wire.ServiceAccountCreate) -> dict[str, Any]:
    with sup.write() as conn:
        owner = sup.uid(conn)
        values = _values(body)
        _group(conn, owner, values)
        ref = store.supplier(conn, owner, custom_fields=False)["ID"]
        uid = store.create_service_account(
            conn, owner, ref, body.name, body.description, values.get("group"), now=now_ms()
        )
        return store.service_account(conn, uid)


def _update_service_account(
    conn: sqlite3.Connection, sup: int, uid: int, body: wire.ServiceAccountUpdate
) -> None:
    values = _update_values(body)
    _group(conn, sup, values)
    store.update_service_account(conn, uid, values)


add_item_routes(
    router, "/serviceAccounts/{serviceAccountId}", OfServiceAccount,
    (wire.ServiceAccount, wire.ServiceAccountUpdate),
    Item(store.service_account, _update_service_account), "service_account",
)  # fmt: skip


@router.delete("/serviceAccounts/{serviceAccountId}", status_code=200)
def delete_service_account(sa: OfServiceAccount, svc: AppServices) -> None:
    with sa.write() as conn:
        store.delete_service_account(conn, sa.uid(conn))
    svc.tokens.forget_client(sa.text)


@router.creates("/serviceAccounts/{serviceAccountId}/secret", wire.ServiceAccountSecret)
def new_secret(sa: OfServiceAccount) -> Response:
    """A new secret, answered this once: the sandbox keeps its scrypt hash only. (Written
    as is: the response model's SecretStr would mask it.) Only the supplier's own accounts
    make one: the operator reaches the supplier, not its credentials (it could sign in as
    the supplier and lock the supplier's own secret out)."""
    if not sa.account.can(SUPPLIER_ADMIN):
        raise forbidden("serviceAccountId: a service account's secret is its supplier's to make")
    now = now_ms()
    with sa.write() as conn:
        secret = store.new_secret(conn, sa.uid(conn), now=now)
    answer = wire_json({"ID": sa.text, "clientSecret": secret, "secretDate": now})
    answer.status_code = 201
    return answer


@router.reads("/modules", wire.SupplierModulePage)
def list_modules(sup: OfSupplier, paging: PageParams) -> dict[str, Any]:
    conn = sup.conn()
    return paging.of(store.modules, store.module_count, conn, sup.uid(conn))


# --- applications ---------------------------------------------------------------------------------


@router.reads("/applications", wire.ApplicationPage)
def list_applications(
    sup: OfSupplier, paging: PageParams, SKU: str | None = None
) -> dict[str, Any]:
    conn = sup.conn()
    return paging.of(store.applications, store.application_count, conn, sup.uid(conn), SKU)


@router.creates("/applications", wire.Application)
def create_application(sup: OfSupplier, body: wire.ApplicationCreate) -> dict[str, Any]:
    """The new application is ACTIVE (§3)."""
    with sup.write() as conn:
        owner = sup.uid(conn)
        values = APPLICATIONS.new_values(conn, owner, body)
        uid = store.create_application(conn, owner, values, _deprecated(body), now=now_ms())
        return store.application(conn, uid, full=True, custom_fields=True)


add_item_routes(
    router, "/applications/{applicationUid}", OfApplication,
    (wire.Application, wire.ApplicationUpdate), APPLICATIONS, "application",
)  # fmt: skip


def _set_manifest(
    conn: sqlite3.Connection, _app: int, uid: int, body: wire.ApplicationManifestUpdate
) -> None:
    store.set_manifest(conn, uid, body.model_dump(exclude_none=True))


add_item_routes(
    router, "/applications/{applicationUid}/manifest", OfApplication,
    (wire.ApplicationManifest, wire.ApplicationManifestUpdate), Item(store.manifest, _set_manifest),
    "manifest", update_doc="The whole manifest is replaced by what is sent.",
)  # fmt: skip


@router.reads("/applications/{applicationUid}/manifest/permissions", wire.ManifestPermissionPage)
def manifest_permissions(app: OfApplication) -> dict[str, Any]:
    conn = app.conn()
    items = store.manifest(conn, app.uid(conn))["permissions"]
    return {"briefs": items, "more": False, "count": len(items)}


def _create_option(conn: sqlite3.Connection, app: int, body: wire.ApplicationOptionCreate) -> int:
    return store.create_option(conn, app, _values(body), _deprecated(body), now=now_ms())


def _update_option(
    conn: sqlite3.Connection, _app: int, uid: int, body: wire.ApplicationOptionUpdate
) -> None:
    store.update_option(conn, uid, _update_values(body), _deprecated(body))


OPTIONS = Children(
    store.options, store.option_count, _create_option, Item(store.option, _update_option)
)
add_children_routes(
    router, "/applications/{applicationUid}/options", "optionUid", (OfApplication, OfOption),
    (wire.ApplicationOptionPage, wire.ApplicationOption, wire.ApplicationOptionCreate,
     wire.ApplicationOptionUpdate),
    OPTIONS, ("options", "option"),
)  # fmt: skip


# --- devices sold (products) and versions -------------------------------------------------------


def product_filter(
    SKU: str | None = None,
    minUpfrontPrice: Annotated[float | None, Query(ge=0)] = None,
    maxUpfrontPrice: Annotated[float | None, Query(ge=0)] = None,
    status: wire.StockFilter | None = None,
    minStock: Annotated[int | None, Query(ge=0)] = None,
    maxStock: Annotated[int | None, Query(ge=0)] = None,
    customFieldSetID: str | None = None,
    validationState: wire.ValidationState | None = None,
) -> wire.ProductFilter:
    return query_model(wire.ProductFilter, locals())


ProductFilters = Annotated[wire.ProductFilter, Depends(product_filter)]


@router.reads("/devices", wire.ProductPage)
def list_products(sup: OfSupplier, paging: PageParams, filters: ProductFilters) -> dict[str, Any]:
    conn = sup.conn()
    where = store.product_where(sup.uid(conn), filters.model_dump(exclude_none=True))
    return paging.of(store.products, store.product_count, conn, where)


@router.creates("/devices", wire.Product)
def create_product(sup: OfSupplier, body: wire.ProductCreate) -> dict[str, Any]:
    with sup.write() as conn:
        owner = sup.uid(conn)
        values = PRODUCTS.new_values(conn, owner, body)
        vendor = store.supplier(conn, owner, custom_fields=False).get("exclusiveVendor")
        uid = store.create_product(
            conn, owner, values, _deprecated(body), now=now_ms(),
            vendor=vendor["ID"] if vendor else None,
        )  # fmt: skip
        return store.product(conn, uid, full=True, custom_fields=True)


add_item_routes(
    router, "/devices/{deviceUid}", OfProduct, (wire.Product, wire.ProductUpdate), PRODUCTS,
    "product",
)  # fmt: skip


def _create_version(conn: sqlite3.Connection, product: int, body: wire.ProductVersionCreate) -> int:
    return store.create_version(conn, product, _values(body), now=now_ms())


def _update_version(
    conn: sqlite3.Connection, _product: int, uid: int, body: wire.ProductVersionUpdate
) -> None:
    store.update_version(conn, uid, _update_values(body))


VERSIONS = Children(
    store.versions, store.version_count, _create_version, Item(store.version, _update_version)
)
add_children_routes(
    router, "/devices/{deviceUid}/versions", "versionUid", (OfProduct, OfVersion),
    (wire.ProductVersionPage, wire.ProductVersion, wire.ProductVersionCreate,
     wire.ProductVersionUpdate),
    VERSIONS, ("versions", "version"),
)  # fmt: skip


# --- orders and helpers ---------------------------------------------------------------------------


@router.reads("/subscribers/orders/{orderUid}", wire.Order)
def get_order(sup: OfSupplier, orderUid: str) -> dict[str, Any]:
    conn = sup.conn()
    return _found(store.order(conn, sup.uid(conn), _uid(orderUid, "order")), "order", orderUid)


@router.reads("/helpers/categories", wire.CategoryPage)
def helper_categories(
    sup: OfSupplier, paging: PageParams, type: str | None = None
) -> dict[str, Any]:
    """`type` exact; without it, SELLING categories only (§2.3)."""
    conn = sup.conn()
    sup.uid(conn)
    return paging.of(store.categories, store.category_count, conn, type)


@router.reads("/helpers/{target}/customFieldSets", wire.CustomFieldSetPage)
def helper_custom_field_sets(sup: OfSupplier, target: str, paging: PageParams) -> dict[str, Any]:
    """`target`: applications, devices or gateways (the gateway interface is deprecated; its
    helper list is still served, empty unless sets were made for it)."""
    if target not in wire.CUSTOM_FIELD_SET_TARGETS:
        raise not_found(f"no custom field sets for {target}")
    conn = sup.conn()
    sets, count = store.custom_field_sets, store.custom_field_set_count
    return paging.of(sets, count, conn, sup.uid(conn), target)


@router.reads("/helpers/vendors", wire.HelperVendorPage)
def helper_vendors(sup: OfSupplier, paging: PageParams) -> dict[str, Any]:
    conn = sup.conn()
    sup.uid(conn)
    return paging.of(store.vendors, store.vendor_count, conn)
