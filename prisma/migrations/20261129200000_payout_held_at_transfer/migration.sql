-- Issue 78, item 3: reserves at the moment money leaves. A settlement holds back the provider's share of the disputes
-- open and refunds pending at its end; one opened between the settlement and its transfer used to be paid out in
-- full and come back only as a negative balance later. The transfer step now holds back what a settlement made then
-- would take or hold, beyond what the provider's payable balance covers: it is carried back to that balance (part of
-- amount_carried) for the next settlement, which reserves or takes it. No new table: the column inherits its table's
-- row-level security.

-- AlterTable
ALTER TABLE "payout_transfers" ADD COLUMN     "amount_held" BIGINT NOT NULL DEFAULT 0;
