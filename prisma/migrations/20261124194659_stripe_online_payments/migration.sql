/*
  Warnings:

  - A unique constraint covering the columns `[tenant_id,processor_idempotency_key]` on the table `payments` will be added. If there are existing duplicate values, this will fail.
  - A unique constraint covering the columns `[tenant_id,processor_idempotency_key]` on the table `refunds` will be added. If there are existing duplicate values, this will fail.

*/
-- CreateEnum
CREATE TYPE "RefundStatus" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- AlterEnum
ALTER TYPE "PaymentMethod" ADD VALUE 'CARD_ONLINE';

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "processor_idempotency_key" TEXT;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "processor_idempotency_key" TEXT,
ADD COLUMN     "processor_reference" TEXT,
ADD COLUMN     "status" "RefundStatus" NOT NULL DEFAULT 'SUCCEEDED';

-- CreateIndex
CREATE UNIQUE INDEX "payments_tenant_id_processor_idempotency_key_key" ON "payments"("tenant_id", "processor_idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "refunds_tenant_id_processor_idempotency_key_key" ON "refunds"("tenant_id", "processor_idempotency_key");

-- A refund the processor could not make (FAILED) no longer counts as money refunded in the analytics rollups: the
-- same function as in 20261122023912_analytics_rollups, with a failed refund's amount counted as 0.
CREATE OR REPLACE FUNCTION analytics_refund_months_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, 1 * (CASE WHEN r.status = 'FAILED' THEN 0 ELSE r.amount END)::bigint AS refunded
      FROM new_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, 1 * (CASE WHEN r.status = 'FAILED' THEN 0 ELSE r.amount END)::bigint AS refunded
      FROM new_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
      UNION ALL
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, -1 * (CASE WHEN r.status = 'FAILED' THEN 0 ELSE r.amount END)::bigint AS refunded
      FROM old_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, -1 * (CASE WHEN r.status = 'FAILED' THEN 0 ELSE r.amount END)::bigint AS refunded
      FROM old_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  END IF;
  RETURN NULL;
END $$;
