"""The base client: owns the transport, authentication, retries and error mapping.

Resources (resources/*.py) only say a path, parameters and a response type.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from ._retry import RETRY_STATUSES, backoff_delay
from ._tolerant import MismatchLog, read_tolerantly
from .auth import Credentials, TokenProvider
from .errors import (
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    AuthenticationError,
    FeatureNotOffered,
    status_error,
)

log = logging.getLogger(__name__)

# httpcore asks sniffio which async library runs, several times a request. anyio 4 no longer
# installs sniffio, and then each ask is a failed import that searches sys.path (0.5 ms, on
# the UI thread, measured by bench/bulk_commands.py). A None entry fails it at once, and
# httpcore then takes asyncio, which is what runs.
if importlib.util.find_spec("sniffio") is None:
    sys.modules.setdefault("sniffio", None)  # type: ignore[arg-type]

M = TypeVar("M", bound=BaseModel)


class PlainHttpOnly(httpx.AsyncBaseTransport):
    """The https:// side of a client made for plain-http URLs only: it has no TLS set up, so
    it refuses to connect rather than connect without verifying."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(
            f"{request.url.host}: HTTPS was not expected (this client is for plain HTTP URLs)",
            request=request,
        )


def http_client(urls: list[str], *, timeout: float, verify: bool) -> httpx.AsyncClient:
    """The HTTP client of a platform client that asks `urls` (the API's and the token's).
    A verifying client loads the CA bundle into an SSL context when it is made (~40 ms of a
    sign-in, issue 8); one whose URLs are all plain http (the embedded sandbox on loopback)
    never uses it: it gets no TLS, and refuses https:// (PlainHttpOnly) rather than use one
    without verification. Verification stays on for every https URL."""
    limits = httpx.Limits(max_connections=16, max_keepalive_connections=8)
    headers = {"User-Agent": "lpwa-console"}
    if urls and all(httpx.URL(url).scheme == "http" for url in urls):
        # verify=False: an SSL context without certificates, which plain http never uses.
        plain = httpx.AsyncHTTPTransport(verify=False, limits=limits)
        return httpx.AsyncClient(
            timeout=timeout, headers=headers, transport=plain, mounts={"https://": PlainHttpOnly()}
        )
    return httpx.AsyncClient(timeout=timeout, verify=verify, limits=limits, headers=headers)


IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

# Set (to anything but "" or "0") in the test suite's environment: every client reads strictly
# unless told otherwise (the sandbox's tests check what the seed makes required).
STRICT_ENV = "LPWA_STRICT_RESPONSES"


def strict_by_default() -> bool:
    return os.environ.get(STRICT_ENV, "") not in ("", "0")


QueryParams = Mapping[str, str | int | float] | list[tuple[str, str]]
JSON = "application/json"


