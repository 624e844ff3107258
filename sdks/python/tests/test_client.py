"""The client's call loop against scripted answers (httpx's MockTransport), for what the real API cannot be made to do
on demand: the same Idempotency-Key on every attempt of a write, waits as the API asks on 429, a single renewal after
a 401, refresh-token renewal falling back to client credentials, pagination, and no retry of a refusal. The same
behaviour against the real API: tests/live (run by test/integration/sdk-python.int.test.ts)."""

from __future__ import annotations

import json
from typing import Callable

import httpx
import pytest

from therapy_care import ApiConnectionError, ApiError, Client, RetryPolicy
from therapy_care.retry import exponential_backoff, parse_retry_after

Handler = Callable[[httpx.Request], httpx.Response]


class Peer:
    """Answers /oauth/token with numbered tokens and everything else from a script (then `fallback`)."""

    def __init__(self, *script: Handler) -> None:
        self.script = list(script)
        self.seen: list[httpx.Request] = []
        self.tokens = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.url.path == "/oauth/token":
            self.tokens += 1
            return httpx.Response(200, json={"access_token": f"at_{self.tokens}", "token_type": "Bearer",
                                             "expires_in": 900, "scope": "x", "refresh_token": f"rt_{self.tokens}"})
        if self.script:
            return self.script.pop(0)(request)
        return httpx.Response(200, json={"ok": True})

    def calls(self, path: str) -> list[httpx.Request]:
        return [r for r in self.seen if r.url.path == path]


def problem(status: int, code: str, headers: dict[str, str] | None = None) -> Handler:
    body = {"type": "about:blank", "title": code, "status": status, "code": code, "detail": f"{code} happened",
            "requestId": f"req_{code}"}
    return lambda _request: httpx.Response(status, json=body, headers={"content-type": "application/problem+json",
                                                                        **(headers or {})})


def answer(status: int, body: object) -> Handler:
    return lambda _request: httpx.Response(status, json=body)


def drop(request: httpx.Request) -> httpx.Response:
    raise httpx.ConnectError("connection reset", request=request)


def client(peer: Peer, waits: list[float] | None = None, **options: object) -> Client:
    return Client("http://api.test", client_id="cli_1", client_secret="secret", transport=httpx.MockTransport(peer),
                  sleep=(waits.append if waits is not None else lambda _s: None), random=lambda: 0.5,
                  **options)  # type: ignore[arg-type]


BODY = {"childId": "chd_1", "providerId": "prv_1", "startsAt": "2026-12-01T15:00:00Z"}


def test_a_write_is_repeated_after_a_503_and_a_dropped_connection_with_one_key() -> None:
    peer = Peer(problem(503, "dependency_unavailable", {"Retry-After": "0"}), drop, answer(201, {"id": "apt_1"}))
    assert client(peer).request("POST", "/v1/appointments", json=BODY) == {"id": "apt_1"}
    keys = [r.headers["idempotency-key"] for r in peer.calls("/v1/appointments")]
    assert len(keys) == 3 and len(set(keys)) == 1
    assert [json.loads(r.content) for r in peer.calls("/v1/appointments")] == [BODY, BODY, BODY]
    # A new logical write gets a new key; the caller's own key is used as given.
    api = client(peer)
    api.request("POST", "/v1/appointments", json=BODY)
    api.request("POST", "/v1/appointments", json=BODY, idempotency_key="visit-42")
    later = [r.headers["idempotency-key"] for r in peer.calls("/v1/appointments")][3:]
    assert later[0] != keys[0] and later[1] == "visit-42"


def test_a_429_waits_as_the_api_says() -> None:
    waits: list[float] = []
    peer = Peer(problem(429, "rate_limited", {"Retry-After": "3"}), answer(200, {"data": []}))
    client(peer, waits).request("GET", "/v1/children")
    assert len(waits) == 1 and 3.0 <= waits[0] <= 3.0 + 0.75


def test_a_refusal_is_not_repeated_and_carries_the_problem() -> None:
    peer = Peer(problem(409, "slot_unavailable"))
    with pytest.raises(ApiError) as refused:
        client(peer).request("POST", "/v1/appointments", json=BODY)
    assert (refused.value.status, refused.value.code, refused.value.request_id) == (409, "slot_unavailable",
                                                                                   "req_slot_unavailable")
    assert len(peer.calls("/v1/appointments")) == 1


def test_attempts_are_bounded_and_a_dead_peer_is_a_connection_error() -> None:
    peer = Peer(*[problem(500, "internal_error")] * 10)
    with pytest.raises(ApiError):
        client(peer, retry=RetryPolicy(max_attempts=3)).request("GET", "/v1/children")
    assert len(peer.calls("/v1/children")) == 3
    with pytest.raises(ApiConnectionError):
        client(Peer(*[drop] * 10), retry=RetryPolicy(max_attempts=2)).request("GET", "/v1/children")


def test_a_401_renews_once_with_the_refresh_token_then_client_credentials() -> None:
    peer = Peer(problem(401, "invalid_token"), answer(200, {"ok": True}))
    api = client(peer)
    assert api.request("GET", "/v1/children") == {"ok": True}
    grants = [json.loads(r.content)["grant_type"] for r in peer.calls("/oauth/token")]
    assert grants == ["client_credentials", "refresh_token"]
    assert [r.headers["authorization"] for r in peer.calls("/v1/children")] == ["Bearer at_1", "Bearer at_2"]
    # A 401 that persists after renewing is final.
    persistent = Peer(*[problem(401, "invalid_token")] * 5)
    with pytest.raises(ApiError) as refused:
        client(persistent).request("GET", "/v1/children")
    assert refused.value.status == 401 and len(persistent.calls("/v1/children")) == 2


def test_list_all_follows_the_cursor_with_the_same_filters() -> None:
    peer = Peer(answer(200, {"data": [{"x": 1}], "nextCursor": "c2"}), answer(200, {"data": [{"x": 2}], "nextCursor": None}))
    assert [item["x"] for item in client(peer).paginate("/v1/children", {"limit": 1})] == [1, 2]
    assert [str(r.url.params) for r in peer.calls("/v1/children")] == ["limit=1", "limit=1&cursor=c2"]


def test_backoff_is_full_jitter_within_its_ceiling() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=4.0)
    assert exponential_backoff(1, policy, lambda: 0.999) < 0.5
    assert exponential_backoff(4, policy, lambda: 0.999) < 4.0
    assert exponential_backoff(10, policy, lambda: 1.0) == 4.0
    assert parse_retry_after("7", 0) == 7.0
    assert parse_retry_after("soon", 0) is None
