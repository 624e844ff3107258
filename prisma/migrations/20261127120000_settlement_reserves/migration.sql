-- Issue 58, item 4: reserves (docs/marketplace.md, "Reserves"). Stripe withdraws a disputed amount when the dispute
-- opens, and a pending refund is money on its way back to the payer; a settlement paid the provider their share of
-- both in full, and took it back only once the dispute was lost or the refund succeeded, from earnings the provider
-- may never have. Now a settlement holds the provider's share back while the dispute is open or the refund pending
-- (a RESERVE item per dispute or refund and order line, booked to provider_reserve:<provider>) and the first
-- settlement after it closes gives it back (RESERVE_RELEASE), the real CHARGEBACK or REFUND being taken as before.
-- No new table: the column below inherits its table's row-level security and privileges.

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "SettlementItemKind" ADD VALUE 'RESERVE';
ALTER TYPE "SettlementItemKind" ADD VALUE 'RESERVE_RELEASE';

-- AlterTable (provider_settlements is append-only: adding a column with a default rewrites no row through the trigger)
ALTER TABLE "provider_settlements" ADD COLUMN     "reserve_amount" BIGINT NOT NULL DEFAULT 0;

-- ---- Hand-written ----
-- A reserve and its release name exactly one refund or one dispute: settlements release what they held by it. The
-- kind is compared as text, since a value added by ALTER TYPE cannot be used in the transaction that adds it.
ALTER TABLE "settlement_items" ADD CONSTRAINT "settlement_items_reserve_source_check"
  CHECK (kind::text NOT IN ('RESERVE', 'RESERVE_RELEASE') OR ((refund_id IS NULL) <> (dispute_id IS NULL)));
