"""The supplier interface (`/suppliers/{supplierUid}`, Document 2 §2.3, §3 and §4.2): the
supplier, its admins, service accounts and their groups, modules, applications (with their
manifest, permissions and options), devices sold (products) and their versions, orders, and
the helper lists.

The reference publishes no shapes for this interface (a 2018 listing names its paths only):
the fields below are those §2.3 names, plus an ID, a name and a description where a resource
plainly has them. Deprecated fields are accepted and marked so (a client must no longer send
them); the deprecated trees (x509 certificates, gateways, shipping modes, order attachments,
categories of applications and devices) are not modelled (docs/architecture.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, model_validator
from pydantic.config import JsonDict

from .common import ApiModel, ListEnvelope, QueryFilter, RequestModel, ResourceRequest

ValidationState = Literal["VALIDATING", "VALIDATED", "SUSPENDED"]
VALIDATION_STATES: tuple[str, ...] = ("VALIDATING", "VALIDATED", "SUSPENDED")
# A product's inventory status (§3); OUT_STOCK, a list filter only, groups the last five.
StockStatus = Literal["IN_STOCK", "P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT"]
STOCK_STATUSES: tuple[str, ...] = ("IN_STOCK", "P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT")
OUT_OF_STOCK: tuple[str, ...] = STOCK_STATUSES[1:]
StockFilter = Literal["IN_STOCK", "OUT_STOCK", "P7D", "P15D", "P1M", "RESTOCKING", "SOLD_OUT"]
ModuleAuthentication = Literal["SMP", "OIDC"]
# The only application state the platform names (§3: TEST before release 7.3).
APPLICATION_STATES: tuple[str, ...] = ("ACTIVE",)


def statuses_of(wanted: str) -> tuple[str, ...]:
    """The stock statuses a `status` filter value stands for."""
    return OUT_OF_STOCK if wanted == "OUT_STOCK" else (wanted,)


# --- shared pieces -----------------------------------------------------------------------------


class NamedRef(ApiModel):
    """A reference to another resource: its ID and name."""

    ID: str
    name: str | None = None
    href: str | None = None


class CustomFieldSetRef(RequestModel):
    """A custom field set as sent: its ID (the name an answer gives is ignored)."""

    read_only_fields = frozenset({"name", "href"})

    ID: str = Field(min_length=1, max_length=64)


class PricePlan(ApiModel):
    """A product's price plan, as the supplier describes it (not interpreted)."""

    ID: str | None = None
    name: str | None = None
    version: int | None = None
    recurringPrice: float | None = None
    recurringPeriodicity: str | None = None


class PricePlanInput(RequestModel):
    ID: str | None = Field(default=None, max_length=64)
    name: str | None = Field(default=None, max_length=128)
    version: int | None = Field(default=None, ge=0)
    recurringPrice: float | None = Field(default=None, ge=0)
    recurringPeriodicity: str | None = Field(default=None, max_length=32)


# --- the supplier ------------------------------------------------------------------------------


class Supplier(ApiModel):
    """GET /suppliers/{supplierUid}. `customFields` only when asked (query customFields)."""

    ID: str
    name: str
    href: str | None = None
    email: str | None = None
    description: str | None = None
    validationState: ValidationState | None = None
    currency: str | None = None
    customFieldSet: NamedRef | None = None
    exclusiveVendor: NamedRef | None = None
    customFields: dict[str, str] | None = None
    creationDate: int | None = None


SUPPLIER_READ_ONLY = frozenset({"ID", "href", "creationDate", "customFieldSet"})


class SupplierUpdate(ResourceRequest):
    """PUT /suppliers/{supplierUid}: what the supplier itself may change. The validation
    state and the exclusive vendor belong to the contracting operator (PUT /restricted)."""

    read_only_fields = SUPPLIER_READ_ONLY | {"validationState", "exclusiveVendor"}

    name: str | None = Field(default=None, min_length=1, max_length=128)
    email: str | None = Field(default=None, max_length=254)
    description: str | None = Field(default=None, max_length=1024)
    currency: str | None = Field(default=None, max_length=3, deprecated="no longer used")
    customFields: dict[str, str] | None = None


class VendorInput(RequestModel):
    read_only_fields = frozenset({"name", "href"})

    ID: str = Field(min_length=1, max_length=64)


class SupplierRestricted(ApiModel):
    """PUT /suppliers/{supplierUid}/restricted: the answer."""

    validationState: ValidationState | None = None
    exclusiveVendor: NamedRef | None = None


