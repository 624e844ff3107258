"""The clients: :class:`Client` (synchronous) and :class:`AsyncClient` on httpx, with what the API asks of its
clients built in: tokens obtained and renewed, one retry after renewing on a 401, waits on 429, retries
of 408/5xx and connection errors with backoff and full jitter, and one Idempotency-Key per logical write, sent on every
attempt of it, so a retried write is never applied twice."""

from __future__ import annotations

import asyncio
import random as _random
import time
import uuid
from typing import Any, AsyncIterator, Callable, Generic, Iterator, Mapping, TypeVar

import httpx
from pydantic import BaseModel

from . import models
from ._version import __version__
from .credentials import AsyncClientCredentials, ClientCredentials
from .errors import ApiConnectionError, ApiError
from .retry import DEFAULT_RETRY_POLICY, RetryPolicy, exponential_backoff, retry_delay_for_error

M = TypeVar("M", bound=BaseModel)
Json = Any
USER_AGENT = f"therapy-care-sdk-python/{__version__}"


def _body(response: httpx.Response) -> Json:
    if not response.content:
        return None
    try:
        return response.json()
    except ValueError:
        return response.text


def _dump(body: Mapping[str, Any] | BaseModel | None) -> Json:
    if isinstance(body, BaseModel):
        return body.model_dump(mode="json", by_alias=True, exclude_none=True)
    return body


class _Attempts:
    """The retry decisions of one call, shared by both clients: how long to wait, or None to give up."""

    def __init__(self, policy: RetryPolicy, random: Callable[[], float]) -> None:
        self.policy = policy
        self.random = random
        self.started = time.monotonic()
        self.attempt = 0

    def _within_budget(self, delay: float) -> bool:
        return self.attempt < self.policy.max_attempts and time.monotonic() - self.started + delay <= self.policy.max_elapsed

    def after_network_error(self) -> float | None:
        delay = exponential_backoff(self.attempt, self.policy, self.random)
        return delay if self._within_budget(delay) else None

    def after_error(self, error: ApiError) -> float | None:
        delay = retry_delay_for_error(error, self.attempt, self.policy, time.time(), self.random)
        return delay if delay is not None and self._within_budget(delay) else None


class _Base:
    def __init__(self, base_url: str, retry: RetryPolicy, random: Callable[[], float]) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must be an http(s) URL, e.g. https://api.example.com")
        self.base_url = base_url.rstrip("/")
        self.retry = retry
        self._random = random

    def _headers(self, bearer: str | None, idempotency_key: str | None, extra: Mapping[str, str] | None) -> dict[str, str]:
        headers = {"Accept": "application/json, application/problem+json", "User-Agent": USER_AGENT, **(extra or {})}
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        return headers


class Client(_Base):
    """A synchronous client of the Therapy Care Platform API.

    >>> api = Client("https://api.example.com", client_id="cli_...", client_secret="...")
    >>> appointment = api.appointments.create({"childId": ..., "providerId": ..., "startsAt": "2026-12-01T15:00:00Z"})
    """

    def __init__(self, base_url: str, *, client_id: str | None = None, client_secret: str | None = None,
                 scope: str | None = None, api_key: str | None = None, retry: RetryPolicy = DEFAULT_RETRY_POLICY,
                 timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep, random: Callable[[], float] = _random.random) -> None:
        super().__init__(base_url, retry, random)
        self._http = httpx.Client(timeout=timeout, transport=transport)
        self._sleep = sleep
        if api_key is not None:
            self._bearer: Callable[[], str] = lambda: api_key
            self._renew: Callable[[str], bool] = lambda _rejected: False
        elif client_id and client_secret:
            tokens = ClientCredentials(client_id, client_secret, scope, self._request_token)

            def renew(rejected: str) -> bool:
                tokens.renew(rejected)
                return True

            self._bearer = tokens.bearer
            self._renew = renew
        else:
            raise ValueError("Pass client_id and client_secret (OAuth client credentials), or api_key.")
        self.children = Resource(self, "/v1/children", models.Child)
        self.providers = Resource(self, "/v1/providers", models.Provider)
        self.appointments = Resource(self, "/v1/appointments", models.Appointment)
        self.webhook_endpoints = Resource(self, "/v1/webhook-endpoints", models.WebhookEndpoint)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def _execute(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Json = None,
                 idempotency_key: str | None = None, headers: Mapping[str, str] | None = None,
                 authorized: bool = True) -> httpx.Response:
        attempts = _Attempts(self.retry, self._random)
        renewed = False
        while True:
            attempts.attempt += 1
            bearer = self._bearer() if authorized else None
            try:
                response = self._http.request(method, self.base_url + path, params=params, json=json,
                                              headers=self._headers(bearer, idempotency_key, headers))
            except httpx.TransportError as error:
                delay = attempts.after_network_error()
                if delay is None:
                    raise ApiConnectionError(f"{method} {path}: no answer ({error})") from error
                self._sleep(delay)
                continue
            if response.is_success:
                return response
            if response.status_code == 401 and authorized and bearer is not None and not renewed and self._renew(bearer):
                # Once, and not counted as an attempt: a token refused right after renewal means the credentials are.
                renewed = True
                attempts.attempt -= 1
                continue
            refused = ApiError(response.status_code, _body(response), response.headers)
            delay = attempts.after_error(refused)
            if delay is None:
                raise refused
            self._sleep(delay)

    def _request_token(self, fields: dict[str, str]) -> dict[str, Any]:
        answer: dict[str, Any] = self._execute("POST", "/oauth/token", json=fields, authorized=False).json()
        return answer

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                json: Mapping[str, Any] | BaseModel | None = None, idempotency_key: str | None = None,
                headers: Mapping[str, str] | None = None) -> Json:
        """Any operation: the parsed body of its 2xx answer. Raises :class:`ApiError` or :class:`ApiConnectionError`.
        A write without ``idempotency_key`` gets a new one, sent on each of its attempts."""
        return _body(self.request_with_response(method, path, params=params, json=json,
                                                idempotency_key=idempotency_key, headers=headers))

    def request_with_response(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                              json: Mapping[str, Any] | BaseModel | None = None, idempotency_key: str | None = None,
                              headers: Mapping[str, str] | None = None) -> httpx.Response:
        """Like :meth:`request`, with the response (status, ``Location``, ``Idempotent-Replayed``, rate limits)."""
        key = idempotency_key or (str(uuid.uuid4()) if method.upper() != "GET" else None)
        return self._execute(method.upper(), path, params=params, json=_dump(json), idempotency_key=key, headers=headers)

    def paginate(self, path: str, params: Mapping[str, Any] | None = None) -> Iterator[Json]:
        """Every item of a list, following ``nextCursor`` page after page (fetched as the loop asks)."""
        query = dict(params or {})
        while True:
            page = self.request("GET", path, params=query)
            yield from page["data"]
            if not page.get("nextCursor"):
                return
            query["cursor"] = page["nextCursor"]


