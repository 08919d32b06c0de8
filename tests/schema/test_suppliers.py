"""Supplier shapes (Document 2 §2.3): what a request accepts and refuses, what a client may
send back as it read it, the stock filter's grouping and ranges, a secret kept masked."""

from __future__ import annotations

import warnings

import pytest
from pydantic import ValidationError

from lpwa_console.schema.common import accepting_deprecated_fields
from lpwa_console.schema.suppliers import (
    OUT_OF_STOCK,
    STOCK_STATUSES,
    ApplicationCreate,
    ApplicationManifestUpdate,
    Product,
    ProductCreate,
    ProductFilter,
    ProductUpdate,
    ServiceAccountCreate,
    ServiceAccountSecret,
    SupplierAdminCreate,
    SupplierRestrictedUpdate,
    SupplierUpdate,
    statuses_of,
)


def test_out_stock_groups_every_status_but_in_stock() -> None:
    assert statuses_of("OUT_STOCK") == OUT_OF_STOCK == ("P7D", "P15D", "P1M", "RESTOCKING",
                                                         "SOLD_OUT")  # fmt: skip
    assert statuses_of("IN_STOCK") == ("IN_STOCK",)
    assert set(STOCK_STATUSES) == {"IN_STOCK", *OUT_OF_STOCK}


def test_product_filter_params_and_ranges() -> None:
    filters = ProductFilter(SKU="WM-1", minUpfrontPrice=10, maxUpfrontPrice=10, status="OUT_STOCK",
                            minStock=0, maxStock=5, customFieldSetID="radio",
                            validationState="VALIDATED")  # fmt: skip
    assert filters.to_params() == [
        ("SKU", "WM-1"), ("minUpfrontPrice", "10.0"), ("maxUpfrontPrice", "10.0"),
        ("status", "OUT_STOCK"), ("minStock", "0"), ("maxStock", "5"),
        ("customFieldSetID", "radio"), ("validationState", "VALIDATED"),
    ]  # fmt: skip
    assert ProductFilter().is_empty()
    for bad in ({"status": "LOW"}, {"minStock": -1}, {"minUpfrontPrice": 3, "maxUpfrontPrice": 2},
                {"minStock": 4, "maxStock": 3}, {"validationState": "TEST"}):  # fmt: skip
        with pytest.raises(ValidationError):
            ProductFilter.model_validate(bad)


def test_product_read_then_sent_back() -> None:
    read = Product.model_validate(
        {
            "ID": "5",
            "name": "Tracker",
            "SKU": "TR-1",
            "href": "/suppliers/1/devices/5",
            "validationState": "VALIDATED",
            "versionCount": 0,
            "vendor": {"ID": "abeeway"},
            "customFieldSet": {"ID": "radio", "name": "Radio"},
            "stock": 3,
            "status": "P7D",
            "creationDate": 1,
        }
    )
    update = ProductUpdate.model_validate(read.model_dump(exclude_none=True))
    assert update.customFieldSet is not None and update.customFieldSet.ID == "radio"
    assert "validationState" not in update.to_wire() and "href" not in update.to_wire()
    with pytest.raises(ValidationError):
        ProductCreate.model_validate({"name": "x", "colour": "red"})
    with pytest.raises(ValidationError):
        ProductCreate.model_validate({"SKU": "no name"})
    with pytest.raises(ValidationError):
        ProductCreate(name="x", stock=-1)


def test_deprecated_fields_warn_the_code_that_sets_them() -> None:
    with pytest.warns(DeprecationWarning, match="weight"):
        ProductCreate(name="x", weight=1.5)
    with pytest.warns(DeprecationWarning, match="apiOnly"):
        SupplierAdminCreate(email="a@b.example", apiOnly=True)
    with pytest.warns(DeprecationWarning, match="recurringPrice"):
        ApplicationCreate(name="x", recurringPrice=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        with accepting_deprecated_fields():
            assert SupplierUpdate(currency="EUR").deprecated_fields_set() == {
                "currency": "no longer used"
            }
        ProductCreate(name="x", upfrontPrice=5, stock=1, status="IN_STOCK")  # not deprecated here


def test_other_requests() -> None:
    assert ApplicationCreate(name="a").to_wire() == {"name": "a"}  # no state: the server's
    with pytest.raises(ValidationError, match="each permission ID once"):
        ApplicationManifestUpdate.model_validate({"permissions": [{"ID": "a"}, {"ID": "a"}]})
    with pytest.raises(ValidationError):
        ServiceAccountCreate(name="")
    with pytest.raises(ValidationError):
        SupplierAdminCreate(email="not an address")
    assert SupplierRestrictedUpdate(exclusiveVendor=None).to_wire() == {"exclusiveVendor": None}
    with pytest.raises(ValidationError):
        SupplierRestrictedUpdate.model_validate({"validationState": "TEST"})


def test_a_secret_stays_masked() -> None:
    secret = ServiceAccountSecret.model_validate({"ID": "sa", "clientSecret": "abc123xyz"})
    assert secret.clientSecret.get_secret_value() == "abc123xyz"
    assert "abc123xyz" not in repr(secret) and "abc123xyz" not in str(secret)
    assert "abc123xyz" not in secret.model_dump_json()
