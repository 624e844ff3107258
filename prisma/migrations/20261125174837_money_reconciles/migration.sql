-- CreateEnum
CREATE TYPE "PaymentDisputeStatus" AS ENUM ('OPEN', 'WON', 'LOST');

-- CreateEnum
CREATE TYPE "RefundOrigin" AS ENUM ('API', 'AUTOMATIC', 'PROCESSOR');

-- CreateEnum
CREATE TYPE "PayoutAttemptStatus" AS ENUM ('PENDING', 'PAID', 'FAILED');

-- CreateEnum
CREATE TYPE "ReconciliationFindingKind" AS ENUM ('MISSING_AT_PROCESSOR', 'MISSING_IN_PLATFORM', 'AMOUNT_MISMATCH', 'CURRENCY_MISMATCH', 'STATUS_MISMATCH', 'UNAPPLIED_PAYMENT', 'EVENT_MISMATCH');

-- CreateEnum
CREATE TYPE "ReconciliationObjectType" AS ENUM ('PAYMENT', 'REFUND', 'DISPUTE', 'TRANSFER');

-- CreateEnum
CREATE TYPE "ReconciliationFindingStatus" AS ENUM ('OPEN', 'RESOLVED');

-- AlterEnum
ALTER TYPE "PaymentStatus" ADD VALUE 'CANCELED';

-- AlterEnum
ALTER TYPE "PayoutTransferStatus" ADD VALUE 'PARTIALLY_REVERSED';

-- AlterEnum
ALTER TYPE "SettlementItemKind" ADD VALUE 'REFUND_REVERSAL';

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN     "payout_transfer_id" TEXT;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "amount_disputed" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "amount_lost" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "dispute_reference" TEXT,
ADD COLUMN     "dispute_status" "PaymentDisputeStatus",
ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "unapplied" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "payout_transfers" ADD COLUMN     "amount_reversed" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "failed_at" TIMESTAMPTZ(3),
ADD COLUMN     "failure_message" TEXT,
ADD COLUMN     "origin" "RefundOrigin" NOT NULL DEFAULT 'API',
ADD COLUMN     "succeeded_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "payout_transfer_attempts" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "transfer_id" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "status" "PayoutAttemptStatus" NOT NULL,
    "processor_reference" TEXT,
    "amount_reversed" INTEGER NOT NULL DEFAULT 0,
    "failure_message" TEXT,
    "first_sent_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payout_transfer_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "processor_events" (
    "id" TEXT NOT NULL,
    "processor" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "tenant_id" TEXT,
    "object_id" TEXT,
    "livemode" BOOLEAN NOT NULL,
    "account" TEXT,
    "outcome" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "processor_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reconciliation_findings" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "kind" "ReconciliationFindingKind" NOT NULL,
    "object_type" "ReconciliationObjectType" NOT NULL,
    "object_id" TEXT,
    "processor_reference" TEXT,
    "ours" JSONB,
    "theirs" JSONB,
    "detail" TEXT NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "status" "ReconciliationFindingStatus" NOT NULL DEFAULT 'OPEN',
    "run_id" TEXT,
    "occurrences" INTEGER NOT NULL DEFAULT 1,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "resolved_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "reconciliation_findings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payout_transfer_attempts_tenant_id_processor_reference_idx" ON "payout_transfer_attempts"("tenant_id", "processor_reference");

-- CreateIndex
CREATE UNIQUE INDEX "payout_transfer_attempts_tenant_id_transfer_id_attempt_key" ON "payout_transfer_attempts"("tenant_id", "transfer_id", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "payout_transfer_attempts_idempotency_key_key" ON "payout_transfer_attempts"("idempotency_key");

-- CreateIndex
CREATE INDEX "processor_events_tenant_id_received_at_idx" ON "processor_events"("tenant_id", "received_at");

-- CreateIndex
CREATE INDEX "processor_events_object_id_occurred_at_idx" ON "processor_events"("object_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "processor_events_processor_event_id_key" ON "processor_events"("processor", "event_id");

-- CreateIndex
CREATE INDEX "reconciliation_findings_tenant_id_created_at_id_idx" ON "reconciliation_findings"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "reconciliation_findings_tenant_id_status_created_at_idx" ON "reconciliation_findings"("tenant_id", "status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "reconciliation_findings_tenant_id_dedupe_key_key" ON "reconciliation_findings"("tenant_id", "dedupe_key");

-- Tenant data: row-level security like every other table (test/integration/tenant-isolation.int.test.ts checks). A
-- processor event naming no tenant of ours is written by the platform's own connection, and no tenant sees it.
ALTER TABLE "payout_transfer_attempts" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "payout_transfer_attempts"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "processor_events" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "processor_events"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "reconciliation_findings" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "reconciliation_findings"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- One state machine for refunds (docs/payments.md, "Refunds"): only a SUCCEEDED refund counts in `amount_refunded`;
-- a PENDING one holds its amount against what is refundable. Refunds recorded PENDING before this version were
-- counted at once: take them out of the payments' and orders' refunded amounts, and give each order the status its
-- amounts now say (the rule of domain/orders/order-status.ts, statusFromMoney).
UPDATE refunds SET succeeded_at = created_at WHERE status = 'SUCCEEDED';
UPDATE refunds SET failed_at = created_at WHERE status = 'FAILED';
UPDATE payments p SET amount_refunded = p.amount_refunded - r.pending
FROM (SELECT payment_id, sum(amount)::int AS pending FROM refunds WHERE status = 'PENDING' GROUP BY payment_id) r
WHERE r.payment_id = p.id;
UPDATE orders o SET amount_refunded = o.amount_refunded - r.pending,
  status = (CASE
    WHEN o.amount_refunded - r.pending > 0 THEN
      CASE WHEN o.amount_refunded - r.pending >= o.amount_paid THEN 'REFUNDED' ELSE 'PARTIALLY_REFUNDED' END
    WHEN o.amount_paid >= o.total THEN 'PAID'
    WHEN o.amount_paid = 0 THEN 'OPEN'
    ELSE 'PARTIALLY_PAID'
  END)::"OrderStatus"
FROM (SELECT order_id, sum(amount)::int AS pending FROM refunds WHERE status = 'PENDING' GROUP BY order_id) r
WHERE r.order_id = o.id AND o.status NOT IN ('DRAFT', 'VOID');
