"""The supplier's view (Document 2 §4.2) over the shared resource view-model: applications
(with their manifest and options), devices sold (products, with versions and stock),
service accounts (a new secret shown once) and orders.

Each list is a `ResourceKind`; what the shared view-model does not do is here:
  - `SupplierAccess`: whether the signed-in account is a supplier's (GET /suppliers/mine),
    checked once per client when the pane is first shown; the lists load only then, so
    another account sees a clear empty state instead of refusals.
  - `SecretIssuer`: asks for a service account's new secret and hands it to the pane once
    (a SecretStr: never in a repr, a log or the task list); it keeps nothing.
  - Orders: the platform reads one order by its number and lists none, so the orders list
    is an order number looked up (one row, or none).
"""

from __future__ import annotations

import logging
from typing import Any, Literal

from pydantic import BaseModel, SecretStr
from PySide6.QtCore import QObject, Signal

from ..api import LpwaClient, NotFoundError, PermissionDeniedError
from ..schema.common import ListEnvelope, QueryFilter
from ..schema.labels import STOCK_WORDS, field_words
from ..schema.suppliers import (
    ApplicationCreate,
    ApplicationFilter,
    ApplicationManifestUpdate,
    ApplicationOptionCreate,
    ApplicationUpdate,
    Order,
    ProductCreate,
    ProductFilter,
    ProductUpdate,
    ProductVersionCreate,
    ServiceAccountCreate,
    ServiceAccountUpdate,
    Supplier,
)
from .columns import name_and_id, time_column
from .formatting import format_time
from .latest import Latest
from .paged_table import RIGHT, Column
from .resources import FilterControl, ResourceKind, ResourcePart, ResourceViewModel, read_by_id
from .tasks import TaskRunner

log = logging.getLogger(__name__)

MANIFEST = "Manifest"
OPTION = "Option"
VERSION = "Version"
OPTIONS = "Options"
VERSIONS = "Versions"

NOT_A_SUPPLIER = (
    "This account is not a supplier's: the Suppliers pane shows a device supplier's "
    "applications, products, service accounts and orders. Sign in with a supplier account "
    "to use it."
)

# --- words ---------------------------------------------------------------------------------


def stock_words(status: str | None) -> str:
    return STOCK_WORDS.get(status or "", status or "")


def _validation(value: str | None) -> str:
    return field_words("validationState").choice_words(value) if value else ""


def _price(value: float | None) -> str:
    return "" if value is None else f"{value:,.2f}"


def product_stock(item: Any) -> str:
    """The stock column: the device's own, or that its versions hold it."""
    if item.versionCount:
        return f"per version ({item.versionCount})"
    return "" if item.stock is None else f"{item.stock:,}"


def product_availability(item: Any) -> str:
    if item.versionCount:
        return "see versions"
    return stock_words(item.status)


# Filter choices in words: (label, value of ProductFilter.status).
AVAILABILITY_CHOICES: tuple[tuple[str, Any], ...] = (
    ("Any availability", None),
    ("In stock", "IN_STOCK"),
    ("Out of stock (any reason)", "OUT_STOCK"),
    *((STOCK_WORDS[s], s) for s in ("P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT")),
)
VALIDATION_CHOICES: tuple[tuple[str, Any], ...] = (
    ("Any validation", None),
    ("Being validated", "VALIDATING"),
    ("Validated", "VALIDATED"),
    ("Suspended", "SUSPENDED"),
)


# --- extras: what a detail shows besides the item ------------------------------------------------


def _listed(items: list[Any], describe: Any) -> dict[str, str]:
    """{name: words} for a detail section (names made unique; a dot, which the detail
    reads as a path, shown as a one-dot leader: "v1.0")."""
    out: dict[str, str] = {}
    for item in items:
        name = str(item.name or item.ID).replace(".", "\u2024")
        while name in out:
            name += " "
        out[name] = describe(item)
    return out


def _option_words(option: Any) -> str:
    return f"SKU {option.SKU}" if option.SKU else "no SKU"


