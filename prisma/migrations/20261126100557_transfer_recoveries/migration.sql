-- AlterTable
ALTER TABLE "payout_transfer_attempts" ADD COLUMN     "amount_recovered" BIGINT NOT NULL DEFAULT 0;
