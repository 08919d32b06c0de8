"""The client's error tree. Every failure the console shows comes as one of these."""

from __future__ import annotations

import httpx


class APIError(Exception):
    """Base of every error raised by the client."""

    def __init__(self, message: str, *, request: httpx.Request | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.request = request


class APIConnectionError(APIError):
    """No usable answer from the server: refused, reset, DNS, TLS.

    `maybe_applied`: the request was sent and the connection dropped before the answer, so a
    request that changes something (a POST) may or may not have been applied; the caller
    must find out before sending it again."""

    def __init__(
        self,
        message: str = "Connection error",
        *,
        request: httpx.Request | None = None,
        maybe_applied: bool = False,
    ):
        super().__init__(message, request=request)
        self.maybe_applied = maybe_applied


class APITimeoutError(APIConnectionError):
    def __init__(
        self, request: httpx.Request | None = None, *, maybe_applied: bool = False
    ) -> None:
        # A POST that timed out after sending may have been applied: the user must check
        # before trying again.
        hint = " (it may or may not have been applied)" if maybe_applied else ""
        super().__init__(
            f"The server did not answer in time{hint}", request=request, maybe_applied=maybe_applied
        )


class APIResponseValidationError(APIError):
    """The server answered 2xx with a body that does not have the documented shape."""

    def __init__(self, message: str, *, response: httpx.Response) -> None:
        super().__init__(message, request=response.request)
        self.response = response
        self.status_code = response.status_code


class APIStatusError(APIError):
    """The server answered with an error status. `code` and `message` are the server's."""

    def __init__(self, message: str, *, response: httpx.Response, code: int | None) -> None:
        super().__init__(message, request=response.request)
        self.response = response
        self.status_code = response.status_code
        self.code = code

    def __str__(self) -> str:
        code = f" (code {self.code})" if self.code is not None else ""
        return f"{self.status_code}{code}: {self.message}"


class BadRequestError(APIStatusError):
    pass


class AuthenticationError(APIStatusError):
    pass


class PermissionDeniedError(APIStatusError):
    pass


class NotFoundError(APIStatusError):
    pass


class ConflictError(APIStatusError):
    pass


class UnprocessableEntityError(APIStatusError):
    pass


class RateLimitError(APIStatusError):
    pass


class InternalServerError(APIStatusError):
    pass


class FeatureNotOffered(APIStatusError):
    """A 404 or 405 on a collection the account should have: the platform does not offer
    the feature (a 7.3 platform has no cellular network contexts, AS transport keys or HSM
    groups). `feature` names it in words; the message says so, for the user."""

    def __init__(self, feature: str, *, response: httpx.Response, code: int | None) -> None:
        super().__init__(f"this platform does not offer {feature}", response=response, code=code)
        self.feature = feature

    def __str__(self) -> str:
        return self.message


class TokenError(APIError):
    """The token endpoint refused the credentials or answered nonsense."""


_BY_STATUS: dict[int, type[APIStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def status_error(response: httpx.Response) -> APIStatusError:
    """Build the typed error for a non-2xx response, reading the `{code, message}` body."""
    code: int | None = None
    message = response.reason_phrase or f"HTTP {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        raw_code = body.get("code")
        code = raw_code if isinstance(raw_code, int) else None
        if isinstance(body.get("message"), str):
            message = body["message"]
    elif response.text and len(response.text) < 300:
        message = response.text.strip()
    cls = _BY_STATUS.get(response.status_code)
    if cls is None:
        cls = InternalServerError if response.status_code >= 500 else APIStatusError
    return cls(message, response=response, code=code)
