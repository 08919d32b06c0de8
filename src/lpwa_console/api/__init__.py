"""Async client of the platform's REST API (httpx + pydantic)."""

from .auth import Credentials
from .client import LpwaClient
from .errors import (
    APIConnectionError,
    APIError,
    APIResponseValidationError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    FeatureNotOffered,
    InternalServerError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    TokenError,
)

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "Credentials",
    "FeatureNotOffered",
    "InternalServerError",
    "LpwaClient",
    "NotFoundError",
    "PermissionDeniedError",
    "RateLimitError",
    "TokenError",
]
