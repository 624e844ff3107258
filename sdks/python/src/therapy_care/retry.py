"""When a failed attempt is repeated and how long to wait first: exponential backoff with full jitter, the API's
``Retry-After`` / ``X-RateLimit-Reset`` when it gives them. The same rules as the TypeScript SDK (sdks/typescript/src/backoff.ts,
retry-policy.ts)."""

from __future__ import annotations

import email.utils
import random as _random
from dataclasses import dataclass
from typing import Callable, Mapping

from .errors import ApiError

Random = Callable[[], float]

TRANSIENT_STATUSES = frozenset({408, 500, 502, 503, 504})
HINT_JITTER_RATIO = 0.2
HINT_JITTER_MIN = 0.25


@dataclass(frozen=True)
class RetryPolicy:
    """Attempts per call (the first included), a time budget, and the backoff's spacing, in seconds."""

    max_attempts: int = 5
    max_elapsed: float = 90.0
    base_delay: float = 0.5
    max_delay: float = 20.0


DEFAULT_RETRY_POLICY = RetryPolicy()


def exponential_backoff(retry: int, policy: RetryPolicy, random: Random = _random.random) -> float:
    """Full jitter: a wait drawn uniformly below ``base * 2**(retry-1)``, capped at ``max_delay``."""
    ceiling = min(policy.max_delay, policy.base_delay * 2 ** max(0, retry - 1))
    return float(random() * ceiling)


def parse_retry_after(value: str | None, now: float) -> float | None:
    """Seconds to wait from ``Retry-After``: delay-seconds or an HTTP date."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now)


def parse_rate_limit_reset(value: str | None, now: float) -> float | None:
    """Seconds until ``X-RateLimit-Reset`` (Unix epoch seconds)."""
    if value is None or not value.strip().isdigit():
        return None
    return max(0.0, float(value.strip()) - now)


def hinted_backoff(hint: float | None, retry: int, policy: RetryPolicy, random: Random = _random.random) -> float:
    """The server's hint plus a little jitter (so waiting clients do not come back at once), else the backoff."""
    if hint is None:
        return exponential_backoff(retry, policy, random)
    return hint + random() * max(hint * HINT_JITTER_RATIO, HINT_JITTER_MIN)


def retry_delay_for_error(
    error: ApiError, retry: int, policy: RetryPolicy, now: float, random: Random = _random.random
) -> float | None:
    """How long to wait before repeating a call that failed with ``error``; None when it must not be repeated.

    Every write carries an Idempotency-Key, so every call is repeatable: 429 (refused before it ran), 409
    ``idempotency_request_in_progress`` (the first request with the key is still running) and 408/5xx are retried;
    any other 4xx is the caller's to fix.
    """
    headers: Mapping[str, str] = {k.lower(): v for k, v in error.headers.items()}
    if error.status == 429:
        hint = parse_retry_after(headers.get("retry-after"), now)
        if hint is None:
            hint = parse_rate_limit_reset(headers.get("x-ratelimit-reset"), now)
        return hinted_backoff(hint, retry, policy, random)
    retry_after = parse_retry_after(headers.get("retry-after"), now)
    if error.status == 409 and error.code == "idempotency_request_in_progress":
        return hinted_backoff(retry_after, retry, policy, random)
    if error.status in TRANSIENT_STATUSES:
        return hinted_backoff(retry_after, retry, policy, random)
    return None
