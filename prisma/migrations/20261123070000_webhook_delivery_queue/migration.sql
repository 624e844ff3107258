-- Webhook delivery at platform scale (docs/webhooks.md, "Delivery"): first attempts come from a PostgreSQL queue
-- worked by the delivery pumps; only failing endpoints get a Temporal workflow (one each, holding the retry schedule).
--
-- A delivery is in the queue while it is PENDING and no delivery workflow owns it (`workflow_started_at` null): rows
-- created by the workflow-per-delivery design and already started stay with their workflows, which finish under
-- their old code; rows it created but never started are taken by the queue. The claim lease is the dispatcher's
-- lease column, so an API still running the old dispatcher during a rolling deploy and a pump never hold the same
-- row at once.

-- New deliveries have no workflow.
ALTER TABLE "webhook_deliveries" ALTER COLUMN "workflow_id" DROP NOT NULL;
-- When attempt 1 was made: the 24-hour retry window runs from here (copied from the attempts, for the queue's sake).
ALTER TABLE "webhook_deliveries" ADD COLUMN "first_attempt_at" TIMESTAMPTZ(3);
UPDATE "webhook_deliveries" d SET "first_attempt_at" = a."attempted_at"
  FROM "webhook_delivery_attempts" a WHERE a."delivery_id" = d."id" AND a."number" = 1;
-- Queued rows are due at `next_attempt_at`; the old dispatcher's unstarted rows are due now.
UPDATE "webhook_deliveries" SET "next_attempt_at" = "created_at"
  WHERE "status" = 'PENDING' AND "workflow_started_at" IS NULL AND "next_attempt_at" IS NULL;

-- One automatic delivery per event and endpoint: what the deterministic workflow id guaranteed before, so a second
-- fan-out of the same event (a crash between the insert and marking the event) is still a no-op.
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_key" ON "webhook_deliveries" ("event_id", "endpoint_id")
  WHERE "kind" = 'EVENT';
-- What the pumps claim: due queued deliveries, oldest first.
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("next_attempt_at")
  WHERE "status" = 'PENDING' AND "workflow_started_at" IS NULL;

-- The circuit breaker: failures in a row since the last success, and when the breaker opened (null: closed). While
-- it is open the pumps leave the endpoint's deliveries to its retry workflow.
ALTER TABLE "webhook_endpoints" ADD COLUMN "consecutive_failures" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "webhook_endpoints" ADD COLUMN "circuit_opened_at" TIMESTAMPTZ(3);
