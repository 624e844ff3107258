-- Stripe's events, read once for the whole platform (issue 76, item 2; docs/payments.md, "Reconciliation"). A
-- reconciliation run needs the objects that changed in its window; Stripe lists its events for the whole account,
-- filtered by type and time only. Each tenant's run used to page them all: the account's events, once per run. Now
-- the first run that needs a stretch of time pages it once and keeps, per event, which object it is about and whose
-- (the tenant of our metadata, or the payment intent a refund or dispute belongs to); every run reads its tenant's
-- rows here. Ids and tenant ids only: no amounts, no names. The system role writes it and reads it with the tenant
-- named in the statement; as every table with a tenant_id it has row-level security all the same (a unit sees its
-- tenant's rows only, and none of the rows no metadata attributes). Rows older than Stripe's 30 days are removed as
-- the index moves on.
CREATE TABLE "processor_event_index" (
    "event_id" TEXT NOT NULL,
    "processor" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "object_type" TEXT NOT NULL,
    "object_id" TEXT NOT NULL,
    "tenant_id" TEXT,
    "payment_intent_id" TEXT,

    CONSTRAINT "processor_event_index_pkey" PRIMARY KEY ("event_id")
);

CREATE INDEX "processor_event_index_tenant_idx" ON "processor_event_index" ("processor", "tenant_id", "created_at");

ALTER TABLE "processor_event_index" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "processor_event_index" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- How far the index reaches, and which process is reading Stripe for it now (a lease, never a transaction held across
-- Stripe's answers): one reader at a time, the other runs wait for it.
CREATE TABLE "processor_event_cursor" (
    "processor" TEXT NOT NULL,
    "indexed_from" TIMESTAMPTZ(3),
    "indexed_until" TIMESTAMPTZ(3),
    "lease_until" TIMESTAMPTZ(3),

    CONSTRAINT "processor_event_cursor_pkey" PRIMARY KEY ("processor")
);

SELECT app_grant_system_role();
