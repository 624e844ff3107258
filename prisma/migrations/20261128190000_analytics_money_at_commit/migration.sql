-- A payment adds to its month's money roll-up when its transaction commits, not when its row is written (issue 56;
-- docs/analytics.md, "Roll-ups"; docs/benchmarks.md, "Payments: the money roll-up at commit").
--
-- Every succeeded payment of a tenant's location in a month adds to one `analytics_money_months` row. Written by the
-- statement-level trigger as the payment was inserted, that row stayed locked until the payment's transaction ended:
-- through the order's update, the ledger entry, the event, the audit record and the commit, each a round trip from
-- the API. Every other payment of the location waited for it (`Lock:transactionid` on `INSERT INTO payments`), so a
-- location's payments ran one at a time, and anything that slowed one transaction (a busy CPU) slowed all the others
-- behind it.
--
-- A deferred constraint trigger adds the row's change at commit instead, after everything else the transaction did,
-- so the roll-up row is held only while the commit is written. The change is the same: what the new row contributes
-- less what the old one did, netted in one upsert (a change that moves nothing writes nothing). A rollback still
-- takes the roll-up with it: the trigger runs inside the transaction it belongs to. Row-level, because a constraint
-- trigger cannot be statement-level; payments are written one at a time. OLD and NEW are the rows as they were when
-- the event was queued, so a later change in the same transaction is its own event and the changes add up.
DROP TRIGGER payments_analytics_insert ON "payments";
DROP TRIGGER payments_analytics_update ON "payments";
DROP TRIGGER payments_analytics_delete ON "payments";
DROP FUNCTION analytics_payment_months_apply();

CREATE FUNCTION analytics_payment_money_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
  SELECT tenant_id, month, location_id, currency, sum(collected), 0
  FROM (
    SELECT NEW.tenant_id AS tenant_id, date_trunc('month', NEW.received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month,
           NEW.location_id AS location_id, NEW.currency AS currency, NEW.amount::bigint AS collected
    WHERE TG_OP <> 'DELETE' AND NEW.status = 'SUCCEEDED' AND NEW.received_at IS NOT NULL
    UNION ALL
    SELECT OLD.tenant_id, date_trunc('month', OLD.received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC',
           OLD.location_id, OLD.currency, -1 * OLD.amount::bigint
    WHERE TG_OP <> 'INSERT' AND OLD.status = 'SUCCEEDED' AND OLD.received_at IS NOT NULL
  ) d
  GROUP BY 1, 2, 3, 4
  HAVING sum(collected) <> 0
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE SET collected = m.collected + excluded.collected;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER payments_analytics_money AFTER INSERT OR UPDATE OR DELETE ON "payments"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION analytics_payment_money_apply();
