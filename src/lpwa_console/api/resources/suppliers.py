"""The supplier interface: `/suppliers/{supplierUid}` (`mine` by default: the caller's own
supplier; else its UID or `id:` + its ID)."""

from __future__ import annotations

from ...schema.common import path_segment
from ...schema.suppliers import (
    Application,
    ApplicationCreate,
    ApplicationFilter,
    ApplicationManifest,
    ApplicationManifestUpdate,
    ApplicationOption,
    ApplicationOptionCreate,
    ApplicationOptionPage,
    ApplicationOptionUpdate,
    ApplicationPage,
    ApplicationUpdate,
    CategoryFilter,
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
    Supplier,
    SupplierAdmin,
    SupplierAdminCreate,
    SupplierModulePage,
    SupplierRestricted,
    SupplierRestrictedUpdate,
    SupplierUpdate,
)
from ..pagination import page_params
from ._resource import APIResource

MINE = "mine"


class SuppliersResource(APIResource):
    """Every method takes `supplier=` (default `mine`)."""

    def _base(self, supplier: str) -> str:
        return f"/suppliers/{path_segment(supplier)}"

    # --- the supplier ----------------------------------------------------------------------

    async def get(self, *, custom_fields: bool = False, supplier: str = MINE) -> Supplier:
        """`custom_fields`: ask for `customFields` (sent only when asked)."""
        params = [("customFields", "true")] if custom_fields else None
        return await self._client.get(self._base(supplier), Supplier, params=params)

    async def update(self, update: SupplierUpdate, *, supplier: str = MINE) -> Supplier:
        return await self._client.put(self._base(supplier), Supplier, json=update.to_wire())

    async def update_restricted(
        self, update: SupplierRestrictedUpdate, *, supplier: str = MINE
    ) -> SupplierRestricted:
        """The contracting operator's part (validation state, exclusive vendor)."""
        return await self._client.put(
            f"{self._base(supplier)}/restricted", SupplierRestricted, json=update.to_wire()
        )

    async def create_admin(
        self, admin: SupplierAdminCreate, *, supplier: str = MINE
    ) -> SupplierAdmin:
        return await self._client.post(
            f"{self._base(supplier)}/admins", SupplierAdmin, json=admin.to_wire()
        )

    # --- service accounts, groups, modules ---------------------------------------------------

    async def service_accounts(
        self, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> ServiceAccountPage:
        return await self._client.get(
            f"{self._base(supplier)}/serviceAccounts",
            ServiceAccountPage,
            params=page_params(page_index, page_size),
        )

    async def service_account(self, account_id: str, *, supplier: str = MINE) -> ServiceAccount:
        return await self._client.get(
            f"{self._base(supplier)}/serviceAccounts/{path_segment(account_id)}", ServiceAccount
        )

    async def create_service_account(
        self, account: ServiceAccountCreate, *, supplier: str = MINE
    ) -> ServiceAccount:
        """POST (201). The answer has no secret: call `new_secret`."""
        return await self._client.post(
            f"{self._base(supplier)}/serviceAccounts", ServiceAccount, json=account.to_wire()
        )

    async def update_service_account(
        self, account_id: str, update: ServiceAccountUpdate, *, supplier: str = MINE
    ) -> ServiceAccount:
        return await self._client.put(
            f"{self._base(supplier)}/serviceAccounts/{path_segment(account_id)}",
            ServiceAccount,
            json=update.to_wire(),
        )

    async def delete_service_account(self, account_id: str, *, supplier: str = MINE) -> None:
        await self._client.delete(
            f"{self._base(supplier)}/serviceAccounts/{path_segment(account_id)}"
        )

    async def new_secret(self, account_id: str, *, supplier: str = MINE) -> ServiceAccountSecret:
        """A new secret (the former one stops working). It is answered this once: the caller
        shows it and drops it (a SecretStr, masked in reprs and logs)."""
        return await self._client.post(
            f"{self._base(supplier)}/serviceAccounts/{path_segment(account_id)}/secret",
            ServiceAccountSecret,
        )

    async def service_account_groups(
        self, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> ServiceAccountGroupPage:
        return await self._client.get(
            f"{self._base(supplier)}/serviceAccounts/groups",
            ServiceAccountGroupPage,
            params=page_params(page_index, page_size),
        )

    async def modules(
        self, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> SupplierModulePage:
        return await self._client.get(
            f"{self._base(supplier)}/modules",
            SupplierModulePage,
            params=page_params(page_index, page_size),
        )

    # --- applications -------------------------------------------------------------------------

    async def applications(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: ApplicationFilter | None = None,
        supplier: str = MINE,
    ) -> ApplicationPage:
        params = page_params(page_index, page_size) + (filters or ApplicationFilter()).to_params()
        return await self._client.get(
            f"{self._base(supplier)}/applications", ApplicationPage, params=params
        )

    def _app(self, supplier: str, app: str) -> str:
        return f"{self._base(supplier)}/applications/{path_segment(app)}"

    async def application(
        self, app: str, *, custom_fields: bool = False, supplier: str = MINE
    ) -> Application:
        params = [("customFields", "true")] if custom_fields else None
        return await self._client.get(self._app(supplier, app), Application, params=params)

    async def create_application(
        self, app: ApplicationCreate, *, supplier: str = MINE
    ) -> Application:
        """POST (201): the new application is ACTIVE."""
        return await self._client.post(
            f"{self._base(supplier)}/applications", Application, json=app.to_wire()
        )

    async def update_application(
        self, app: str, update: ApplicationUpdate, *, supplier: str = MINE
    ) -> Application:
        return await self._client.put(self._app(supplier, app), Application, json=update.to_wire())

    async def manifest(self, app: str, *, supplier: str = MINE) -> ApplicationManifest:
        return await self._client.get(f"{self._app(supplier, app)}/manifest", ApplicationManifest)

    async def update_manifest(
        self, app: str, manifest: ApplicationManifestUpdate, *, supplier: str = MINE
    ) -> ApplicationManifest:
        return await self._client.put(
            f"{self._app(supplier, app)}/manifest", ApplicationManifest, json=manifest.to_wire()
        )

    async def manifest_permissions(
        self, app: str, *, supplier: str = MINE
    ) -> ManifestPermissionPage:
        return await self._client.get(
            f"{self._app(supplier, app)}/manifest/permissions", ManifestPermissionPage
        )

    async def options(
        self, app: str, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> ApplicationOptionPage:
        return await self._client.get(
            f"{self._app(supplier, app)}/options",
            ApplicationOptionPage,
            params=page_params(page_index, page_size),
        )

    async def option(self, app: str, option: str, *, supplier: str = MINE) -> ApplicationOption:
        return await self._client.get(
            f"{self._app(supplier, app)}/options/{path_segment(option)}", ApplicationOption
        )

    async def create_option(
        self, app: str, option: ApplicationOptionCreate, *, supplier: str = MINE
    ) -> ApplicationOption:
        return await self._client.post(
            f"{self._app(supplier, app)}/options", ApplicationOption, json=option.to_wire()
        )

    async def update_option(
        self, app: str, option: str, update: ApplicationOptionUpdate, *, supplier: str = MINE
    ) -> ApplicationOption:
        return await self._client.put(
            f"{self._app(supplier, app)}/options/{path_segment(option)}",
            ApplicationOption,
            json=update.to_wire(),
        )

    # --- devices sold (products) and versions ---------------------------------------------------

    async def products(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: ProductFilter | None = None,
        supplier: str = MINE,
    ) -> ProductPage:
        params = page_params(page_index, page_size) + (filters or ProductFilter()).to_params()
        return await self._client.get(f"{self._base(supplier)}/devices", ProductPage, params=params)

    def _product(self, supplier: str, product: str) -> str:
        return f"{self._base(supplier)}/devices/{path_segment(product)}"

    async def product(
        self, product: str, *, custom_fields: bool = False, supplier: str = MINE
    ) -> Product:
        params = [("customFields", "true")] if custom_fields else None
        return await self._client.get(self._product(supplier, product), Product, params=params)

    async def create_product(self, product: ProductCreate, *, supplier: str = MINE) -> Product:
        return await self._client.post(
            f"{self._base(supplier)}/devices", Product, json=product.to_wire()
        )

    async def update_product(
        self, product: str, update: ProductUpdate, *, supplier: str = MINE
    ) -> Product:
        return await self._client.put(
            self._product(supplier, product), Product, json=update.to_wire()
        )

    async def versions(
        self, product: str, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> ProductVersionPage:
        return await self._client.get(
            f"{self._product(supplier, product)}/versions",
            ProductVersionPage,
            params=page_params(page_index, page_size),
        )

    async def version(self, product: str, version: str, *, supplier: str = MINE) -> ProductVersion:
        return await self._client.get(
            f"{self._product(supplier, product)}/versions/{path_segment(version)}",
            ProductVersion,
        )

    async def create_version(
        self, product: str, version: ProductVersionCreate, *, supplier: str = MINE
    ) -> ProductVersion:
        return await self._client.post(
            f"{self._product(supplier, product)}/versions", ProductVersion, json=version.to_wire()
        )

    async def update_version(
        self, product: str, version: str, update: ProductVersionUpdate, *, supplier: str = MINE
    ) -> ProductVersion:
        return await self._client.put(
            f"{self._product(supplier, product)}/versions/{path_segment(version)}",
            ProductVersion,
            json=update.to_wire(),
        )

    # --- orders and helpers ------------------------------------------------------------------

    async def order(self, order: str, *, supplier: str = MINE) -> Order:
        return await self._client.get(
            f"{self._base(supplier)}/subscribers/orders/{path_segment(order)}", Order
        )

    async def categories(
        self,
        page_index: int = 1,
        page_size: int = 100,
        *,
        filters: CategoryFilter | None = None,
        supplier: str = MINE,
    ) -> CategoryPage:
        """Without a `type` filter, SELLING categories only."""
        params = page_params(page_index, page_size) + (filters or CategoryFilter()).to_params()
        return await self._client.get(
            f"{self._base(supplier)}/helpers/categories", CategoryPage, params=params
        )

    async def custom_field_sets(
        self, target: str, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> CustomFieldSetPage:
        """`target`: applications, devices or gateways."""
        return await self._client.get(
            f"{self._base(supplier)}/helpers/{path_segment(target)}/customFieldSets",
            CustomFieldSetPage,
            params=page_params(page_index, page_size),
        )

    async def vendors(
        self, page_index: int = 1, page_size: int = 100, *, supplier: str = MINE
    ) -> HelperVendorPage:
        return await self._client.get(
            f"{self._base(supplier)}/helpers/vendors",
            HelperVendorPage,
            params=page_params(page_index, page_size),
        )
