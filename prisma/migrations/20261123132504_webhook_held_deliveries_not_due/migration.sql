-- Held deliveries leave the due index's range (docs/webhooks.md, "Failing endpoints"): while an endpoint's circuit
-- breaker is open, its queued EVENT deliveries wait for the endpoint's retry workflow with `next_attempt_at` NULL, so
-- the pumps' claim, which walks `webhook_deliveries_due_idx` in `next_attempt_at` order, no longer steps over a dead
-- endpoint's backlog (1.5 s a claim behind a million held rows, docs/benchmarks.md). Closing the breaker makes them
-- due again. Redeliveries asked for by hand keep their time (the claim takes them while the breaker is open), and a
-- disabled endpoint's rows stay due (the claim ends them).
UPDATE "webhook_deliveries" d SET "next_attempt_at" = NULL
  FROM "webhook_endpoints" w
  WHERE w."id" = d."endpoint_id" AND w."circuit_opened_at" IS NOT NULL AND w."enabled"
    AND d."status" = 'PENDING' AND d."workflow_started_at" IS NULL AND d."kind" = 'EVENT'
    AND d."next_attempt_at" IS NOT NULL;
