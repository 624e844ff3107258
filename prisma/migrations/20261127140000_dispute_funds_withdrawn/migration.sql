-- Issue 58, item 4: reserves (docs/marketplace.md, "Reserves"). A settlement held back the provider's share of every
-- open dispute because Stripe withdraws the disputed amount when a dispute opens; but an inquiry (Stripe's
-- `warning_needs_response`, `warning_under_review`) withdraws nothing, so the provider's payout was held back for money
-- Stripe never took. A dispute now records when Stripe withdrew its funds (the first event showing a status that is
-- not an inquiry's, or a withdrawing balance transaction; never cleared), and settlements reserve only disputes whose
-- funds were withdrawn before their end. Every existing dispute was treated as withdrawn from its creation, so it
-- keeps that instant: settlements already made, and those made again for the same period, hold what they held.
-- No new table: the column below inherits its table's row-level security and privileges.

-- AlterTable
ALTER TABLE "payment_disputes" ADD COLUMN     "funds_withdrawn_at" TIMESTAMPTZ(3);

-- ---- Hand-written ----
UPDATE "payment_disputes" SET "funds_withdrawn_at" = "created_at";
