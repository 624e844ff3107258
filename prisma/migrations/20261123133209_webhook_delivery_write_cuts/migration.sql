-- Fewer writes per webhook delivery (docs/webhooks.md, "What a delivery writes"). A delivery row is written three
-- times (fan-out's INSERT, the claim's lease, the record); every write that is not a heap-only update adds an entry to
-- each index of webhook_deliveries, and the record changes indexed columns (status, next_attempt_at), so it always
-- does. Two of those indexes served only the retired workflow-per-delivery design, and nothing queries them now:

-- The earlier design's workflow id. Its deterministic value made a second start of the same delivery fail; fan-out's
-- unique (event, endpoint) index does that now, and no query looks a delivery up by its workflow id. Queued rows have
-- it NULL, and a B-tree indexes NULLs: every queued row paid for an entry here.
DROP INDEX "webhook_deliveries_workflow_id_key";

-- The old dispatcher's sweep of unstarted rows by age; the dispatcher is gone (the pumps claim through
-- webhook_deliveries_due_idx), and the queries that test `workflow_started_at IS NULL` all lead with another column.
DROP INDEX "webhook_deliveries_workflow_started_at_created_at_idx";

-- A first attempt that succeeds (the common case) is kept on the delivery row instead of a row of its own in
-- webhook_delivery_attempts: its time is `first_attempt_at`, its status code `last_status_code`, its latency this
-- column. The delivery log shows it as attempt 1, as before. Every other attempt still gets its own row.
ALTER TABLE "webhook_deliveries" ADD COLUMN "first_attempt_latency_ms" INTEGER;