def _version_words(version: Any) -> str:
    stock = "" if version.stock is None else f"{version.stock:,} in stock · "
    return f"{stock}{stock_words(version.status) or 'availability not given'}"


async def application_extras(client: LpwaClient, app: Any) -> dict[str, Any]:
    manifest = await client.suppliers.manifest(app.ID)
    options = await client.suppliers.options(app.ID, 1, 1000)
    return {
        MANIFEST: manifest,
        OPTIONS: _listed(options.briefs, _option_words) or {"Options": "none yet"},
    }


async def product_extras(client: LpwaClient, product: Any) -> dict[str, Any]:
    if not product.versionCount:
        return {VERSIONS: {"Versions": "none: the stock above is the device's own"}}
    versions = await client.suppliers.versions(product.ID, 1, 1000)
    return {VERSIONS: _listed(versions.briefs, _version_words)}


# --- orders ----------------------------------------------------------------------------------


class OrderLookup(QueryFilter):
    """The orders "list": one order number to read."""

    order: str | None = None


async def order_page(client: LpwaClient, lookup: OrderLookup | None) -> ListEnvelope[Order]:
    number = (lookup.order or "").strip() if lookup else ""
    if not number:
        return ListEnvelope[Order](briefs=[], count=0)
    try:
        found = await client.suppliers.order(number)
    except NotFoundError:
        return ListEnvelope[Order](briefs=[], count=0)
    return ListEnvelope[Order](briefs=[found], count=1)


def _order_lines(order: Order) -> list[Any]:
    context = order.orderContext
    return list(context.products.product) if context and context.products else []


def order_total(order: Order) -> str:
    """Units times price and tax, per currency, plus the shipping tax."""
    totals: dict[str, float] = {}
    for line in _order_lines(order):
        each = (line.upfrontPrice or 0) + (line.upfrontTax or 0)
        key = line.currency or ""
        totals[key] = totals.get(key, 0.0) + each * line.quantity
    context = order.orderContext
    shipping = context.shippingMode if context else None
    if shipping and shipping.supplierUpfrontTax and totals:
        first = next(iter(totals))
        totals[first] += shipping.supplierUpfrontTax
    return ", ".join(f"{v:,.2f} {k}".strip() for k, v in totals.items())


# --- the kinds -------------------------------------------------------------------------------


def applications_kind() -> ResourceKind:
    return ResourceKind(
        key="supplier_applications",
        title="Applications",
        noun="application",
        columns=[
            Column("Name", lambda a: a.name, width=220),
            Column("SKU", lambda a: a.SKU or "", width=120),
            Column("State", lambda a: (a.state or "").title(), width=80),
            Column("Validation", lambda a: _validation(a.validationState), width=110),
            time_column("Created", "creationDate"),
        ],
        list_page=lambda c, p, s, _sort, _d, f: c.suppliers.applications(p, s, filters=f),
        filters=ApplicationFilter(),
        filter_controls=(
            FilterControl("SKU", "SKU (exact)…", "search", tooltip="The application with this SKU"),
        ),
        **read_by_id(lambda c, i: c.suppliers.application(i, custom_fields=True)),
        extras=application_extras,
        create_model=ApplicationCreate,
        update_model=ApplicationUpdate,
        create=lambda c, r: c.suppliers.create_application(r),
        update=lambda c, a, r: c.suppliers.update_application(a.ID, r),
        parts=(
            ResourcePart(
                key=MANIFEST,
                action="Edit manifest…",
                model=ApplicationManifestUpdate,
                save=lambda c, a, r: c.suppliers.update_manifest(a.ID, r),
            ),
            ResourcePart(
                key=OPTION,
                action="New option…",
                model=ApplicationOptionCreate,
                save=lambda c, a, r: c.suppliers.create_option(a.ID, r),
            ),
        ),
    )


