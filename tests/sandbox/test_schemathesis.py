"""Every operation of the served OpenAPI document, fuzzed by schemathesis against a real
sandbox app (its own temporary database), for an unrestricted and a domain-restricted
account: no answer is a 5xx, and every answer (status, content type, body, headers) is one
the served document allows.

Bounded so that it stays quick: a few derandomized examples per operation, no shrinking, no
example database. All failures are gathered and reported together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import checks
from schemathesis.specs.openapi import checks as openapi_checks

from lpwa_console.sandbox import SandboxSettings, create_app
from lpwa_console.sandbox.accounts import listing

from .conftest import TOKEN

EXAMPLES = 6
ROLES = ["subscriber", "subscriber-restricted"]
CHECKS: list[Callable[..., Any]] = [
    checks.not_a_server_error,
    openapi_checks.status_code_conformance,
    openapi_checks.content_type_conformance,
    openapi_checks.response_headers_conformance,
    openapi_checks.response_schema_conformance,
]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FastAPI]:
    app = create_app(
        SandboxSettings(db_path=tmp_path_factory.mktemp("fuzz") / "sandbox.db", demo_devices=40)
    )
    with TestClient(app):  # runs the lifespan, so the database is closed at the end
        yield app


def _token(app: FastAPI, role: str) -> str:
    account = next(a for a in listing(app.state.services.db.conn()) if a["role"] == role)
    with TestClient(app) as client:
        response = client.post(
            TOKEN,
            data={
                "grant_type": "client_credentials",
                "client_id": account["client_id"],
                "client_secret": account["client_secret"],
            },
        )
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def _empty_import_success(case: Any, response: Any) -> bool:
    """The device import answers 200 with an empty body when every line was applied, as
    the platform does (its reference documents it in prose beside an `application/json`
    error document): OpenAPI cannot say "JSON or nothing" for one status."""
    return (
        case.operation.path.endswith("/devices/import")
        and response.status_code == 200
        and not response.content
    )


@pytest.mark.parametrize("role", ROLES)
def test_every_operation_answers_as_its_schema_says(app: FastAPI, role: str) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    headers = {"Authorization": f"Bearer {_token(app, role)}"}
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @settings(
            max_examples=EXAMPLES,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],  # no shrinking
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def call(case: Any) -> None:
            response = case.call(headers=headers)
            if _empty_import_success(case, response):
                case.validate_response(response, checks=[checks.not_a_server_error])
            else:
                case.validate_response(response, checks=CHECKS)

        try:
            call()
        except (Exception, BaseExceptionGroup) as exc:  # gathered: reported all together
            failures.append(f"{operation.label}: {str(exc)[:2000]}")
    assert operations > 50  # the whole served document, not a fraction of it
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
