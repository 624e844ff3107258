"""The Therapy Care Platform API's Python SDK: typed clients (sync and async), token renewal, retries with one
Idempotency-Key per logical write, cursor pagination, and webhook verification."""

from ._version import __version__
from .client import AsyncClient, Client, Page, Resource
from .errors import ApiConnectionError, ApiError, FieldError
from .retry import DEFAULT_RETRY_POLICY, RetryPolicy
from .webhooks import WebhookVerificationError, verify_webhook_v1, verify_webhook_v2

__all__ = [
    "__version__",
    "ApiConnectionError",
    "ApiError",
    "AsyncClient",
    "Client",
    "DEFAULT_RETRY_POLICY",
    "FieldError",
    "Page",
    "Resource",
    "RetryPolicy",
    "WebhookVerificationError",
    "verify_webhook_v1",
    "verify_webhook_v2",
]
