-- Issue 58, "books equal Stripe's balance": money is booked when it moves, not when a settlement runs
-- (domain/settlements/journal.ts, domain/payments/collection-ledger.ts). A payment that succeeded brings its amount
-- into `clearing` (money at the processor) or `centre_funds` (a payment the centre recorded), owed to the payers in
-- `payer_funds`; refunds, withdrawn disputes and the processor's fees take it out when they happen; a settlement moves
-- what it pays from `payer_funds`, and a payout made without a payout processor leaves `centre_funds`. Before this,
-- settlement items debited and credited `clearing` themselves, and money collected for sessions not yet settled was in
-- no account.
--
-- The ledger is append-only (triggers refuse UPDATE and DELETE): what was posted stays, and this migration posts
-- the entries that bring the books to the new chart, dated when the money moved where that is known:
-- 1. per tenant and currency, one entry moving the settlement items' `clearing` legs to `payer_funds` (sessions,
--    refunds, chargebacks and their reversals) and to `centre_funds` (payouts without a payout processor);
-- 2. one entry per payment, refund and dispute for the money that moved for it, as collection-ledger.ts posts it.
-- A payment's processing fee (`payments.processor_fee`, new) is asked of Stripe when its success is applied; the
-- payments before it never recorded theirs, so their fees are not in these books (0): a reconciliation run whose
-- window holds such a payment records Stripe's fee and books it (domain/reconciliation/repairs.ts).

-- AlterTable
ALTER TABLE "ledger_entries" ADD COLUMN     "collection_of" TEXT;

-- AlterTable
ALTER TABLE "payments" ADD COLUMN     "processor_fee" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "ledger_entries_tenant_id_collection_of_idx" ON "ledger_entries"("tenant_id", "collection_of");

-- ---- Hand-written ----
-- 1. The settlement items' legs on `clearing`, moved.
WITH legs AS MATERIALIZED (
  SELECT l.tenant_id, l.currency,
    CASE WHEN si.kind = 'PAYOUT' THEN 'centre_funds' ELSE 'payer_funds' END AS account,
    SUM(l.debit - l.credit) AS balance,
    ('jre_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
      || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14)) AS entry_id
  FROM ledger_lines l
  JOIN settlement_items si ON si.tenant_id = l.tenant_id AND si.id = l.settlement_item_id
  WHERE l.account = 'clearing'
    AND si.kind IN ('SESSION', 'REFUND', 'REFUND_REVERSAL', 'CHARGEBACK', 'CHARGEBACK_REVERSAL', 'PAYOUT')
  GROUP BY l.tenant_id, l.currency, 3
  HAVING SUM(l.debit - l.credit) <> 0
),
entries AS (
  INSERT INTO ledger_entries (id, tenant_id, currency, description, posted_at)
  SELECT entry_id, tenant_id, currency,
    'Chart of accounts: settlement postings on clearing moved to ' || account || ' (money booked when it moves)',
    now()
  FROM legs
)
INSERT INTO ledger_lines (id, tenant_id, entry_id, account, currency, debit, credit)
SELECT 'jrl_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
    || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14),
  legs.tenant_id, legs.entry_id, v.account, legs.currency, GREATEST(v.amount, 0), GREATEST(-v.amount, 0)
FROM legs
CROSS JOIN LATERAL (VALUES (legs.account, legs.balance), ('clearing', -legs.balance)) AS v(account, amount);

-- 2. The money each payment, refund and dispute moved (collection-ledger.ts, moneyMoved).
WITH moves AS (
  SELECT p.tenant_id, p.currency, p.id AS subject, 'Payment ' || p.id AS description, p.processor,
    p.amount AS collected, 0::bigint AS fee, COALESCE(p.received_at, now()) AS moved_at
  FROM payments p
  WHERE p.status = 'SUCCEEDED'
  UNION ALL
  SELECT r.tenant_id, p.currency, r.id, 'Refund ' || r.id || ' of payment ' || p.id, p.processor,
    -r.amount, 0, COALESCE(r.succeeded_at, now())
  FROM refunds r
  JOIN payments p ON p.tenant_id = r.tenant_id AND p.id = r.payment_id
  WHERE r.status = 'SUCCEEDED'
  UNION ALL
  SELECT d.tenant_id, p.currency, d.id, 'Dispute ' || d.processor_reference || ' of payment ' || p.id, p.processor,
    CASE WHEN d.funds_withdrawn_at IS NOT NULL AND d.status <> 'WON' THEN -d.amount ELSE 0 END, d.fee,
    COALESCE(d.funds_withdrawn_at, d.updated_at)
  FROM payment_disputes d
  JOIN payments p ON p.tenant_id = d.tenant_id AND p.id = d.payment_id
),
subjects AS MATERIALIZED (
  SELECT moves.*,
    CASE WHEN processor = 'recorded' THEN 'centre_funds' ELSE 'clearing' END AS holding,
    ('jre_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
      || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14)) AS entry_id
  FROM moves
  WHERE collected <> 0 OR fee <> 0
),
entries AS (
  INSERT INTO ledger_entries (id, tenant_id, currency, collection_of, description, posted_at)
  SELECT entry_id, tenant_id, currency, subject, description, moved_at FROM subjects
)
INSERT INTO ledger_lines (id, tenant_id, entry_id, account, currency, debit, credit)
SELECT 'jrl_' || lpad(to_hex(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint), 12, '0')
    || '7' || substr(replace(gen_random_uuid()::text, '-', ''), 14),
  s.tenant_id, s.entry_id, v.account, s.currency, GREATEST(v.amount, 0), GREATEST(-v.amount, 0)
FROM subjects s
CROSS JOIN LATERAL (
  VALUES (s.holding, s.collected - s.fee), ('payer_funds', -s.collected), ('processor_fees', s.fee)
) AS v(account, amount)
WHERE v.amount <> 0;
