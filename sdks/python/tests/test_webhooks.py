"""Webhook verification against the platform's shared test vectors (sdks/test-vectors/webhooks.json, signed by the
server's own code): every valid case is accepted and every other refused, as the TypeScript SDK does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from therapy_care import WebhookVerificationError, verify_webhook_v1, verify_webhook_v2

VECTORS: list[dict[str, Any]] = json.loads(
    (Path(__file__).resolve().parents[2] / "test-vectors" / "webhooks.json").read_text()
)["vectors"]


def test_the_vectors_cover_both_schemes_valid_and_refused() -> None:
    assert {v["scheme"] for v in VECTORS} == {"v1", "v2"}
    assert any(v.get("publicKeys") for v in VECTORS)
    assert sum(v["valid"] for v in VECTORS) >= 8
    assert sum(not v["valid"] for v in VECTORS) >= 8


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_vector(vector: dict[str, Any]) -> None:
    def call() -> dict[str, Any]:
        if vector["scheme"] == "v1":
            return verify_webhook_v1(vector["body"], vector["headers"], vector["secrets"],
                                     tolerance=vector["toleranceSeconds"], now=vector["now"])
        # Asymmetric endpoints' cases carry the whpk_ public keys that verify their v1a (Ed25519) signatures.
        return verify_webhook_v2(vector["body"], vector["headers"], vector["secrets"],
                                 public_keys=vector.get("publicKeys", []), tolerance=vector["toleranceSeconds"],
                                 now=vector["now"])

    if vector["valid"]:
        assert call()["type"] == "booking.created"
    else:
        with pytest.raises(WebhookVerificationError):
            call()


def test_a_missing_header_is_refused_with_its_code() -> None:
    with pytest.raises(WebhookVerificationError) as refused:
        verify_webhook_v1("{}", {}, "whsec_x")
    assert refused.value.code == "missing_signature"