class Page(Generic[M]):
    """One page of a list: typed items and the cursor of the next page (None on the last)."""

    def __init__(self, data: list[M], next_cursor: str | None) -> None:
        self.data = data
        self.next_cursor = next_cursor


class Resource(Generic[M]):
    """A collection (``/v1/children``...): typed create, get, list (one page) and list_all (every page)."""

    def __init__(self, client: Client, base: str, model: type[M]) -> None:
        self._client = client
        self._base = base
        self._model = model

    def create(self, body: Mapping[str, Any] | BaseModel, *, idempotency_key: str | None = None) -> M:
        return self._model.model_validate(self._client.request("POST", self._base, json=body,
                                                               idempotency_key=idempotency_key))

    def get(self, id: str) -> M:
        return self._model.model_validate(self._client.request("GET", f"{self._base}/{id}"))

    def list(self, **params: Any) -> Page[M]:
        page = self._client.request("GET", self._base, params=params)
        return Page([self._model.model_validate(item) for item in page["data"]], page.get("nextCursor"))

    def list_all(self, **params: Any) -> Iterator[M]:
        for item in self._client.paginate(self._base, params):
            yield self._model.model_validate(item)


class AsyncClient(_Base):
    """The asynchronous client: the same behaviour as :class:`Client`, with ``await``."""

    def __init__(self, base_url: str, *, client_id: str | None = None, client_secret: str | None = None,
                 scope: str | None = None, api_key: str | None = None, retry: RetryPolicy = DEFAULT_RETRY_POLICY,
                 timeout: float = 30.0, transport: httpx.AsyncBaseTransport | None = None,
                 random: Callable[[], float] = _random.random) -> None:
        super().__init__(base_url, retry, random)
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._api_key = api_key
        if api_key is None and not (client_id and client_secret):
            raise ValueError("Pass client_id and client_secret (OAuth client credentials), or api_key.")
        self._tokens = (AsyncClientCredentials(client_id, client_secret, scope, self._request_token)
                        if api_key is None and client_id and client_secret else None)

    async def _bearer(self) -> str:
        if self._tokens is not None:
            return await self._tokens.bearer()
        assert self._api_key is not None  # the constructor requires one or the other
        return self._api_key

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def _execute(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, json: Json = None,
                       idempotency_key: str | None = None, headers: Mapping[str, str] | None = None,
                       authorized: bool = True) -> httpx.Response:
        attempts = _Attempts(self.retry, self._random)
        renewed = False
        while True:
            attempts.attempt += 1
            bearer = await self._bearer() if authorized else None
            try:
                response = await self._http.request(method, self.base_url + path, params=params, json=json,
                                                     headers=self._headers(bearer, idempotency_key, headers))
            except httpx.TransportError as error:
                delay = attempts.after_network_error()
                if delay is None:
                    raise ApiConnectionError(f"{method} {path}: no answer ({error})") from error
                await asyncio.sleep(delay)
                continue
            if response.is_success:
                return response
            if response.status_code == 401 and bearer is not None and self._tokens and not renewed:
                renewed = True
                attempts.attempt -= 1
                await self._tokens.renew(bearer)
                continue
            refused = ApiError(response.status_code, _body(response), response.headers)
            delay = attempts.after_error(refused)
            if delay is None:
                raise refused
            await asyncio.sleep(delay)

    async def _request_token(self, fields: dict[str, str]) -> dict[str, Any]:
        answer: dict[str, Any] = (await self._execute("POST", "/oauth/token", json=fields, authorized=False)).json()
        return answer

    async def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None,
                      json: Mapping[str, Any] | BaseModel | None = None, idempotency_key: str | None = None,
                      headers: Mapping[str, str] | None = None) -> Json:
        key = idempotency_key or (str(uuid.uuid4()) if method.upper() != "GET" else None)
        return _body(await self._execute(method.upper(), path, params=params, json=_dump(json), idempotency_key=key,
                                         headers=headers))

    async def paginate(self, path: str, params: Mapping[str, Any] | None = None) -> AsyncIterator[Json]:
        query = dict(params or {})
        while True:
            page = await self.request("GET", path, params=query)
            for item in page["data"]:
                yield item
            if not page.get("nextCursor"):
                return
            query["cursor"] = page["nextCursor"]
