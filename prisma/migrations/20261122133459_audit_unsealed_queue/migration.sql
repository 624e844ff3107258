-- CreateTable
CREATE TABLE "audit_unsealed" (
    "event_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "audit_unsealed_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE INDEX "audit_unsealed_tenant_id_occurred_at_event_id_idx" ON "audit_unsealed"("tenant_id", "occurred_at", "event_id");

-- ---- Hand-written (docs/audit-trail.md, "Sealing") ----
-- Tenant data: row-level security like every tenant table. The application role reads its tenant's queue, and the
-- sealer (running as the tenant) removes what it sealed; nothing ever updates a row.
ALTER TABLE "audit_unsealed" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "audit_unsealed" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
REVOKE ALL ON "audit_unsealed" FROM therapy_app;
GRANT SELECT, INSERT, DELETE ON "audit_unsealed" TO therapy_app;

-- Every record enters the queue in the transaction that inserts it, whatever inserts it: a trigger, so no code path
-- can forget. It runs as the invoker, so under row-level security it can only queue rows of the record's own tenant,
-- which the record's insert has already required. A record taken off the queue without being sealed is still found
-- by verification, which counts unsealed records from audit_events itself (domain/audit/verify-chain.ts).
CREATE OR REPLACE FUNCTION audit_events_enqueue_unsealed() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO audit_unsealed (event_id, tenant_id, occurred_at) VALUES (NEW.id, NEW.tenant_id, NEW.occurred_at);
  RETURN NULL;
END
$$;

CREATE TRIGGER audit_events_enqueue_unsealed
  AFTER INSERT ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_enqueue_unsealed();

-- Records already waiting when this migration runs.
INSERT INTO audit_unsealed (event_id, tenant_id, occurred_at)
SELECT e.id, e.tenant_id, e.occurred_at FROM audit_events e
WHERE NOT EXISTS (SELECT 1 FROM audit_chain c WHERE c.event_id = e.id);
