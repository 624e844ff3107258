"""Access tokens with the OAuth 2.0 client-credentials grant: renewed shortly before they expire with the refresh
token (rotated on every use), falling back to client credentials when it is refused, and renewed after a 401. One
renewal at a time: the API treats a refresh token presented twice as stolen and revokes its whole family."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from .errors import ApiError

#: Renew at most this long before expiry, and at most this share of the lifetime early.
MAX_EARLY_RENEWAL = 60.0
EARLY_RENEWAL_RATIO = 0.1

TokenRequest = Callable[[dict[str, str]], dict[str, Any]]
AsyncTokenRequest = Callable[[dict[str, str]], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class Tokens:
    access_token: str
    refresh_token: str | None
    #: When to stop using the access token (monotonic seconds).
    renew_at: float


def _held(answer: dict[str, Any], sent_at: float) -> Tokens:
    if not isinstance(answer.get("access_token"), str) or not isinstance(answer.get("expires_in"), (int, float)):
        raise ValueError("The token endpoint answered without access_token and expires_in.")
    lifetime = float(answer["expires_in"])
    return Tokens(
        access_token=answer["access_token"],
        refresh_token=answer.get("refresh_token"),
        renew_at=sent_at + lifetime - min(MAX_EARLY_RENEWAL, lifetime * EARLY_RENEWAL_RATIO),
    )


def _grants(client_id: str, client_secret: str, scope: str | None, held: Tokens | None) -> list[dict[str, str]]:
    """The token requests to try, in order: the refresh token first when one is held, then client credentials."""
    client = {"client_id": client_id, "client_secret": client_secret}
    credentials = {"grant_type": "client_credentials", **client, **({"scope": scope} if scope else {})}
    if held and held.refresh_token:
        return [{"grant_type": "refresh_token", "refresh_token": held.refresh_token, **client}, credentials]
    return [credentials]


def _refused_refresh(error: Exception, grant: dict[str, str]) -> bool:
    # Expired, revoked or already used: start over with the client's own credentials. Anything else would fail the
    # same way with them, so it is raised as it is.
    return grant["grant_type"] == "refresh_token" and isinstance(error, ApiError) and error.code == "invalid_grant"


class ClientCredentials:
    """Tokens for the synchronous client."""

    def __init__(self, client_id: str, client_secret: str, scope: str | None, request: TokenRequest,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._args = (client_id, client_secret, scope)
        self._request = request
        self._clock = clock
        self._tokens: Tokens | None = None
        self._lock = threading.Lock()

    def _obtain(self) -> Tokens:
        sent_at = self._clock()
        grants = _grants(*self._args, self._tokens)
        for grant in grants:
            try:
                return _held(self._request(grant), sent_at)
            except Exception as error:
                if not _refused_refresh(error, grant):
                    raise
        raise AssertionError("unreachable: the last grant raises or answers")

    def bearer(self) -> str:
        with self._lock:
            if self._tokens is None or self._clock() >= self._tokens.renew_at:
                self._tokens = self._obtain()
            return self._tokens.access_token

    def renew(self, rejected: str) -> None:
        """After a 401: renew, unless another call already did after this one sent ``rejected``."""
        with self._lock:
            if self._tokens is None or self._tokens.access_token == rejected:
                self._tokens = self._obtain()


class AsyncClientCredentials:
    """Tokens for the asynchronous client (one renewal at a time per event loop)."""

    def __init__(self, client_id: str, client_secret: str, scope: str | None, request: AsyncTokenRequest,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._args = (client_id, client_secret, scope)
        self._request = request
        self._clock = clock
        self._tokens: Tokens | None = None
        self._lock = asyncio.Lock()

    async def _obtain(self) -> Tokens:
        sent_at = self._clock()
        for grant in _grants(*self._args, self._tokens):
            try:
                return _held(await self._request(grant), sent_at)
            except Exception as error:
                if not _refused_refresh(error, grant):
                    raise
        raise AssertionError("unreachable: the last grant raises or answers")

    async def bearer(self) -> str:
        async with self._lock:
            if self._tokens is None or self._clock() >= self._tokens.renew_at:
                self._tokens = await self._obtain()
            return self._tokens.access_token

    async def renew(self, rejected: str) -> None:
        async with self._lock:
            if self._tokens is None or self._tokens.access_token == rejected:
                self._tokens = await self._obtain()