class SupplierRestrictedUpdate(RequestModel):
    """PUT /suppliers/{supplierUid}/restricted: the validation state and the exclusive
    vendor (null: none), set by the contracting operator."""

    validationState: ValidationState | None = None
    exclusiveVendor: VendorInput | None = None


# --- admins, service accounts, groups, modules ---------------------------------------------------


class SupplierAdmin(ApiModel):
    ID: str
    email: str
    name: str | None = None
    apiOnly: bool | None = None
    creationDate: int | None = None


class SupplierAdminCreate(RequestModel):
    """POST /suppliers/{supplierUid}/admins. `apiOnly` is deprecated: service accounts are
    the way to reach the API (§5.3)."""

    email: str = Field(min_length=3, max_length=254, pattern=r"^[^@\s]+@[^@\s]+$")
    name: str | None = Field(default=None, max_length=128)
    apiOnly: bool | None = Field(default=None, deprecated="use a service account instead")


class ServiceAccount(ApiModel):
    """A service account: `ID` is its client ID (what signs in); no secret is ever listed."""

    ID: str
    name: str
    description: str | None = None
    group: NamedRef | None = None
    href: str | None = None
    creationDate: int | None = None
    secretDate: int | None = None  # when its current secret was made; None: none yet


class ServiceAccountPage(ListEnvelope[ServiceAccount]):
    pass


SERVICE_ACCOUNT_READ_ONLY = frozenset({"ID", "href", "creationDate", "secretDate"})


class GroupInput(RequestModel):
    read_only_fields = frozenset({"name", "href"})

    ID: str = Field(min_length=1, max_length=64)


class ServiceAccountCreate(ResourceRequest):
    """POST /suppliers/{supplierUid}/serviceAccounts. The answer has no secret: ask for one
    with POST .../secret."""

    read_only_fields = SERVICE_ACCOUNT_READ_ONLY

    name: str = Field(min_length=1, max_length=128)
    description: str | None = Field(default=None, max_length=1024)
    group: GroupInput | None = None


class ServiceAccountUpdate(ResourceRequest):
    read_only_fields = SERVICE_ACCOUNT_READ_ONLY

    name: str | None = Field(default=None, min_length=1, max_length=128)
    description: str | None = Field(default=None, max_length=1024)
    group: GroupInput | None = None


def _answered_once(schema: JsonDict) -> None:
    schema.pop("writeOnly", None)
    schema["readOnly"] = True


class ServiceAccountSecret(ApiModel):
    """POST .../serviceAccounts/{serviceAccountId}/secret: a new secret, given once (the
    platform keeps only a hash of it); the former one stops working."""

    ID: str
    # A SecretStr (never printed or logged), but answered: the schema says so, not writeOnly.
    clientSecret: SecretStr = Field(
        description="The new secret in clear, answered once, here, when it is made; never"
        " answered again (the platform keeps only its hash)",
        json_schema_extra=_answered_once,
    )
    secretDate: int | None = None


class ServiceAccountGroup(ApiModel):
    ID: str
    name: str
    description: str | None = None


class ServiceAccountGroupPage(ListEnvelope[ServiceAccountGroup]):
    pass


class SupplierModule(ApiModel):
    """A module; `authentication` is how it authenticates the admin user (SMP or OIDC)."""

    ID: str
    name: str | None = None
    authentication: ModuleAuthentication | None = None
    url: str | None = None


class SupplierModulePage(ListEnvelope[SupplierModule]):
    pass


# --- applications --------------------------------------------------------------------------------


class _Sellable(ApiModel):
    """What an application, an option and a product share."""

    ID: str
    name: str
    SKU: str | None = None
    description: str | None = None
    href: str | None = None
    creationDate: int | None = None


class ApplicationBrief(_Sellable):
    state: str | None = None
    validationState: ValidationState | None = None
    customFieldSet: NamedRef | None = None


class Application(ApplicationBrief):
    customFields: dict[str, str] | None = None
    # deprecated, read when a platform still sends them
    recurringInitialFreePeriod: str | None = None
    recurringPeriodicity: str | None = None
    recurringPrice: float | None = None
    upfrontPrice: float | None = None


class ApplicationPage(ListEnvelope[ApplicationBrief]):
    pass


APP_READ_ONLY = frozenset({"ID", "href", "creationDate", "validationState", "state"})
_DEPRECATED_PRICE = "prices are set in price plans"


