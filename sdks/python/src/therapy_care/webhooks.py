"""Webhook verification, v1 (``X-Service-Signature``, Stripe's construction) and v2 (Standard Webhooks: HMAC ``v1``
and, with the optional ``cryptography`` package (``pip install therapy-care[ed25519]``), Ed25519 ``v1a``), with the
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
PUBLIC_KEY_PREFIX = "whpk_"


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


def _decode(value: str, prefix: str, message: str) -> bytes:
    encoded = value[len(prefix):] if value.startswith(prefix) else value
    try:
        return base64.b64decode(encoded, validate=True)
    except binascii.Error as error:
        raise ValueError(message) from error


def _v2_key(secret: str) -> bytes:
    return _decode(secret, SECRET_PREFIX, "A v2 secret is whsec_ followed by base64.")


def _ed25519_verifies(public_key: str, signed: bytes, signature: bytes) -> bool:
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError as error:  # pragma: no cover - exercised only without the extra installed
        raise RuntimeError("Ed25519 (whpk_) keys need the cryptography package: pip install therapy-care[ed25519]") from error
    raw = _decode(public_key, PUBLIC_KEY_PREFIX, "A public key is whpk_ followed by base64.")
    if len(raw) != 32:
        raise ValueError("A public key is whpk_ followed by base64 of 32 bytes.")
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(signature, signed)
        return True
    except InvalidSignature:
        return False


def verify_webhook_v2(body: bytes | str, headers: Mapping[str, str], secret: str | Sequence[str], *,
                      public_keys: Sequence[str] = (), tolerance: int = DEFAULT_TOLERANCE_SECONDS,
                      now: float | None = None) -> dict[str, Any]:
    """Verifies Standard Webhooks' ``webhook-id``, ``webhook-timestamp`` and ``webhook-signature`` and returns the
    event: ``v1,<base64 HMAC-SHA256("<id>.<t>.<body>")>`` entries with the ``whsec_`` secret(s) (key: the base64 after
    the prefix), and ``v1a,<base64 Ed25519>`` entries with the ``whpk_`` ``public_keys`` of an asymmetric endpoint
    (``secret`` may then be empty)."""
    raw = body.encode() if isinstance(body, str) else body
    event_id = _header(headers, "webhook-id")
    raw_timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    if not event_id or not raw_timestamp or not signature:
        raise WebhookVerificationError("missing_signature", "The webhook-id, -timestamp or -signature header is missing.")
    timestamp = _check_timestamp(raw_timestamp.strip(), tolerance, now)
    entries = [entry.split(",", 1) for entry in signature.split(" ") if "," in entry]
    signed = f"{event_id}.{timestamp}.".encode() + raw
    for key in _as_list(secret):
        expected = base64.b64encode(hmac.new(_v2_key(key), signed, hashlib.sha256).digest()).decode()
        if any(version == "v1" and hmac.compare_digest(expected, value) for version, value in entries):
            return _event(raw)
    ed25519 = [_signature_bytes(value) for version, value in entries if version == "v1a"]
    for public_key in public_keys:
        if any(sig is not None and _ed25519_verifies(public_key, signed, sig) for sig in ed25519):
            return _event(raw)
    raise WebhookVerificationError("signature_mismatch", "No signature matches the keys.")


def _signature_bytes(value: str) -> bytes | None:
    try:
        decoded = base64.b64decode(value, validate=True)
    except binascii.Error:
        return None
    return decoded if len(decoded) == 64 else None
