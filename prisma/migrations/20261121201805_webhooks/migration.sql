-- CreateEnum
CREATE TYPE "WebhookSigningScheme" AS ENUM ('V1', 'V2');

-- CreateEnum
CREATE TYPE "WebhookDisabledReason" AS ENUM ('MANUAL', 'GONE', 'FAILING');

-- CreateEnum
CREATE TYPE "WebhookDeliveryStatus" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateEnum
CREATE TYPE "WebhookDeliveryKind" AS ENUM ('EVENT', 'REDELIVERY');

-- AlterTable
ALTER TABLE "events" ADD COLUMN     "fanned_out_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "event_types" TEXT[],
    "signing_scheme" "WebhookSigningScheme" NOT NULL,
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "signing_key" TEXT,
    "previous_signing_key" TEXT,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_reason" "WebhookDisabledReason",
    "disabled_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "endpoint_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "kind" "WebhookDeliveryKind" NOT NULL,
    "status" "WebhookDeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "workflow_id" TEXT NOT NULL,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "workflow_started_at" TIMESTAMPTZ(3),
    "dispatch_lease_until" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_delivery_attempts" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "status_code" INTEGER,
    "latency_ms" INTEGER NOT NULL,
    "error" TEXT,
    "succeeded" BOOLEAN NOT NULL,

    CONSTRAINT "webhook_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_tenant_id_created_at_id_idx" ON "webhook_endpoints"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_workflow_id_key" ON "webhook_deliveries"("workflow_id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_workflow_started_at_created_at_idx" ON "webhook_deliveries"("workflow_started_at", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_tenant_id_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("tenant_id", "endpoint_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_tenant_id_event_id_created_at_idx" ON "webhook_deliveries"("tenant_id", "event_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_status_idx" ON "webhook_deliveries"("endpoint_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_delivery_attempts_delivery_id_number_key" ON "webhook_delivery_attempts"("delivery_id", "number");

-- CreateIndex
CREATE INDEX "events_fanned_out_at_created_at_idx" ON "events"("fanned_out_at", "created_at");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_delivery_attempts" ADD CONSTRAINT "webhook_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Events recorded before webhooks existed were never meant to be delivered: mark them fanned out.
UPDATE "events" SET "fanned_out_at" = "created_at" WHERE "fanned_out_at" IS NULL;

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "webhook_endpoints" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "webhook_endpoints"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "webhook_deliveries" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "webhook_deliveries"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "webhook_delivery_attempts" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "webhook_delivery_attempts"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
