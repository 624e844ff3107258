-- CreateTable
CREATE TABLE "reconciliation_schedules" (
    "tenant_id" TEXT NOT NULL,
    "synced_spec" TEXT,
    "synced_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "reconciliation_schedules_pkey" PRIMARY KEY ("tenant_id")
);

-- ---- Hand-written (docs/payments.md, "Reconciliation") ----
-- Tenant data: row-level security like every tenant table (test/integration/tenant-isolation.int.test.ts checks). The
-- application role adds its own tenant's row (the trigger below); the API's schedule sync runs as the login role.
ALTER TABLE "reconciliation_schedules" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "reconciliation_schedules"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- A tenant is reconciled once it takes online payments: its first CARD_ONLINE payment adds its row in the
-- transaction that inserts the payment, whatever inserts it, so no code path can forget. It runs as the invoker, so
-- under row-level security it can only add the payment's own tenant, which the payment's insert already required.
CREATE OR REPLACE FUNCTION payments_schedule_reconciliation() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  INSERT INTO reconciliation_schedules (tenant_id) VALUES (NEW.tenant_id) ON CONFLICT (tenant_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER payments_schedule_reconciliation
  AFTER INSERT ON payments
  FOR EACH ROW WHEN (NEW.method = 'CARD_ONLINE') EXECUTE FUNCTION payments_schedule_reconciliation();

-- Tenants that took online payments before this migration.
INSERT INTO reconciliation_schedules (tenant_id)
SELECT DISTINCT tenant_id FROM payments WHERE method = 'CARD_ONLINE'
ON CONFLICT (tenant_id) DO NOTHING;
