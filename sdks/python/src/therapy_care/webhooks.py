"""Webhook verification, v1 (``X-Service-Signature``, Stripe's construction) and v2 (Standard Webhooks), with the
5-minute tolerance, checked against the platform's shared test vectors (sdks/test-vectors/webhooks.json). Verify the
raw body before parsing it: re-serialised JSON differs from what was signed."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from typing import Any, Mapping, Sequence

DEFAULT_TOLERANCE_SECONDS = 300
V1_SIGNATURE_HEADER = "x-service-signature"
SECRET_PREFIX = "whsec_"


class WebhookVerificationError(Exception):
    """The delivery must not be trusted: ``code`` says why."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        super().__init__(message)


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


def _as_list(secret: str | Sequence[str]) -> list[str]:
    return [secret] if isinstance(secret, str) else list(secret)


def _check_timestamp(raw: str, tolerance: int, now: float | None) -> int:
    if not raw.isdigit():
        raise WebhookVerificationError("invalid_timestamp", "The signature's timestamp is not a number.")
    timestamp = int(raw)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance:
        raise WebhookVerificationError("timestamp_out_of_tolerance", "The signature is too old or from the future.")
    return timestamp


def _event(body: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(body)
    except ValueError as error:
        raise WebhookVerificationError("invalid_body", "The verified body is not JSON.") from error
    if not isinstance(parsed, dict):
        raise WebhookVerificationError("invalid_body", "The verified body is not an event.")
    return parsed


def verify_webhook_v1(body: bytes | str, headers: Mapping[str, str], secret: str | Sequence[str], *,
                      tolerance: int = DEFAULT_TOLERANCE_SECONDS, now: float | None = None) -> dict[str, Any]:
    """Verifies ``X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256("<t>.<body>")>[,v1=...]`` (key: the secret as
    issued) and returns the event. Several secrets while you rotate yours; any signature may match."""
    raw = body.encode() if isinstance(body, str) else body
    value = _header(headers, V1_SIGNATURE_HEADER)
    if not value:
        raise WebhookVerificationError("missing_signature", "No X-Service-Signature header.")
    parts = [part.split("=", 1) for part in value.split(",") if "=" in part]
    timestamps = [v for k, v in parts if k.strip() == "t"]
    signatures = [v.strip() for k, v in parts if k.strip() == "v1"]
    if len(timestamps) != 1 or not signatures:
        raise WebhookVerificationError("invalid_signature_header", "X-Service-Signature is malformed.")
    timestamp = _check_timestamp(timestamps[0].strip(), tolerance, now)
    signed = f"{timestamp}.".encode() + raw
    for key in _as_list(secret):
        expected = hmac.new(key.encode(), signed, hashlib.sha256).hexdigest()
        if any(hmac.compare_digest(expected, s) for s in signatures):
            return _event(raw)
    raise WebhookVerificationError("signature_mismatch", "No signature matches the secret.")


def _v2_key(secret: str) -> bytes:
    encoded = secret[len(SECRET_PREFIX):] if secret.startswith(SECRET_PREFIX) else secret
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise ValueError("A v2 secret is whsec_ followed by base64.") from error


def verify_webhook_v2(body: bytes | str, headers: Mapping[str, str], secret: str | Sequence[str], *,
                      tolerance: int = DEFAULT_TOLERANCE_SECONDS, now: float | None = None) -> dict[str, Any]:
    """Verifies Standard Webhooks' ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature: v1,<base64
    HMAC-SHA256("<id>.<t>.<body>")>`` (key: the base64 after ``whsec_``) and returns the event. Ed25519 (``v1a``)
    signatures are not verified by this SDK yet; the HMAC ones always accompany them."""
    raw = body.encode() if isinstance(body, str) else body
    event_id = _header(headers, "webhook-id")
    raw_timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    if not event_id or not raw_timestamp or not signature:
        raise WebhookVerificationError("missing_signature", "The webhook-id, -timestamp or -signature header is missing.")
    timestamp = _check_timestamp(raw_timestamp.strip(), tolerance, now)
    signatures = [entry.split(",", 1)[1] for entry in signature.split(" ") if entry.startswith("v1,")]
    signed = f"{event_id}.{timestamp}.".encode() + raw
    for key in _as_list(secret):
        expected = base64.b64encode(hmac.new(_v2_key(key), signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected, s) for s in signatures):
            return _event(raw)
    raise WebhookVerificationError("signature_mismatch", "No signature matches the secret.")