def products_kind() -> ResourceKind:
    return ResourceKind(
        key="supplier_products",
        title="Products",
        noun="product",
        columns=[
            Column("Name", lambda p: p.name, width=200),
            Column("SKU", lambda p: p.SKU or "", width=90),
            Column("Price", lambda p: _price(p.upfrontPrice), alignment=RIGHT, width=80),
            Column("Stock", product_stock, alignment=RIGHT, width=100),
            Column("Availability", product_availability, width=160),
            Column("Validation", lambda p: _validation(p.validationState), width=110),
            Column("Vendor", lambda p: (p.vendor.name or p.vendor.ID) if p.vendor else ""),
        ],
        list_page=lambda c, p, s, _sort, _d, f: c.suppliers.products(p, s, filters=f),
        filters=ProductFilter(),
        filter_controls=(
            FilterControl("SKU", "SKU (exact)…", "search", tooltip="The product with this SKU"),
            FilterControl.choice(
                "status",
                AVAILABILITY_CHOICES,
                tooltip="A product with versions matches when one of its versions does",
            ),
            FilterControl.choice("validationState", VALIDATION_CHOICES),
            *FilterControl.range("UpfrontPrice", "Price", tooltip="Inclusive"),
            *FilterControl.range("Stock", "Stock", tooltip="Units, inclusive"),
            FilterControl(
                "customFieldSetID",
                "Custom field set ID…",
                "search",
                tooltip="Products that fill this custom field set (exact ID)",
            ),
        ),
        **read_by_id(lambda c, i: c.suppliers.product(i, custom_fields=True)),
        extras=product_extras,
        create_model=ProductCreate,
        update_model=ProductUpdate,
        create=lambda c, r: c.suppliers.create_product(r),
        update=lambda c, p, r: c.suppliers.update_product(p.ID, r),
        parts=(
            ResourcePart(
                key=VERSION,
                action="New version…",
                model=ProductVersionCreate,
                save=lambda c, p, r: c.suppliers.create_version(p.ID, r),
            ),
        ),
    )


def service_accounts_kind() -> ResourceKind:
    return ResourceKind(
        key="supplier_service_accounts",
        title="Service accounts",
        noun="service account",
        columns=[
            *name_and_id(200, 220, id_header="Client ID"),
            Column("Group", lambda a: (a.group.name or a.group.ID) if a.group else "", width=120),
            Column(
                "Secret",
                lambda a: f"made {format_time(a.secretDate)}" if a.secretDate else "none yet",
                width=150,
            ),
            time_column("Created", "creationDate"),
        ],
        list_page=lambda c, p, s, _sort, _d, _f: c.suppliers.service_accounts(p, s),
        **read_by_id(lambda c, i: c.suppliers.service_account(i)),
        create_model=ServiceAccountCreate,
        update_model=ServiceAccountUpdate,
        create=lambda c, r: c.suppliers.create_service_account(r),
        update=lambda c, a, r: c.suppliers.update_service_account(a.ID, r),
        delete=lambda c, a: c.suppliers.delete_service_account(a.ID),
    )


def orders_kind() -> ResourceKind:
    return ResourceKind(
        key="supplier_orders",
        title="Orders",
        noun="order",
        columns=[
            Column("Order", lambda o: o.ID, width=80),
            Column(
                "Subscriber",
                lambda o: (o.subscriber.name or o.subscriber.ID) if o.subscriber else "",
                width=160,
            ),
            Column("State", lambda o: (o.state or "").replace("_", " ").capitalize(), width=90),
            Column(
                "Products",
                lambda o: ", ".join(
                    f"{line.quantity} × {line.name or line.ID}"  # noqa: RUF001
                    for line in _order_lines(o)
                ),
                width=260,
            ),
            Column("Total", order_total, alignment=RIGHT, width=110),
            time_column("Ordered", "creationDate"),
        ],
        list_page=lambda c, _p, _s, _sort, _d, f: order_page(c, f),
        filters=OrderLookup(),
        filter_controls=(
            FilterControl(
                "order",
                "Order number…",
                "search",
                tooltip="The platform reads one order by its number; it lists none",
            ),
        ),
        get_id=lambda c, i: c.suppliers.order(i),
        label=lambda o: f"order {o.ID}",
        empty_text="Type an order number above to read that order (the platform lists no orders)",
    )


