-- CreateEnum
CREATE TYPE "PayoutAccountStatus" AS ENUM ('ONBOARDING', 'ACTIVE', 'RESTRICTED');

-- CreateEnum
CREATE TYPE "PayoutTransferStatus" AS ENUM ('PENDING', 'PAID', 'FAILED', 'REVERSED', 'BLOCKED');

-- CreateTable
CREATE TABLE "provider_payout_accounts" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "processor" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "status" "PayoutAccountStatus" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "provider_payout_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payout_transfers" (
    "id" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "settlement_id" TEXT NOT NULL,
    "provider_settlement_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" "PayoutTransferStatus" NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "account_id" TEXT,
    "processor_reference" TEXT,
    "failure_message" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "payout_transfers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "provider_payout_accounts_tenant_id_provider_id_key" ON "provider_payout_accounts"("tenant_id", "provider_id");

-- CreateIndex
CREATE UNIQUE INDEX "provider_payout_accounts_account_id_key" ON "provider_payout_accounts"("account_id");

-- CreateIndex
CREATE INDEX "payout_transfers_tenant_id_settlement_id_idx" ON "payout_transfers"("tenant_id", "settlement_id");

-- CreateIndex
CREATE UNIQUE INDEX "payout_transfers_tenant_id_provider_settlement_id_key" ON "payout_transfers"("tenant_id", "provider_settlement_id");

-- Tenant data: row-level security like every other table (test/integration/tenant-isolation.int.test.ts checks).
ALTER TABLE "provider_payout_accounts" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "provider_payout_accounts"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "payout_transfers" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "payout_transfers"
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
