"""The SDK against the live API, run by test/integration/sdk-python.int.test.ts, which starts the platform and passes
its address, a client's credentials and two real webhook deliveries in the environment. Skipped (with the reason)
when run alone without them; the integration test fails if any of these fails or is skipped."""

from __future__ import annotations

import asyncio
import base64
import json
import os

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from therapy_care import (
    ApiError,
    AsyncClient,
    Client,
    WebhookVerificationError,
    models,
    verify_webhook_v1,
    verify_webhook_v2,
)

URL = os.environ.get("THERAPY_API_URL", "")
CLIENT_ID = os.environ.get("THERAPY_CLIENT_ID", "")
CLIENT_SECRET = os.environ.get("THERAPY_CLIENT_SECRET", "")
pytestmark = pytest.mark.skipif(not URL, reason="THERAPY_API_URL is not set: run through the integration test")


class Recording(httpx.HTTPTransport):
    """The real transport, recording each request; `lose` drops the answer of the next POST to a path after the API
    has processed it, as a connection that breaks on the way back would."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[httpx.Request] = []
        self.lose: str | None = None

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        response = super().handle_request(request)
        if self.lose and request.method == "POST" and request.url.path == self.lose:
            self.lose = None
            response.read()
            raise httpx.ReadError("connection lost after the request was sent", request=request)
        return response


def client(transport: httpx.BaseTransport | None = None) -> Client:
    return Client(URL, client_id=CLIENT_ID, client_secret=CLIENT_SECRET, transport=transport)


def slot(days: int) -> str:
    start = (datetime.now(timezone.utc) + timedelta(days=days)).replace(hour=15, minute=0, second=0, microsecond=0)
    return start.isoformat().replace("+00:00", "Z")


def child_and_provider(api: Client) -> tuple[models.Child, models.Provider]:
    child = api.children.create({"firstName": "Maya", "lastName": "Okafor", "dateOfBirth": "2023-04-18"})
    provider = api.providers.create({"name": "Dana Whitfield", "timeZone": "America/Chicago"})
    return child, provider


def test_quick_start_books_an_appointment() -> None:
    # The README's quick start, as written there.
    with client() as api:
        child, provider = child_and_provider(api)
        appointment = api.appointments.create(
            {"childId": child.id, "providerId": provider.id, "type": "THERAPY_SESSION", "startsAt": slot(12)}
        )
        assert isinstance(appointment, models.Appointment)
        assert appointment.status == "CONFIRMED" and appointment.childId == child.id
        assert api.appointments.get(appointment.id) == appointment


def test_list_all_follows_every_page() -> None:
    with client() as api:
        made = {api.children.create({"firstName": f"C{i}", "lastName": "Page", "dateOfBirth": "2022-01-01"}).id
                for i in range(3)}
        first = api.children.list(limit=1)
        assert len(first.data) == 1 and first.next_cursor
        listed = [c.id for c in api.children.list_all(limit=1)]
        assert made <= set(listed) and len(listed) == len(set(listed))


def test_a_write_whose_answer_was_lost_is_repeated_with_its_key_and_makes_one_appointment() -> None:
    transport = Recording()
    with client(transport) as api:
        child, provider = child_and_provider(api)
        transport.lose = "/v1/appointments"
        appointment = api.appointments.create({"childId": child.id, "providerId": provider.id, "startsAt": slot(20)})
        posts = [r for r in transport.requests if r.method == "POST" and r.url.path == "/v1/appointments"]
        assert len(posts) == 2
        assert posts[0].headers["idempotency-key"] == posts[1].headers["idempotency-key"]
        assert [a.id for a in api.appointments.list_all(childId=child.id)] == [appointment.id]
        # The same key again, later: the same appointment, never a second one.
        again = api.appointments.create({"childId": child.id, "providerId": provider.id, "startsAt": slot(20)},
                                        idempotency_key=posts[0].headers["idempotency-key"])
        assert again.id == appointment.id


def test_a_revoked_token_is_renewed_after_the_401() -> None:
    transport = Recording()
    with client(transport) as api:
        child = api.children.create({"firstName": "Ada", "lastName": "Token", "dateOfBirth": "2022-05-05"})
        token = next(r for r in transport.requests if r.url.path.startswith("/v1/")).headers["authorization"][7:]
        basic = base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()).decode()
        revoked = httpx.post(f"{URL}/oauth/revoke", data={"token": token, "token_type_hint": "access_token"},
                             headers={"Authorization": f"Basic {basic}"})
        assert revoked.status_code == 200
        assert api.children.get(child.id).id == child.id
        grants = [json.loads(r.content)["grant_type"] for r in transport.requests if r.url.path == "/oauth/token"]
        assert grants == ["client_credentials", "refresh_token"]


def test_problems_surface_as_api_error() -> None:
    with client() as api, pytest.raises(ApiError) as refused:
        api.request("POST", "/v1/children", json={"firstName": "Missing fields"})
    assert refused.value.status == 400 and refused.value.code == "validation_error"
    assert {e.path for e in refused.value.errors} >= {"lastName", "dateOfBirth"}
    assert refused.value.request_id


def test_the_async_client_does_the_same() -> None:
    async def run() -> str:
        async with AsyncClient(URL, client_id=CLIENT_ID, client_secret=CLIENT_SECRET) as api:
            created = await api.request("POST", "/v1/children",
                                        json={"firstName": "Async", "lastName": "Child", "dateOfBirth": "2022-03-03"})
            fetched = await api.request("GET", f"/v1/children/{created['id']}")
            ids = [item["id"] async for item in api.paginate("/v1/children", {"limit": 2})]
            assert created["id"] in ids
            return str(fetched["id"])

    assert asyncio.run(run()).startswith("chd_")


def test_real_deliveries_verify_under_v1_v2_and_ed25519_and_not_with_another_key() -> None:
    deliveries: dict[str, Any] = json.loads(Path(os.environ["THERAPY_DELIVERIES_FILE"]).read_text())
    v1, v2, v2a = deliveries["v1"], deliveries["v2"], deliveries["v2a"]
    # The asymmetric endpoint's delivery, verified with its public key alone.
    assert verify_webhook_v2(v2a["body"], v2a["headers"], [], public_keys=[v2a["publicKey"]])["type"] == "booking.created"
    other = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    with pytest.raises(WebhookVerificationError):
        verify_webhook_v2(v2a["body"], v2a["headers"], [], public_keys=["whpk_" + base64.b64encode(other).decode()])
    assert verify_webhook_v1(v1["body"], v1["headers"], v1["secret"])["type"] == "booking.created"
    assert verify_webhook_v2(v2["body"], v2["headers"], v2["secret"])["type"] == "booking.created"
    with pytest.raises(WebhookVerificationError):
        verify_webhook_v1(v1["body"], v1["headers"], v2["secret"])
    with pytest.raises(WebhookVerificationError):
        verify_webhook_v2(v2["body"].replace("booking", "b00king"), v2["headers"], v2["secret"])
