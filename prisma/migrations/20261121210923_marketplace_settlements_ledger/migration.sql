-- CreateEnum
CREATE TYPE "PayoutAdjustmentReason" AS ENUM ('BONUS', 'CORRECTION', 'CHARGEBACK', 'EXPENSE_REIMBURSEMENT', 'OTHER');

-- CreateEnum
CREATE TYPE "SettlementStatus" AS ENUM ('PENDING', 'RUNNING', 'COMPLETED', 'FAILED');

-- CreateEnum
CREATE TYPE "SettlementOutcome" AS ENUM ('SETTLED', 'ALREADY_SETTLED');

-- CreateEnum
CREATE TYPE "SettlementItemKind" AS ENUM ('SESSION', 'REFUND', 'ADJUSTMENT', 'PAYOUT');

-- CreateTable
CREATE TABLE "provider_match_profiles" (
    "provider_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "specialties" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "payers" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "accepting_new_clients" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_match_profiles_pkey" PRIMARY KEY ("provider_id")
);

-- CreateTable
CREATE TABLE "platform_fee_rules" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT,
    "scope_key" TEXT NOT NULL,
    "percent_bps" INTEGER NOT NULL,
    "fixed_amount" INTEGER NOT NULL DEFAULT 0,
    "fixed_currency" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "platform_fee_rules_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payout_adjustments" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "reason" "PayoutAdjustmentReason" NOT NULL,
    "description" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payout_adjustments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settlements" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "provider_ids" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "request_key" TEXT NOT NULL,
    "status" "SettlementStatus" NOT NULL DEFAULT 'PENDING',
    "failure_reason" TEXT,
    "workflow_id" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "failed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "settlements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settlement_providers" (
    "settlement_id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "provider_settlement_id" TEXT NOT NULL,
    "outcome" "SettlementOutcome" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settlement_providers_pkey" PRIMARY KEY ("settlement_id","provider_id")
);

-- CreateTable
CREATE TABLE "provider_settlements" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "settlement_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "period_end" TIMESTAMPTZ(3) NOT NULL,
    "session_count" INTEGER NOT NULL,
    "gross_amount" INTEGER NOT NULL,
    "fee_amount" INTEGER NOT NULL,
    "refund_amount" INTEGER NOT NULL,
    "fee_refund_amount" INTEGER NOT NULL,
    "adjustment_amount" INTEGER NOT NULL,
    "net_amount" INTEGER NOT NULL,
    "carried_forward" INTEGER NOT NULL,
    "payout_amount" INTEGER NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "provider_settlements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "settlement_items" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_settlement_id" TEXT NOT NULL,
    "kind" "SettlementItemKind" NOT NULL,
    "dedupe_key" TEXT NOT NULL,
    "order_id" TEXT,
    "order_line_id" TEXT,
    "appointment_id" TEXT,
    "refund_id" TEXT,
    "adjustment_id" TEXT,
    "amount" INTEGER NOT NULL,
    "fee_amount" INTEGER NOT NULL DEFAULT 0,
    "fee_percent_bps" INTEGER,
    "fee_fixed_amount" INTEGER,
    "earned_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "settlement_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "provider_settlement_id" TEXT,
    "description" TEXT NOT NULL,
    "posted_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_lines" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "entry_id" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "debit" INTEGER NOT NULL DEFAULT 0,
    "credit" INTEGER NOT NULL DEFAULT 0,
    "settlement_item_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "provider_match_profiles_tenant_id_idx" ON "provider_match_profiles"("tenant_id");

-- CreateIndex
CREATE INDEX "platform_fee_rules_tenant_id_created_at_id_idx" ON "platform_fee_rules"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "platform_fee_rules_tenant_id_scope_key_key" ON "platform_fee_rules"("tenant_id", "scope_key");

-- CreateIndex
CREATE INDEX "payout_adjustments_tenant_id_created_at_id_idx" ON "payout_adjustments"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "payout_adjustments_tenant_id_provider_id_created_at_idx" ON "payout_adjustments"("tenant_id", "provider_id", "created_at");

