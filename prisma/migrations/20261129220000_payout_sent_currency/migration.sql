-- Issue 78, item 1: payouts from a balance Stripe converted. A tenant whose Stripe balance keeps another currency than
-- its payers pay in has its charges settled in that currency (payments.settled_currency); a transfer in the charged
-- currency is refused by Stripe. A transfer now records the balance's currency and the rate of the charges that paid
-- its settlement, and each attempt what it sent in that currency (and what of it was reversed), beside the settlement
-- currency's amounts the books and the provider's balance keep. No new table: the columns inherit their tables'
-- row-level security.

-- AlterTable
ALTER TABLE "payout_transfers" ADD COLUMN     "sent_currency" TEXT,
ADD COLUMN     "sent_rate" DOUBLE PRECISION;

-- AlterTable
ALTER TABLE "payout_transfer_attempts" ADD COLUMN     "sent_currency" TEXT,
ADD COLUMN     "sent_amount" BIGINT,
ADD COLUMN     "sent_reversed" BIGINT NOT NULL DEFAULT 0;

-- A transfer converts at a positive rate into a currency other than its own, or not at all.
ALTER TABLE "payout_transfers" ADD CONSTRAINT "payout_transfers_sent_rate" CHECK (
  (sent_currency IS NULL AND sent_rate IS NULL) OR (sent_currency IS NOT NULL AND sent_rate > 0 AND sent_currency <> currency)
);
