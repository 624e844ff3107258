-- Every money column is BIGINT (issue 46, item 3). INTEGER stopped at 2,147,483,647 minor units: two large orders in
-- a currency with big minor amounts (IDR, COP, UZS, IRR) made a provider's settlement, payout and ledger lines
-- unstorable, and every later period failed on the same backlog. Amounts are now bounded by what a JSON number
-- carries exactly (2^53 - 1, domain/pricing/money.ts), which BIGINT holds with room to spare.
--
-- Hand-written: prisma/schema.prisma keeps these fields `Int`. Prisma's `Int @db.BigInt` is not allowed, and a
-- `BigInt` field would make every amount a JavaScript bigint; an `Int` field reads a BIGINT column as a number and
-- refuses (rather than rounds) one past 2^53 - 1. Each such field is marked `// money: BIGINT column` there, and
-- scripts/db/migrate-dev.ts shows the schema engine those fields as BigInt, so no later migration turns them back.

ALTER TABLE "prices" ALTER COLUMN "amount" SET DATA TYPE BIGINT;
ALTER TABLE "orders" ALTER COLUMN "subtotal" SET DATA TYPE BIGINT,
  ALTER COLUMN "discount_total" SET DATA TYPE BIGINT,
  ALTER COLUMN "tax_total" SET DATA TYPE BIGINT,
  ALTER COLUMN "total" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_paid" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_refunded" SET DATA TYPE BIGINT,
  ALTER COLUMN "balance" SET DATA TYPE BIGINT;
ALTER TABLE "order_lines" ALTER COLUMN "unit_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "discount_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "tax_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "line_total" SET DATA TYPE BIGINT;
ALTER TABLE "payments" ALTER COLUMN "amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_refunded" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_disputed" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_lost" SET DATA TYPE BIGINT;
ALTER TABLE "refunds" ALTER COLUMN "amount" SET DATA TYPE BIGINT;
ALTER TABLE "platform_fee_rules" ALTER COLUMN "fixed_amount" SET DATA TYPE BIGINT;
ALTER TABLE "payout_adjustments" ALTER COLUMN "amount" SET DATA TYPE BIGINT;
ALTER TABLE "provider_settlements" ALTER COLUMN "gross_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "fee_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "refund_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "fee_refund_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "adjustment_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "net_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "carried_forward" SET DATA TYPE BIGINT,
  ALTER COLUMN "payout_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "balance_after" SET DATA TYPE BIGINT;
ALTER TABLE "settlement_items" ALTER COLUMN "amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "fee_amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "fee_fixed_amount" SET DATA TYPE BIGINT;
ALTER TABLE "ledger_lines" ALTER COLUMN "debit" SET DATA TYPE BIGINT,
  ALTER COLUMN "credit" SET DATA TYPE BIGINT;
ALTER TABLE "payout_transfers" ALTER COLUMN "amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_reversed" SET DATA TYPE BIGINT;
ALTER TABLE "payout_transfer_attempts" ALTER COLUMN "amount" SET DATA TYPE BIGINT,
  ALTER COLUMN "amount_reversed" SET DATA TYPE BIGINT;
