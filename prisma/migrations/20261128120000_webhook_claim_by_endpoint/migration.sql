-- The pumps' claim reads due deliveries per endpoint (domain/webhooks/delivery-queue.ts `claimDue`; docs/benchmarks.md,
-- "Webhooks: a claim led by the endpoint", issue 56): a skip scan finds the endpoints with a due row, one probe each,
-- and each endpoint of the pump's partition gives its oldest due rows. Led by the tenant, the index made every claim
-- step over the leased rows and the other partitions' rows due before its own, more the further behind the pumps
-- were. It replaces the tenant-led index, which nothing else reads, so a delivery's writes pay for no extra entry.
-- Held rows (`next_attempt_at` NULL, held-deliveries.ts) stay out of it.
DROP INDEX "webhook_deliveries_due_idx";
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("endpoint_id", "next_attempt_at")
  WHERE "status" = 'PENDING' AND "workflow_started_at" IS NULL AND "next_attempt_at" IS NOT NULL;
