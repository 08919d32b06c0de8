"""The supplier interface's operations fuzzed by schemathesis as the supplier account (the
whole-document run signs in as subscribers, who are refused here): no 5xx, and every answer
is one the served document allows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings

from lpwa_console.sandbox import SandboxSettings, create_app

from .test_schemathesis import CHECKS, EXAMPLES, _token


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    app = create_app(
        SandboxSettings(db_path=tmp_path_factory.mktemp("fuzz") / "sandbox.db", demo_devices=20)
    )
    with TestClient(app):
        yield app


def test_supplier_operations_answer_as_their_schema_says(app: FastAPI) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    headers = {"Authorization": f"Bearer {_token(app, 'supplier')}"}
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        if "/suppliers/" not in operation.path:
            continue
        operations += 1

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def call(case: Any) -> None:
            if "supplierUid" in (case.path_parameters or {}):
                case.path_parameters["supplierUid"] = "mine"  # reach the supplier's items
            case.validate_response(case.call(headers=headers), checks=CHECKS)

        try:
            call()
        except (Exception, BaseExceptionGroup) as exc:
            failures.append(f"{operation.label}: {str(exc)[:2000]}")
    assert operations >= 30
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
