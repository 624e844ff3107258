-- Issue 58, item 1: payouts rounded down to what the payout processor can transfer (Stripe: whole HUF and TWD, BHD
-- ending in 0, whole MGA), the remainder carried on the provider's payable balance into the next settlement; a failed
-- transfer is a reconciliation finding. No new table: the columns below inherit their tables' row-level security.

-- AlterEnum
ALTER TYPE "ReconciliationFindingKind" ADD VALUE 'PAYOUT_FAILED';

-- AlterTable (provider_settlements is append-only: adding a column with a default rewrites no row through the trigger)
ALTER TABLE "provider_settlements" ADD COLUMN     "payout_remainder" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payout_transfers" ADD COLUMN     "amount_carried" BIGINT NOT NULL DEFAULT 0;
