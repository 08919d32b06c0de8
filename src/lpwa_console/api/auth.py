"""OAuth2 client credentials: one token, fetched once, renewed before it expires."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import httpx

from ._retry import RETRY_STATUSES, backoff_delay
from .errors import APIConnectionError, TokenError

# Renew this long before the server's expiry, so a request never leaves with a stale token.
RENEW_MARGIN_S = 30.0


@dataclass(frozen=True)
class Credentials:
    token_url: str
    client_id: str
    client_secret: str

    def __repr__(self) -> str:  # never print the secret
        return f"Credentials(token_url={self.token_url!r}, client_id={self.client_id!r})"


class TokenProvider:
    """Gives a valid bearer token; concurrent callers share one fetch."""

    def __init__(
        self,
        credentials: Credentials,
        http: httpx.AsyncClient,
        clock: object = time,
        *,
        max_retries: int = 3,
        backoff_s: float = 0.5,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._credentials = credentials
        self._http = http
        self._clock = clock
        self.max_retries = max_retries
        self._backoff_s = backoff_s
        self._sleep = sleep
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    @property
    def client_id(self) -> str:
        return self._credentials.client_id

    def _now(self) -> float:
        return float(self._clock.monotonic())  # type: ignore[attr-defined]

    def _valid(self) -> bool:
        return self._token is not None and self._now() < self._expires_at - RENEW_MARGIN_S

    async def token(self) -> str:
        if self._valid():
            assert self._token is not None
            return self._token
        async with self._lock:
            if not self._valid():
                await self._fetch()
        assert self._token is not None
        return self._token

    def invalidate(self, token: str | None = None) -> None:
        """Forget the token (after a 401); a newer one fetched meanwhile is kept."""
        if token is None or token == self._token:
            self._token = None

    async def _fetch(self) -> None:
        creds = self._credentials
        attempt = 0
        while True:
            try:
                response = await self._http.post(
                    creds.token_url,
                    data={
                        "grant_type": "client_credentials",
                        "client_id": creds.client_id,
                        "client_secret": creds.client_secret,
                    },
                    headers={"Accept": "application/json"},
                )
            except httpx.TransportError as exc:
                # Asking for a token twice is harmless: retried like a GET.
                if attempt < self.max_retries:
                    await self._sleep(backoff_delay(attempt, self._backoff_s, None))
                    attempt += 1
                    continue
                raise APIConnectionError(f"Cannot reach the token endpoint: {exc}") from exc
            if response.status_code in RETRY_STATUSES and attempt < self.max_retries:
                await self._sleep(backoff_delay(attempt, self._backoff_s, response))
                attempt += 1
                continue
            break
        if response.status_code != 200:
            detail = _error_detail(response)
            raise TokenError(f"Sign-in refused ({response.status_code}): {detail}")
        try:
            body = response.json()
            token = str(body["access_token"])
            lifetime = float(body.get("expires_in", 300))
        except (ValueError, KeyError, TypeError) as exc:
            raise TokenError(f"The token endpoint answered without a token: {exc}") from exc
        self._token = token
        self._expires_at = self._now() + lifetime


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    if isinstance(body, dict):
        for key in ("error_description", "message", "error"):
            if isinstance(body.get(key), str):
                return str(body[key])
    return response.reason_phrase