class _ApplicationWritable(ResourceRequest):
    name: str | None = Field(default=None, min_length=1, max_length=128)
    SKU: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=1024)
    customFieldSet: CustomFieldSetRef | None = None
    customFields: dict[str, str] | None = None
    recurringInitialFreePeriod: str | None = Field(default=None, deprecated=_DEPRECATED_PRICE)
    recurringPeriodicity: str | None = Field(default=None, deprecated=_DEPRECATED_PRICE)
    recurringPrice: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_PRICE)
    upfrontPrice: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_PRICE)


class ApplicationCreate(_ApplicationWritable):
    """POST .../applications (201): the new application's state is ACTIVE."""

    read_only_fields = APP_READ_ONLY | {"categories"}

    name: str = Field(min_length=1, max_length=128)


class ApplicationUpdate(_ApplicationWritable):
    read_only_fields = APP_READ_ONLY | {"categories"}


class ApplicationFilter(QueryFilter):
    """SKU: exact."""

    SKU: str | None = None


class ManifestPermission(ApiModel):
    ID: str
    name: str | None = None
    description: str | None = None
    mandatory: bool | None = None


class ManifestPermissionPage(ListEnvelope[ManifestPermission]):
    pass


class ApplicationManifest(ApiModel):
    version: str | None = None
    description: str | None = None
    permissions: list[ManifestPermission] = Field(default_factory=list)
    m2mCredential: str | None = None  # deprecated


class ManifestPermissionInput(RequestModel):
    ID: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    name: str | None = Field(default=None, max_length=128)
    description: str | None = Field(default=None, max_length=1024)
    mandatory: bool | None = None
    m2mProfile: str | None = Field(default=None, deprecated="no longer used")


class ApplicationManifestUpdate(RequestModel):
    """PUT .../applications/{applicationUid}/manifest: the whole manifest."""

    version: str | None = Field(default=None, max_length=32)
    description: str | None = Field(default=None, max_length=1024)
    permissions: list[ManifestPermissionInput] | None = None
    m2mCredential: str | None = Field(default=None, deprecated="no longer used")

    @model_validator(mode="after")
    def _unique_permissions(self) -> ApplicationManifestUpdate:
        ids = [p.ID for p in self.permissions or []]
        if len(ids) != len(set(ids)):
            raise ValueError("permissions: each permission ID once")
        return self


class ApplicationOption(_Sellable):
    recurringPrice: float | None = None  # deprecated
    upfrontPrice: float | None = None  # deprecated


class ApplicationOptionPage(ListEnvelope[ApplicationOption]):
    pass


class _OptionWritable(ResourceRequest):
    read_only_fields = frozenset({"ID", "href", "creationDate"})

    name: str | None = Field(default=None, min_length=1, max_length=128)
    SKU: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=1024)
    recurringPrice: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_PRICE)
    upfrontPrice: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_PRICE)


class ApplicationOptionCreate(_OptionWritable):
    name: str = Field(min_length=1, max_length=128)


class ApplicationOptionUpdate(_OptionWritable):
    pass


# --- devices sold (products) and their versions -------------------------------------------------


class ProductVersion(ApiModel):
    ID: str
    name: str | None = None
    description: str | None = None
    stock: int | None = None
    status: StockStatus | None = None  # deprecated (§2.3), still what the stock filter reads
    href: str | None = None
    creationDate: int | None = None


class ProductVersionPage(ListEnvelope[ProductVersion]):
    pass


class _VersionWritable(ResourceRequest):
    read_only_fields = frozenset({"ID", "href", "creationDate"})

    name: str | None = Field(default=None, min_length=1, max_length=128)
    description: str | None = Field(default=None, max_length=1024)
    stock: int | None = Field(default=None, ge=0, le=10**9)
    status: StockStatus | None = None


class ProductVersionCreate(_VersionWritable):
    name: str = Field(min_length=1, max_length=128)


class ProductVersionUpdate(_VersionWritable):
    pass


class ProductBrief(_Sellable):
    """A device sold. `stock` and `status` are given only for a device without versions
    (§2.3); a device with versions has them per version (`versionCount` says how many)."""

    validationState: ValidationState | None = None
    customFieldSet: NamedRef | None = None
    upfrontPrice: float | None = None
    stock: int | None = None
    status: StockStatus | None = None
    versionCount: int | None = None
    vendor: NamedRef | None = None


class Product(ProductBrief):
    pricePlan: PricePlan | None = None
    customFields: dict[str, str] | None = None
    # deprecated dimensions
    weight: float | None = None
    width: float | None = None
    height: float | None = None
    depth: float | None = None


class ProductPage(ListEnvelope[ProductBrief]):
    pass


