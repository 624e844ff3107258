"""Schemathesis hooks for `npm run fuzz` (loaded through SCHEMATHESIS_HOOKS by scripts/fuzz/schemathesis.ts).

A client sends a new Idempotency-Key with every new request (the description says so). Schemathesis draws keys from
a small space and sends the same few values ("0", "00"...) with different requests, which the API must refuse with
422 `idempotency_key_reused`: most generated writes were refused for that alone, never reaching their handler. Each
valid request (positive case) therefore gets a fresh key; requests generated to be invalid keep theirs, so refused
keys are still sent. Reusing a key is tested in test/integration/idempotency.int.test.ts.
"""

import uuid

import schemathesis
from schemathesis import GenerationMode


@schemathesis.hook
def before_call(context, case, **kwargs):
    headers = case.headers or {}
    meta = case.meta
    if "Idempotency-Key" in headers and meta is not None and meta.generation.mode == GenerationMode.POSITIVE:
        headers["Idempotency-Key"] = str(uuid.uuid4())
