-- CreateTable
CREATE TABLE "analytics_appointment_months" (
    "tenant_id" TEXT NOT NULL,
    "month" TIMESTAMPTZ(3) NOT NULL,
    "location_id" TEXT NOT NULL,
    "provider_id" TEXT NOT NULL,
    "status" "AppointmentStatus" NOT NULL,
    "appointments" INTEGER NOT NULL,
    "late_cancelled" INTEGER NOT NULL,
    "duration_ms" BIGINT NOT NULL,

    CONSTRAINT "analytics_appointment_months_pkey" PRIMARY KEY ("tenant_id","month","location_id","provider_id","status")
);

-- CreateTable
CREATE TABLE "analytics_money_months" (
    "tenant_id" TEXT NOT NULL,
    "month" TIMESTAMPTZ(3) NOT NULL,
    "location_id" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "collected" BIGINT NOT NULL,
    "refunded" BIGINT NOT NULL,

    CONSTRAINT "analytics_money_months_pkey" PRIMARY KEY ("tenant_id","month","location_id","currency")
);

-- CreateIndex
CREATE INDEX "payments_tenant_id_received_at_idx" ON "payments"("tenant_id", "received_at");

-- ---- Hand-written (docs/analytics.md, "Roll-ups") ----
-- Tenant data: row-level security like every tenant table.
ALTER TABLE "analytics_appointment_months" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "analytics_appointment_months" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
ALTER TABLE "analytics_money_months" ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON "analytics_money_months" USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

-- The roll-ups are kept by statement-level AFTER triggers in the transaction of the write, so no code path (API,
-- workflow activity, operator CLI, seeding) can forget them and a rollback or crash takes the roll-up with it. Each
-- statement adds what its new rows contribute and subtracts what its old rows contributed (an update moving an
-- appointment to another month, status, location or provider adjusts both sides), grouped per roll-up row, in key
-- order (concurrent statements lock the rows they share in the same order), as one
-- INSERT … ON CONFLICT DO UPDATE SET n = n + excluded.n (concurrent writers add, never overwrite). Groups that net to
-- nothing (an update of a note) write nothing. The functions run as the invoker: under row-level security the rows
-- they write carry the tenant_id of the rows just written, which the policy requires anyway, so they can touch no
-- other tenant's roll-up. Months are UTC calendar months of the instant; readers add the partial months at the
-- edges of a range from the records themselves, so any zone's day boundaries are answered exactly.

-- One function per roll-up, one trigger per event (a trigger with transition tables fires on one event); the
-- branches differ only in which transition tables they read.
CREATE FUNCTION analytics_appointment_months_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_appointment_months AS m
      (tenant_id, month, location_id, provider_id, status, appointments, late_cancelled, duration_ms)
    SELECT tenant_id, month, location_id, provider_id, status, sum(n), sum(late), sum(ms)
    FROM (
      SELECT tenant_id, date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, provider_id, status, 1 AS n,
             CASE WHEN late_cancellation THEN 1 ELSE 0 END AS late,
             1 * round(extract(epoch FROM ends_at - starts_at) * 1000)::bigint AS ms
      FROM new_rows
    ) d
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(n) <> 0 OR sum(late) <> 0 OR sum(ms) <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, month, location_id, provider_id, status) DO UPDATE
      SET appointments = m.appointments + excluded.appointments,
          late_cancelled = m.late_cancelled + excluded.late_cancelled,
          duration_ms = m.duration_ms + excluded.duration_ms;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO analytics_appointment_months AS m
      (tenant_id, month, location_id, provider_id, status, appointments, late_cancelled, duration_ms)
    SELECT tenant_id, month, location_id, provider_id, status, sum(n), sum(late), sum(ms)
    FROM (
      SELECT tenant_id, date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, provider_id, status, 1 AS n,
             CASE WHEN late_cancellation THEN 1 ELSE 0 END AS late,
             1 * round(extract(epoch FROM ends_at - starts_at) * 1000)::bigint AS ms
      FROM new_rows
      UNION ALL
      SELECT tenant_id, date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, provider_id, status, -1 AS n,
             CASE WHEN late_cancellation THEN -1 ELSE 0 END AS late,
             -1 * round(extract(epoch FROM ends_at - starts_at) * 1000)::bigint AS ms
      FROM old_rows
    ) d
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(n) <> 0 OR sum(late) <> 0 OR sum(ms) <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, month, location_id, provider_id, status) DO UPDATE
      SET appointments = m.appointments + excluded.appointments,
          late_cancelled = m.late_cancelled + excluded.late_cancelled,
          duration_ms = m.duration_ms + excluded.duration_ms;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO analytics_appointment_months AS m
      (tenant_id, month, location_id, provider_id, status, appointments, late_cancelled, duration_ms)
    SELECT tenant_id, month, location_id, provider_id, status, sum(n), sum(late), sum(ms)
    FROM (
      SELECT tenant_id, date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, provider_id, status, -1 AS n,
             CASE WHEN late_cancellation THEN -1 ELSE 0 END AS late,
             -1 * round(extract(epoch FROM ends_at - starts_at) * 1000)::bigint AS ms
      FROM old_rows
    ) d
    GROUP BY 1, 2, 3, 4, 5
    HAVING sum(n) <> 0 OR sum(late) <> 0 OR sum(ms) <> 0
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (tenant_id, month, location_id, provider_id, status) DO UPDATE
      SET appointments = m.appointments + excluded.appointments,
          late_cancelled = m.late_cancelled + excluded.late_cancelled,
          duration_ms = m.duration_ms + excluded.duration_ms;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER appointments_analytics_insert AFTER INSERT ON "appointments"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_appointment_months_apply();