PRODUCT_READ_ONLY = frozenset(
    {"ID", "href", "creationDate", "validationState", "versionCount", "vendor"}
)
_DEPRECATED_DEVICE = "deprecated device field"


class _ProductWritable(ResourceRequest):
    name: str | None = Field(default=None, min_length=1, max_length=128)
    SKU: str | None = Field(default=None, max_length=64)
    description: str | None = Field(default=None, max_length=1024)
    customFieldSet: CustomFieldSetRef | None = None
    customFields: dict[str, str] | None = None
    pricePlan: PricePlanInput | None = None
    # §2.3 marks these deprecated, yet they are still the inventory the list filters read.
    upfrontPrice: float | None = Field(default=None, ge=0)
    stock: int | None = Field(default=None, ge=0, le=10**9)
    status: StockStatus | None = None
    weight: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_DEVICE)
    width: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_DEVICE)
    height: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_DEVICE)
    depth: float | None = Field(default=None, ge=0, deprecated=_DEPRECATED_DEVICE)


class ProductCreate(_ProductWritable):
    read_only_fields = PRODUCT_READ_ONLY | {"categories", "shipping"}

    name: str = Field(min_length=1, max_length=128)


class ProductUpdate(_ProductWritable):
    read_only_fields = PRODUCT_READ_ONLY | {"categories", "shipping"}


class ProductFilter(QueryFilter):
    """The device list's filters (§4.2): SKU, customFieldSetID and validationState exact;
    price and stock ranges inclusive; `status` IN_STOCK, OUT_STOCK (P7D, P15D, P1M,
    RESTOCKING or SOLD_OUT) or one of those. A device with versions matches the stock and
    status filters when one of its versions does."""

    SKU: str | None = None
    minUpfrontPrice: float | None = Field(default=None, ge=0)
    maxUpfrontPrice: float | None = Field(default=None, ge=0)
    status: StockFilter | None = None
    minStock: int | None = Field(default=None, ge=0)
    maxStock: int | None = Field(default=None, ge=0)
    customFieldSetID: str | None = None
    validationState: ValidationState | None = None

    @model_validator(mode="after")
    def _ranges(self) -> ProductFilter:
        low, high = self.minUpfrontPrice, self.maxUpfrontPrice
        if low is not None and high is not None and low > high:
            raise ValueError("maxUpfrontPrice: below minUpfrontPrice")
        low_stock, high_stock = self.minStock, self.maxStock
        if low_stock is not None and high_stock is not None and low_stock > high_stock:
            raise ValueError("maxStock: below minStock")
        return self


# --- orders ---------------------------------------------------------------------------------------


class OrderShippingMode(ApiModel):
    ID: str | None = None
    name: str | None = None
    supplierUpfrontTax: float | None = None


class OrderProduct(ApiModel):
    ID: str
    name: str | None = None
    SKU: str | None = None
    version: str | None = None
    quantity: int = 1
    upfrontPrice: float | None = None
    upfrontTax: float | None = None
    pricePlanVersion: int | None = None
    currency: str | None = None


class OrderProducts(ApiModel):
    product: list[OrderProduct] = Field(default_factory=list)


class OrderContext(ApiModel):
    shippingMode: OrderShippingMode | None = None
    products: OrderProducts | None = None


class Order(ApiModel):
    """GET /suppliers/{supplierUid}/subscribers/orders/{orderUid}."""

    ID: str
    state: str | None = None
    subscriber: NamedRef | None = None
    creationDate: int | None = None
    orderContext: OrderContext | None = None


# --- helpers --------------------------------------------------------------------------------------


class Category(ApiModel):
    ID: str
    name: str | None = None
    type: str | None = None


class CategoryPage(ListEnvelope[Category]):
    pass


class CategoryFilter(QueryFilter):
    """`type` exact; without it only SELLING categories are listed (§2.3)."""

    type: str | None = None


class CustomField(ApiModel):
    name: str
    label: str | None = None
    required: bool | None = None


class CustomFieldSet(ApiModel):
    ID: str
    name: str | None = None
    fields: list[CustomField] = Field(default_factory=list)


class CustomFieldSetPage(ListEnvelope[CustomFieldSet]):
    pass


class HelperVendor(ApiModel):
    ID: str
    name: str | None = None


class HelperVendorPage(ListEnvelope[HelperVendor]):
    pass


# The targets of /helpers/{target}/customFieldSets.
CUSTOM_FIELD_SET_TARGETS: tuple[str, ...] = ("applications", "devices", "gateways")
