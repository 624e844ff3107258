-- CreateEnum
CREATE TYPE "PriceUnit" AS ENUM ('PER_SESSION', 'PER_15_MINUTES', 'PER_30_MINUTES', 'PER_HOUR', 'PER_ASSESSMENT', 'PER_PACKAGE', 'PER_ITEM');

-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('DRAFT', 'OPEN', 'PARTIALLY_PAID', 'PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'VOID');

-- CreateEnum
CREATE TYPE "OrderLineKind" AS ENUM ('SESSION', 'SESSION_PACKAGE', 'ASSESSMENT', 'PRODUCT');

-- CreateEnum
CREATE TYPE "PaymentStatus" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateEnum
CREATE TYPE "PaymentMethod" AS ENUM ('CASH', 'CARD_TERMINAL', 'BANK_TRANSFER', 'INSURER_REMITTANCE', 'CHEQUE');

-- CreateEnum
CREATE TYPE "RefundReason" AS ENUM ('REQUESTED_BY_CLIENT', 'DUPLICATE', 'SERVICE_NOT_PROVIDED', 'APPOINTMENT_CANCELLED', 'INSURER_ADJUSTMENT', 'OTHER');

-- CreateTable
CREATE TABLE "prices" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "location_id" TEXT,
    "service" TEXT NOT NULL,
    "appointment_type" "AppointmentType",
    "description" TEXT,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "unit" "PriceUnit" NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "active_key" TEXT,
    "archived_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "prices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "client_id" TEXT,
    "child_id" TEXT,
    "status" "OrderStatus" NOT NULL,
    "currency" TEXT NOT NULL,
    "subtotal" INTEGER NOT NULL,
    "discount_total" INTEGER NOT NULL,
    "tax_total" INTEGER NOT NULL,
    "total" INTEGER NOT NULL,
    "amount_paid" INTEGER NOT NULL DEFAULT 0,
    "amount_refunded" INTEGER NOT NULL DEFAULT 0,
    "balance" INTEGER NOT NULL,
    "opened_at" TIMESTAMPTZ(3),
    "paid_at" TIMESTAMPTZ(3),
    "voided_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "order_lines" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "kind" "OrderLineKind" NOT NULL,
    "description" TEXT NOT NULL,
    "service" TEXT,
    "quantity" INTEGER NOT NULL,
    "unit_amount" INTEGER NOT NULL,
    "discount_amount" INTEGER NOT NULL DEFAULT 0,
    "tax_amount" INTEGER NOT NULL DEFAULT 0,
    "line_total" INTEGER NOT NULL,
    "appointment_id" TEXT,
    "session_id" TEXT,
    "price_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payments" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "location_id" TEXT NOT NULL,
    "client_id" TEXT,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" "PaymentStatus" NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "processor" TEXT NOT NULL,
    "processor_reference" TEXT,
    "reference" TEXT,
    "failure_code" TEXT,
    "failure_message" TEXT,
    "amount_refunded" INTEGER NOT NULL DEFAULT 0,
    "received_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refunds" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "payment_id" TEXT NOT NULL,
    "order_id" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" "RefundReason" NOT NULL,
    "method" "PaymentMethod" NOT NULL,
    "reference" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refunds_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "prices_tenant_id_created_at_id_idx" ON "prices"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "prices_tenant_id_service_idx" ON "prices"("tenant_id", "service");

-- CreateIndex
CREATE UNIQUE INDEX "prices_tenant_id_active_key_key" ON "prices"("tenant_id", "active_key");

-- CreateIndex
CREATE INDEX "orders_tenant_id_created_at_id_idx" ON "orders"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "orders_tenant_id_status_created_at_idx" ON "orders"("tenant_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "orders_tenant_id_location_id_created_at_idx" ON "orders"("tenant_id", "location_id", "created_at");

-- CreateIndex
CREATE INDEX "orders_tenant_id_client_id_idx" ON "orders"("tenant_id", "client_id");

-- CreateIndex
CREATE INDEX "orders_tenant_id_child_id_idx" ON "orders"("tenant_id", "child_id");

-- CreateIndex
CREATE INDEX "order_lines_tenant_id_appointment_id_idx" ON "order_lines"("tenant_id", "appointment_id");

-- CreateIndex
CREATE UNIQUE INDEX "order_lines_order_id_position_key" ON "order_lines"("order_id", "position");

-- CreateIndex
CREATE INDEX "payments_tenant_id_created_at_id_idx" ON "payments"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "payments_tenant_id_order_id_idx" ON "payments"("tenant_id", "order_id");

-- CreateIndex
CREATE INDEX "payments_tenant_id_status_created_at_idx" ON "payments"("tenant_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "payments_tenant_id_location_id_created_at_idx" ON "payments"("tenant_id", "location_id", "created_at");

-- CreateIndex
CREATE INDEX "refunds_tenant_id_payment_id_idx" ON "refunds"("tenant_id", "payment_id");

-- CreateIndex
CREATE INDEX "refunds_tenant_id_created_at_id_idx" ON "refunds"("tenant_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "order_lines" ADD CONSTRAINT "order_lines_price_id_fkey" FOREIGN KEY ("price_id") REFERENCES "prices"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "payments" ADD CONSTRAINT "payments_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_payment_id_fkey" FOREIGN KEY ("payment_id") REFERENCES "payments"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "refunds" ADD CONSTRAINT "refunds_order_id_fkey" FOREIGN KEY ("order_id") REFERENCES "orders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Tenant isolation (see 20261121185800_row_level_security): every tenant table gets the same policy.
ALTER TABLE "prices" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "prices"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "orders" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "orders"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "order_lines" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "order_lines"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "payments" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "payments"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "refunds" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "refunds"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- Money arithmetic held true by the database as well as by the domain code (docs/payments.md): amounts are
-- non-negative integer minor units, totals add up, nobody pays more than the total or gets back more than was paid.
-- Triggers rather than CHECK constraints: Prisma's WASM schema engine (scripts/db/migrate-dev.ts) panics when it
-- introspects a CHECK constraint, which would stop every later `db:migrate:dev`; triggers it ignores.
CREATE FUNCTION money_violation(what TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'money invariant violated: %', what USING ERRCODE = 'check_violation';
END $$;

CREATE FUNCTION money_check_price() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount < 0 THEN PERFORM money_violation('prices.amount >= 0'); END IF;
  IF NEW.currency !~ '^[A-Z]{3}$' THEN PERFORM money_violation('prices.currency is an ISO 4217 code'); END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER prices_money_check BEFORE INSERT OR UPDATE ON "prices"
  FOR EACH ROW EXECUTE FUNCTION money_check_price();

CREATE FUNCTION money_check_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.currency !~ '^[A-Z]{3}$' THEN PERFORM money_violation('orders.currency is an ISO 4217 code'); END IF;
  IF NEW.subtotal < 0 OR NEW.discount_total < 0 OR NEW.tax_total < 0 OR NEW.total < 0 THEN
    PERFORM money_violation('orders: amounts >= 0');
  END IF;
  IF NEW.total::bigint <> NEW.subtotal::bigint - NEW.discount_total + NEW.tax_total THEN
    PERFORM money_violation('orders.total = subtotal - discount_total + tax_total');
  END IF;
  IF NEW.amount_paid < 0 OR NEW.amount_paid > NEW.total THEN PERFORM money_violation('orders: 0 <= amount_paid <= total'); END IF;
  IF NEW.amount_refunded < 0 OR NEW.amount_refunded > NEW.amount_paid THEN
    PERFORM money_violation('orders: 0 <= amount_refunded <= amount_paid');
  END IF;
  IF NEW.balance <> NEW.total - NEW.amount_paid THEN PERFORM money_violation('orders.balance = total - amount_paid'); END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER orders_money_check BEFORE INSERT OR UPDATE ON "orders"
  FOR EACH ROW EXECUTE FUNCTION money_check_order();

CREATE FUNCTION money_check_order_line() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.quantity <= 0 THEN PERFORM money_violation('order_lines.quantity > 0'); END IF;
  IF NEW.unit_amount < 0 OR NEW.discount_amount < 0 OR NEW.tax_amount < 0 THEN
    PERFORM money_violation('order_lines: amounts >= 0');
  END IF;
  IF NEW.discount_amount::bigint > NEW.quantity::bigint * NEW.unit_amount THEN
    PERFORM money_violation('order_lines.discount_amount <= quantity * unit_amount');
  END IF;
  IF NEW.line_total::bigint <> NEW.quantity::bigint * NEW.unit_amount - NEW.discount_amount + NEW.tax_amount THEN
    PERFORM money_violation('order_lines.line_total = quantity * unit_amount - discount_amount + tax_amount');
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER order_lines_money_check BEFORE INSERT OR UPDATE ON "order_lines"
  FOR EACH ROW EXECUTE FUNCTION money_check_order_line();

CREATE FUNCTION money_check_payment() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount <= 0 THEN PERFORM money_violation('payments.amount > 0'); END IF;
  IF NEW.currency !~ '^[A-Z]{3}$' THEN PERFORM money_violation('payments.currency is an ISO 4217 code'); END IF;
  IF NEW.amount_refunded < 0 OR NEW.amount_refunded > NEW.amount THEN
    PERFORM money_violation('payments: 0 <= amount_refunded <= amount');
  END IF;
  IF NEW.status <> 'SUCCEEDED' AND NEW.amount_refunded <> 0 THEN
    PERFORM money_violation('payments: only a succeeded payment is refunded');
  END IF;
  IF NEW.status = 'FAILED' AND NEW.failure_code IS NULL THEN PERFORM money_violation('payments: a failure has a code'); END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER payments_money_check BEFORE INSERT OR UPDATE ON "payments"
  FOR EACH ROW EXECUTE FUNCTION money_check_payment();

CREATE FUNCTION money_check_refund() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.amount <= 0 THEN PERFORM money_violation('refunds.amount > 0'); END IF;
  IF NEW.currency !~ '^[A-Z]{3}$' THEN PERFORM money_violation('refunds.currency is an ISO 4217 code'); END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER refunds_money_check BEFORE INSERT OR UPDATE ON "refunds"
  FOR EACH ROW EXECUTE FUNCTION money_check_refund();