-- CreateIndex
CREATE INDEX "settlements_tenant_id_created_at_id_idx" ON "settlements"("tenant_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "settlements_tenant_id_request_key_key" ON "settlements"("tenant_id", "request_key");

-- CreateIndex
CREATE INDEX "settlement_providers_tenant_id_idx" ON "settlement_providers"("tenant_id");

-- CreateIndex
CREATE INDEX "provider_settlements_tenant_id_provider_id_created_at_idx" ON "provider_settlements"("tenant_id", "provider_id", "created_at");

-- CreateIndex
CREATE INDEX "provider_settlements_settlement_id_idx" ON "provider_settlements"("settlement_id");

-- CreateIndex
CREATE UNIQUE INDEX "provider_settlements_tenant_id_provider_id_currency_period__key" ON "provider_settlements"("tenant_id", "provider_id", "currency", "period_start", "period_end");

-- CreateIndex
CREATE INDEX "settlement_items_provider_settlement_id_idx" ON "settlement_items"("provider_settlement_id");

-- CreateIndex
CREATE INDEX "settlement_items_tenant_id_order_line_id_idx" ON "settlement_items"("tenant_id", "order_line_id");

-- CreateIndex
CREATE UNIQUE INDEX "settlement_items_tenant_id_dedupe_key_key" ON "settlement_items"("tenant_id", "dedupe_key");

-- CreateIndex
CREATE INDEX "ledger_entries_tenant_id_posted_at_id_idx" ON "ledger_entries"("tenant_id", "posted_at", "id");

-- CreateIndex
CREATE INDEX "ledger_entries_provider_settlement_id_idx" ON "ledger_entries"("provider_settlement_id");

-- CreateIndex
CREATE INDEX "ledger_lines_entry_id_idx" ON "ledger_lines"("entry_id");

-- CreateIndex
CREATE INDEX "ledger_lines_tenant_id_account_currency_idx" ON "ledger_lines"("tenant_id", "account", "currency");

-- AddForeignKey
ALTER TABLE "settlement_providers" ADD CONSTRAINT "settlement_providers_settlement_id_fkey" FOREIGN KEY ("settlement_id") REFERENCES "settlements"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "settlement_providers" ADD CONSTRAINT "settlement_providers_provider_settlement_id_fkey" FOREIGN KEY ("provider_settlement_id") REFERENCES "provider_settlements"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "settlement_items" ADD CONSTRAINT "settlement_items_provider_settlement_id_fkey" FOREIGN KEY ("provider_settlement_id") REFERENCES "provider_settlements"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_provider_settlement_id_fkey" FOREIGN KEY ("provider_settlement_id") REFERENCES "provider_settlements"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ledger_lines" ADD CONSTRAINT "ledger_lines_entry_id_fkey" FOREIGN KEY ("entry_id") REFERENCES "ledger_entries"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Row-level security: every marketplace table holds one tenant's data.
ALTER TABLE "provider_match_profiles" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_match_profiles" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "platform_fee_rules" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "platform_fee_rules" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "payout_adjustments" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "payout_adjustments" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "settlements" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "settlements" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "settlement_providers" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "settlement_providers" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "provider_settlements" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_settlements" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "settlement_items" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "settlement_items" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "ledger_entries" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "ledger_entries" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "ledger_lines" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "ledger_lines" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- Rules Prisma cannot express, as triggers (like the money migration) rather than CHECK constraints.

-- A fee is a share between 0 and 100 % plus a non-negative flat amount that names its currency.
CREATE OR REPLACE FUNCTION platform_fee_rules_valid() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF NEW.percent_bps < 0 OR NEW.percent_bps > 10000 THEN
    RAISE EXCEPTION 'platform fee percent_bps % is outside 0..10000', NEW.percent_bps USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.fixed_amount < 0 OR (NEW.fixed_amount > 0 AND NEW.fixed_currency IS NULL) THEN
    RAISE EXCEPTION 'platform fee fixed_amount must be >= 0 and name its currency' USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER platform_fee_rules_valid BEFORE INSERT OR UPDATE ON platform_fee_rules
  FOR EACH ROW EXECUTE FUNCTION platform_fee_rules_valid();

-- A ledger line is a debit or a credit, positive, never both.
CREATE OR REPLACE FUNCTION ledger_lines_valid() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  IF NEW.debit < 0 OR NEW.credit < 0 OR (NEW.debit = 0) = (NEW.credit = 0) THEN
    RAISE EXCEPTION 'a ledger line is either a positive debit or a positive credit (debit %, credit %)', NEW.debit, NEW.credit
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER ledger_lines_valid BEFORE INSERT ON ledger_lines
  FOR EACH ROW EXECUTE FUNCTION ledger_lines_valid();

-- Every journal entry balances, checked at commit (deferred) once all its lines are in.
CREATE OR REPLACE FUNCTION ledger_entry_balanced() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  debits bigint;
  credits bigint;
BEGIN
  SELECT COALESCE(SUM(debit), 0), COALESCE(SUM(credit), 0) INTO debits, credits
    FROM ledger_lines WHERE entry_id = NEW.entry_id;
  IF debits <> credits THEN
    RAISE EXCEPTION 'journal entry % does not balance: debits %, credits %', NEW.entry_id, debits, credits
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER ledger_entry_balanced AFTER INSERT ON ledger_lines
  DEFERRABLE INITIALLY DEFERRED
  FOR EACH ROW EXECUTE FUNCTION ledger_entry_balanced();

-- The books are append-only: a correction is a new entry (an adjustment), never an edit.
REVOKE UPDATE, DELETE, TRUNCATE ON ledger_entries, ledger_lines, settlement_items, provider_settlements FROM therapy_app;

CREATE OR REPLACE FUNCTION marketplace_books_append_only() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER ledger_entries_append_only BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION marketplace_books_append_only();
CREATE TRIGGER ledger_lines_append_only BEFORE UPDATE OR DELETE ON ledger_lines
  FOR EACH ROW EXECUTE FUNCTION marketplace_books_append_only();
CREATE TRIGGER settlement_items_append_only BEFORE UPDATE OR DELETE ON settlement_items
  FOR EACH ROW EXECUTE FUNCTION marketplace_books_append_only();
CREATE TRIGGER provider_settlements_append_only BEFORE UPDATE OR DELETE ON provider_settlements
  FOR EACH ROW EXECUTE FUNCTION marketplace_books_append_only();
