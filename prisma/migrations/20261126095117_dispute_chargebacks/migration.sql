-- AlterEnum
ALTER TYPE "PaymentDisputeStatus" ADD VALUE 'CLOSED';

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "SettlementItemKind" ADD VALUE 'CHARGEBACK';
ALTER TYPE "SettlementItemKind" ADD VALUE 'CHARGEBACK_REVERSAL';

-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "amount_charged_back" BIGINT NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "dispute_fee" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "dispute_lost_at" TIMESTAMPTZ(3),
ADD COLUMN     "dispute_reinstated_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "settlement_items" ADD COLUMN     "payment_id" TEXT;
