-- Issue 58, item 3: a payment's disputes as rows of their own, one per processor dispute id (docs/payments.md,
-- "Disputes"). A payment held one dispute in its own columns and each event overwrote them whatever dispute it was
-- about, so an inquiry closed as `warning_closed` and then a chargeback lost on the same charge compared the new
-- dispute's LOST with nothing and was never charged back. Each dispute now has its own state, amounts and instants;
-- settlement items of lost disputes name the dispute, so a second loss is taken from the provider once more and a
-- reinstatement gives back only its own.
--
-- - The payment's dispute columns go: their readers read the rows (an order's amountChargedBack stays, the sum its
--   applied payments' lost disputes took). Each payment that had a dispute gets its row with the same values.
-- - settlement_items.dispute_id names the dispute of a CHARGEBACK or CHARGEBACK_REVERSAL. The items settled before
--   this migration name their payment only (dedupe key CHARGEBACK:<payment>:<line>): their payment had one dispute,
--   the row made below, which they are given. settlement_items is append-only by a trigger: it is disabled for that
--   one statement, which fills the new column and changes nothing else of any item.

-- CreateTable
CREATE TABLE "payment_disputes" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "processor_reference" TEXT NOT NULL,
    "status" "PaymentDisputeStatus" NOT NULL,
    "amount" BIGINT NOT NULL,
    "amount_lost" BIGINT NOT NULL DEFAULT 0,
    "lost_at" TIMESTAMPTZ(3),
    "reinstated_at" TIMESTAMPTZ(3),
    "fee" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payment_disputes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payment_disputes_tenant_id_payment_id_idx" ON "payment_disputes"("tenant_id", "payment_id");

-- CreateIndex
CREATE INDEX "payment_disputes_tenant_id_status_idx" ON "payment_disputes"("tenant_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "payment_disputes_tenant_id_processor_reference_key" ON "payment_disputes"("tenant_id", "processor_reference");

-- AlterTable
ALTER TABLE "settlement_items" ADD COLUMN     "dispute_id" TEXT;

-- ---- Hand-written ----
-- Tenant data: row-level security like every tenant table (test/integration/tenant-isolation.int.test.ts checks), and
-- the application role's privileges on it, those its siblings have (migration row_level_security), granted by name
-- rather than left to whichever role's default privileges apply to the role running this migration.
ALTER TABLE "payment_disputes" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "payment_disputes"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON "payment_disputes" TO therapy_app;

-- A row points only at a row of its own tenant (migration tenant_composite_foreign_keys): the dispute's payment, and
-- a settlement item's dispute, by keys that include tenant_id.
ALTER TABLE "payment_disputes" ADD CONSTRAINT "payment_disputes_tenant_id_id_key" UNIQUE ("tenant_id", "id");
ALTER TABLE "payment_disputes"
  ADD CONSTRAINT "payment_disputes_payment_id_tenant_fkey" FOREIGN KEY ("tenant_id", "payment_id") REFERENCES "payments" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "settlement_items"
  ADD CONSTRAINT "settlement_items_dispute_id_tenant_fkey" FOREIGN KEY ("tenant_id", "dispute_id") REFERENCES "payment_disputes" ("tenant_id", "id")
    ON DELETE RESTRICT ON UPDATE CASCADE;

-- Backfill: each payment's dispute as its row. Written with the payment's last change as its instants (when the
-- dispute was opened was never recorded). The id is domain/ids.ts's sqlNewId for kind paymentDispute (dsp_).
INSERT INTO "payment_disputes" (
  "id", "tenant_id", "payment_id", "processor_reference", "status", "amount", "amount_lost", "lost_at",
  "reinstated_at", "fee", "created_at", "updated_at"
)
SELECT 'dsp_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
         || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14),
       p.tenant_id, p.id, p.dispute_reference, p.dispute_status, p.amount_disputed, p.amount_lost, p.dispute_lost_at,
       p.dispute_reinstated_at, p.dispute_fee, p.updated_at, p.updated_at
FROM "payments" p
WHERE p.dispute_status IS NOT NULL
ORDER BY p.tenant_id, p.id;

ALTER TABLE "settlement_items" DISABLE TRIGGER settlement_items_append_only;
UPDATE "settlement_items" si
SET "dispute_id" = d.id
FROM "payment_disputes" d
WHERE si.kind IN ('CHARGEBACK', 'CHARGEBACK_REVERSAL') AND si.dispute_id IS NULL
  AND d.tenant_id = si.tenant_id AND d.payment_id = si.payment_id;
ALTER TABLE "settlement_items" ENABLE TRIGGER settlement_items_append_only;

-- Every chargeback item names its dispute (settlements match what they took by it).
ALTER TABLE "settlement_items" ADD CONSTRAINT "settlement_items_chargeback_dispute_check"
  CHECK (kind NOT IN ('CHARGEBACK', 'CHARGEBACK_REVERSAL') OR dispute_id IS NOT NULL);

-- AlterTable (after the backfill read them)
ALTER TABLE "payments" DROP COLUMN "amount_disputed",
DROP COLUMN "amount_lost",
DROP COLUMN "dispute_fee",
DROP COLUMN "dispute_lost_at",
DROP COLUMN "dispute_reference",
DROP COLUMN "dispute_reinstated_at",
DROP COLUMN "dispute_status";