class BaseClient:
    def __init__(
        self,
        base_url: str,
        credentials: Credentials | None = None,
        *,
        http: httpx.AsyncClient | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        verify: bool = True,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        strict_responses: bool | None = None,
    ) -> None:
        """`strict_responses`: an answer that does not have the schema's shape fails with
        APIResponseValidationError. By default (False, unless LPWA_STRICT_RESPONSES is set)
        answers are read tolerantly (`_tolerant`): what does not fit is unknown (None), said
        once per field path in the log."""
        self.strict_responses = (
            strict_by_default() if strict_responses is None else strict_responses
        )
        self._mismatches = MismatchLog()
        self.base_url = base_url.rstrip("/")
        self._owns_http = http is None
        urls = [self.base_url] + ([credentials.token_url] if credentials else [])
        self._http = http or http_client(urls, timeout=timeout, verify=verify)
        # The token request is retried as a GET is: a blip at renewal must not fail a request.
        self._auth = (
            TokenProvider(
                credentials, self._http, max_retries=max_retries, backoff_s=backoff_s, sleep=sleep
            )
            if credentials
            else None
        )
        self.max_retries = max_retries
        self._backoff_s = backoff_s
        self._sleep = sleep

    @property
    def token_provider(self) -> TokenProvider | None:
        return self._auth

    async def aclose(self) -> None:
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> BaseClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- typed helpers used by resources ---------------------------------------------------

    async def get(
        self,
        path: str,
        response_type: type[M],
        *,
        params: QueryParams | None = None,
        accept: str = JSON,
        feature: str | None = None,
        not_offered_on: tuple[int, ...] = (404, 405),
    ) -> M:
        """GET and parse the JSON answer; `accept` names a JSON media type other than
        application/json when the resource offers several representations. `feature`: the
        path is a collection the account should have, whose 404 or 405 means the platform
        does not offer it (FeatureNotOffered, saying `feature`); `not_offered_on`, the
        statuses that mean so (a path that a platform without it reads as an item's)."""
        response = await self.request(
            "GET",
            path,
            params=params,
            accept=accept,
            feature=feature,
            not_offered_on=not_offered_on,
        )
        return self._parse(response, response_type)

    async def post(
        self,
        path: str,
        response_type: type[M],
        *,
        json: Any = None,
        params: QueryParams | None = None,
        files: Any = None,
    ) -> M:
        response = await self.request("POST", path, json=json, params=params, files=files)
        return self._parse(response, response_type)

    async def put(self, path: str, response_type: type[M], *, json: Any = None) -> M:
        return self._parse(await self.request("PUT", path, json=json), response_type)

    async def delete(self, path: str) -> None:
        await self.request("DELETE", path)

    def _parse(self, response: httpx.Response, response_type: type[M]) -> M:
        content = response.content or b"{}"
        try:
            return response_type.model_validate_json(content)
        except ValidationError as exc:
            error = exc
        if not self.strict_responses:
            try:
                data = json.loads(content)
            except ValueError:
                pass
            else:
                try:
                    return read_tolerantly(response_type, data, self._mismatches)
                except ValidationError as exc:
                    error = exc
        raise APIResponseValidationError(
            f"Unexpected answer from {response.request.url.path}: {error.error_count()} "
            f"field(s) do not match {response_type.__name__}",
            response=response,
        ) from error

    # --- the one road every request takes ---------------------------------------------------

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: QueryParams | None = None,
        json: Any = None,
        files: Any = None,
        accept: str = JSON,
        feature: str | None = None,
        not_offered_on: tuple[int, ...] = (404, 405),
    ) -> httpx.Response:
        """Send one request (with retries, token renewal and the error tree); `accept` is the
        Accept header, application/json unless the caller asks for another representation."""
        url = self.base_url + path
        method = method.upper()
        idempotent = method in IDEMPOTENT
        reauthenticated = False
        attempt = 0
        while True:
            headers = {"Accept": accept}
            token = await self._auth.token() if self._auth else None
            if token:
                headers["Authorization"] = f"Bearer {token}"
            request = self._http.build_request(
                method,
                url,
                params=httpx.QueryParams(params) if params is not None else None,  # type: ignore[arg-type]
                json=json,
                files=files,
                headers=headers,
            )
            started = time.perf_counter()
            try:
                response = await self._http.send(request)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                # The connection never opened (or no pooled one freed up): nothing reached the
                # server, so even a POST may go again.
                if attempt < self.max_retries:
                    await self._backoff(attempt, None)
                    attempt += 1
                    continue
                if isinstance(exc, httpx.TimeoutException):
                    raise APITimeoutError(request) from exc
                raise APIConnectionError(
                    f"Cannot connect to {self.base_url}", request=request
                ) from exc
            except httpx.TransportError as exc:
                # The request may have been applied: only idempotent requests go again.
                if idempotent and attempt < self.max_retries:
                    await self._backoff(attempt, None)
                    attempt += 1
                    continue
                if isinstance(exc, httpx.TimeoutException):
                    raise APITimeoutError(request, maybe_applied=not idempotent) from exc
                hint = "" if idempotent else " (it may or may not have been applied)"
                raise APIConnectionError(
                    f"Connection lost during {method} {path}{hint}",
                    request=request,
                    maybe_applied=not idempotent,
                ) from exc
            log.debug(
                "%s %s -> %d in %.0f ms",
                method,
                request.url.path,
                response.status_code,
                (time.perf_counter() - started) * 1000,
            )
            if response.status_code == 401 and self._auth and not reauthenticated:
                # A token revoked or expired early: fetch a new one, once.
                await response.aread()
                self._auth.invalidate(token)
                reauthenticated = True
                continue
            if response.status_code in RETRY_STATUSES and idempotent and attempt < self.max_retries:
                await response.aread()
                await self._backoff(attempt, response)
                attempt += 1
                continue
            if response.status_code >= 400:
                await response.aread()
                if feature and response.status_code in not_offered_on:
                    raise FeatureNotOffered(
                        feature, response=response, code=status_error(response).code
                    )
                error = status_error(response)
                if isinstance(error, AuthenticationError):
                    error.message = f"Not signed in: {error.message}"
                raise error
            return response

    async def _backoff(self, attempt: int, response: httpx.Response | None) -> None:
        await self._sleep(backoff_delay(attempt, self._backoff_s, response))