def supplier_kinds() -> list[ResourceKind]:
    return [applications_kind(), products_kind(), service_accounts_kind(), orders_kind()]


# --- the account and the secrets ---------------------------------------------------------------

AccessState = Literal["unknown", "checking", "supplier", "not_supplier", "error"]


class SupplierAccess(QObject):
    """Whether the signed-in account is a supplier's, asked once per client."""

    changed = Signal()

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client: LpwaClient | None = None
        self.state: AccessState = "unknown"
        self.supplier: Supplier | None = None
        self.message = ""
        self._latest = Latest()

    @property
    def is_supplier(self) -> bool:
        return self.state == "supplier"

    def set_client(self, client: LpwaClient | None) -> None:
        self._latest.advance()
        self.client = client
        self.state = "unknown"
        self.supplier = None
        self.message = ""
        self.changed.emit()

    def ensure_checked(self) -> None:
        if self.client is None or self.state not in ("unknown", "error"):
            return
        generation = self._latest.ticket
        self.state = "checking"
        self.changed.emit()

        def done(supplier: Supplier) -> None:
            if self._latest.is_current(generation):
                self.state, self.supplier = "supplier", supplier
                self.changed.emit()

        def failed(exc: BaseException, message: str) -> None:
            if not self._latest.is_current(generation):
                return
            refused = isinstance(exc, PermissionDeniedError | NotFoundError)
            self.state = "not_supplier" if refused else "error"
            self.message = NOT_A_SUPPLIER if refused else f"Could not read the supplier: {message}"
            self.changed.emit()

        self.runner.run(
            "Read the supplier", self.client.suppliers.get(), on_done=done, on_error=failed,
            quiet=True,
        )  # fmt: skip

    def heading(self) -> str:
        """ "Demo Device Supplier · Validated", or '' before it is known."""
        if self.supplier is None:
            return ""
        state = _validation(self.supplier.validationState)
        return f"{self.supplier.name} · {state}" if state else self.supplier.name


class GatedResourceViewModel(ResourceViewModel):
    """A resource list that loads only once `access` says the account is a supplier's."""

    def __init__(self, runner: TaskRunner, kind: ResourceKind, access: SupplierAccess) -> None:
        super().__init__(runner, kind)
        self.access = access

    def ensure_loaded(self) -> None:
        if self.access.is_supplier:
            super().ensure_loaded()


class SecretIssuer(QObject):
    """Asks for a service account's new secret. `issued(account_id, SecretStr)` fires once
    with it; nothing here keeps it."""

    issued = Signal(str, object)  # service account ID, SecretStr
    failed = Signal(str)

    def __init__(self, runner: TaskRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self.client: LpwaClient | None = None
        self.busy = False

    def set_client(self, client: LpwaClient | None) -> None:
        self.client = client

    def new_secret(self, account_id: str) -> bool:
        if self.client is None or self.busy:
            return False
        self.busy = True

        def done(answer: Any) -> None:
            self.busy = False
            secret = answer.clientSecret
            self.issued.emit(account_id, secret if isinstance(secret, SecretStr) else None)

        def failed(_exc: BaseException, message: str) -> None:
            self.busy = False
            self.failed.emit(message)

        self.runner.run(
            f"New secret for service account {account_id}",
            self.client.suppliers.new_secret(account_id),
            on_done=done, on_error=failed, quiet=True,
        )  # fmt: skip
        return True


def supplier_view_models(runner: TaskRunner, access: SupplierAccess) -> list[ResourceViewModel]:
    return [GatedResourceViewModel(runner, kind, access) for kind in supplier_kinds()]


def part_prefill(key: str, vm: ResourceViewModel) -> BaseModel | None:
    """What a part's dialog starts from: the manifest as read; nothing for a new option or
    version."""
    current = vm.extras.get(key) if key == MANIFEST else None
    return current if isinstance(current, BaseModel) else None
