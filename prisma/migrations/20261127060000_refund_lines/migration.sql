-- Issue 58, item 2: a refund may name the order lines it gives back (docs/payments.md, "Refunds"), so that a
-- settlement takes it from the providers of those lines only (docs/marketplace.md, "What is owed"). A refund without
-- lines is shared among its order's lines by weight, as before; no existing refund gets lines.
--
-- A table rather than a JSON column on refunds: each row references its order line (a foreign key, so a line of
-- another order or tenant cannot be named at all), settlements join it in SQL next to the settlement items, and its
-- amounts are BIGINT money like every other amount.

-- CreateTable
CREATE TABLE "refund_lines" (
    "tenant_id" TEXT NOT NULL,
    "refund_id" TEXT NOT NULL,
    "order_line_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "amount" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refund_lines_pkey" PRIMARY KEY ("refund_id","order_line_id")
);

-- CreateIndex
CREATE INDEX "refund_lines_tenant_id_order_line_id_idx" ON "refund_lines"("tenant_id", "order_line_id");

-- AddForeignKey
ALTER TABLE "refund_lines" ADD CONSTRAINT "refund_lines_refund_id_fkey" FOREIGN KEY ("refund_id") REFERENCES "refunds"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refund_lines" ADD CONSTRAINT "refund_lines_order_line_id_fkey" FOREIGN KEY ("order_line_id") REFERENCES "order_lines"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- ---- Hand-written ----
-- Tenant data: row-level security like every tenant table (test/integration/tenant-isolation.int.test.ts checks).
ALTER TABLE "refund_lines" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "refund_lines"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- The arithmetic the database holds, as for refunds themselves (migration money_orders_payments): a line's amount is
-- positive, names a line of the refund's own order in the refund's tenant, and a refund's lines add up to its amount
-- (checked at commit, once all of a refund's lines are in).
CREATE FUNCTION refund_lines_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  refund RECORD;
  total BIGINT;
BEGIN
  SELECT r.tenant_id, r.order_id, r.amount INTO refund FROM refunds r WHERE r.id = NEW.refund_id;
  IF NEW.amount <= 0 THEN
    RAISE EXCEPTION 'refund line % of refund %: amount must be positive', NEW.order_line_id, NEW.refund_id;
  END IF;
  IF refund.tenant_id IS DISTINCT FROM NEW.tenant_id OR NOT EXISTS (
    SELECT 1 FROM order_lines ol
    WHERE ol.id = NEW.order_line_id AND ol.order_id = refund.order_id AND ol.tenant_id = NEW.tenant_id) THEN
    RAISE EXCEPTION 'refund line % is not a line of the order of refund %', NEW.order_line_id, NEW.refund_id;
  END IF;
  SELECT COALESCE(SUM(amount), 0) INTO total FROM refund_lines WHERE refund_id = NEW.refund_id;
  IF total <> refund.amount THEN
    RAISE EXCEPTION 'the lines of refund % add up to %, not its amount %', NEW.refund_id, total, refund.amount;
  END IF;
  RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER refund_lines_check AFTER INSERT OR UPDATE ON "refund_lines"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refund_lines_check();
