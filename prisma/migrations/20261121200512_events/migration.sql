-- CreateTable
CREATE TABLE "events" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "events_tenant_id_created_at_id_idx" ON "events"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_tenant_id_type_created_at_idx" ON "events"("tenant_id", "type", "created_at");

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "events" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "events"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
