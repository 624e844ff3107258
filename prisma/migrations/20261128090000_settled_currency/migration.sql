-- Issue 58, "FX as ledger entries": a processor that keeps its balance in another currency than the payer paid in
-- converts the charge, and its balance transactions say what moved in that currency. Payments, refunds and disputes
-- record it
-- (null: kept as charged), and the collection entries post the conversion through `fx_conversion`, a currency trading
-- account: the payer's money in the charged currency, the processor's in the balance's (domain/settlements/journal.ts).
-- An entry then has lines in two currencies, so an entry balances in each currency, not across them.

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "settled_amount" BIGINT,
ADD COLUMN     "settled_currency" TEXT,
ADD COLUMN     "settled_fee" BIGINT;

-- AlterTable
ALTER TABLE "refunds" ADD COLUMN     "settled_amount" BIGINT,
ADD COLUMN     "settled_currency" TEXT;

-- AlterTable
ALTER TABLE "payment_disputes" ADD COLUMN     "settled_amount" BIGINT,
ADD COLUMN     "settled_currency" TEXT,
ADD COLUMN     "settled_fee" BIGINT;

-- ---- Hand-written ----
-- Every journal entry balances in each of its currencies, checked at commit (deferred) once all its lines are in.
CREATE OR REPLACE FUNCTION ledger_entry_balanced() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
DECLARE
  unbalanced record;
BEGIN
  SELECT currency, SUM(debit) AS debits, SUM(credit) AS credits INTO unbalanced
    FROM ledger_lines WHERE entry_id = NEW.entry_id
    GROUP BY currency HAVING SUM(debit) <> SUM(credit)
    LIMIT 1;
  IF FOUND THEN
    RAISE EXCEPTION 'journal entry % does not balance in %: debits %, credits %', NEW.entry_id, unbalanced.currency,
      unbalanced.debits, unbalanced.credits
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
