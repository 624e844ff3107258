-- Fewer index entries per webhook delivery (docs/webhooks.md, "What a delivery writes", issue 56): at 1,500 deliveries
-- a second PostgreSQL spent about half a millisecond of CPU on each, mostly per row written.
--
-- 1. Room in each page for the claim's new row version. The claim changes only `dispatch_lease_until`, which no index
--    reads, but freshly inserted pages are full, so the new version went to another page and every index got an
--    entry: six per claim. With free space left in the page it is a heap-only (HOT) update: none. Applies to pages
--    written from now on (existing rows keep their pages until they are rewritten).
ALTER TABLE "webhook_deliveries" SET (fillfactor = 50);

-- 2. The queue's reads by endpoint (held deliveries, a retry workflow's probe, ending an endpoint's deliveries) all ask
--    for PENDING rows not owned by a workflow: an index of those alone. The record that ends a delivery (SUCCEEDED,
--    FAILED) then adds no entry to it, where it added one to the (endpoint_id, status) index it replaces; the probe's
--    order (created_at, id) is the index's own. The delivery log's status filter reads its scope's index (tenant and
--    endpoint; or the event's, below).
DROP INDEX "webhook_deliveries_endpoint_id_status_idx";
CREATE INDEX "webhook_deliveries_pending_idx" ON "webhook_deliveries" ("endpoint_id", "created_at", "id")
  WHERE "status" = 'PENDING' AND "workflow_started_at" IS NULL;

-- 3. The delivery log of one event reads the unique (event_id, endpoint_id) index: an event has one delivery per
--    endpoint subscribed, sorted in memory by time. The (tenant_id, event_id, created_at) index duplicated it, an
--    entry more for every delivery's INSERT and for its record.
DROP INDEX "webhook_deliveries_tenant_id_event_id_created_at_idx";