CREATE TRIGGER appointments_analytics_update AFTER UPDATE ON "appointments"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_appointment_months_apply();
CREATE TRIGGER appointments_analytics_delete AFTER DELETE ON "appointments"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_appointment_months_apply();

-- Refunds count at their payment's location (set from the order when the payment is made, never changed).
CREATE FUNCTION analytics_payment_months_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT tenant_id, date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency, 1 * amount::bigint AS collected, 0::bigint AS refunded
      FROM new_rows WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT tenant_id, date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency, 1 * amount::bigint AS collected, 0::bigint AS refunded
      FROM new_rows WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
      UNION ALL
      SELECT tenant_id, date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency, -1 * amount::bigint AS collected, 0::bigint AS refunded
      FROM old_rows WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT tenant_id, date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency, -1 * amount::bigint AS collected, 0::bigint AS refunded
      FROM old_rows WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER payments_analytics_insert AFTER INSERT ON "payments"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_payment_months_apply();
CREATE TRIGGER payments_analytics_update AFTER UPDATE ON "payments"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_payment_months_apply();
CREATE TRIGGER payments_analytics_delete AFTER DELETE ON "payments"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_payment_months_apply();

CREATE FUNCTION analytics_refund_months_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, 1 * r.amount::bigint AS refunded
      FROM new_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, 1 * r.amount::bigint AS refunded
      FROM new_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
      UNION ALL
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, -1 * r.amount::bigint AS refunded
      FROM old_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO analytics_money_months AS m (tenant_id, month, location_id, currency, collected, refunded)
    SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
    FROM (
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, -1 * r.amount::bigint AS refunded
      FROM old_rows r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
    ) d
    GROUP BY 1, 2, 3, 4
    HAVING sum(collected) <> 0 OR sum(refunded) <> 0
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (tenant_id, month, location_id, currency) DO UPDATE
      SET collected = m.collected + excluded.collected, refunded = m.refunded + excluded.refunded;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER refunds_analytics_insert AFTER INSERT ON "refunds"
  REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_refund_months_apply();
CREATE TRIGGER refunds_analytics_update AFTER UPDATE ON "refunds"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_refund_months_apply();
CREATE TRIGGER refunds_analytics_delete AFTER DELETE ON "refunds"
  REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION analytics_refund_months_apply();

-- Back-fill from the records already there (the migration runs as the owner, across tenants).
INSERT INTO analytics_appointment_months (tenant_id, month, location_id, provider_id, status, appointments, late_cancelled, duration_ms)
SELECT tenant_id, date_trunc('month', starts_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', location_id, provider_id, status, count(*),
       count(*) FILTER (WHERE late_cancellation), sum(round(extract(epoch FROM ends_at - starts_at) * 1000)::bigint)
FROM appointments
GROUP BY 1, 2, 3, 4, 5;

INSERT INTO analytics_money_months (tenant_id, month, location_id, currency, collected, refunded)
SELECT tenant_id, month, location_id, currency, sum(collected), sum(refunded)
FROM (
      SELECT tenant_id, date_trunc('month', received_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, location_id, currency, 1 * amount::bigint AS collected, 0::bigint AS refunded
      FROM payments WHERE status = 'SUCCEEDED' AND received_at IS NOT NULL
  UNION ALL
      SELECT r.tenant_id, date_trunc('month', r.created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month, p.location_id, r.currency, 0::bigint AS collected, 1 * r.amount::bigint AS refunded
      FROM refunds r JOIN payments p ON p.id = r.payment_id AND p.tenant_id = r.tenant_id
) d
GROUP BY 1, 2, 3, 4;
