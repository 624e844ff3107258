-- Fair shares between tenants (docs/webhooks.md, "Fair shares between tenants", issue 54): the pumps' claim takes due
-- deliveries per tenant, in turns, so one tenant's backlog can no longer hide another tenant's due rows from it. It
-- finds the tenants with due rows by a skip scan (one probe per tenant) and then reads each tenant's oldest due rows,
-- both in this index's order. It replaces the claim's earlier index on `next_attempt_at` alone, which nothing else
-- reads (every other query of queued rows leads with the endpoint), so a delivery's writes pay for no extra entry.
-- Held rows (`next_attempt_at` NULL, held-deliveries.ts) are left out: a dead endpoint's backlog is not in it at all.
DROP INDEX "webhook_deliveries_due_idx";
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" ("tenant_id", "next_attempt_at")
  WHERE "status" = 'PENDING' AND "workflow_started_at" IS NULL AND "next_attempt_at" IS NOT NULL;
