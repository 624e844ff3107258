-- AlterTable
ALTER TABLE "provider_payout_accounts" ADD COLUMN     "payout_failed_amount" BIGINT,
ADD COLUMN     "payout_failed_at" TIMESTAMPTZ(3),
ADD COLUMN     "payout_failed_currency" TEXT,
ADD COLUMN     "payout_failed_reference" TEXT,
ADD COLUMN     "payout_failure_code" TEXT,
ADD COLUMN     "payout_failure_message" TEXT;
