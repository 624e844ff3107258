/**
 * @module Seeds the multi-location analytics benchmark: one tenant with 20 locations, 200 providers (10 per
 * location, weekdays 08:00–18:00 in three US zones, two time-off entries each), 5,000 children, about 200,000
 * appointments over a year (60% of them in the past year's working hours, statuses mixed), 5,000 assessments and
 * 50,000 orders with their payments and some refunds. Generated inside PostgreSQL (INSERT … SELECT over
 * generate_series), so seeding a year takes seconds rather than the minutes row-by-row inserts would.
 */
import type { Db } from '../infra/db.ts'

const ZONES = ['America/Chicago', 'America/Denver', 'America/New_York']

export interface AnalyticsSeed {
  locationIds: string[]
  appointments: number
  from: Date
  to: Date
}

/**
 * Seeds the tenant.
 * @param start - the first day of the seeded year (UTC midnight)
 */
export async function seedAnalyticsYear(
  db: Db,
  tenantId: string,
  firstLocationId: string,
  start: Date
): Promise<AnalyticsSeed> {
  const locationIds = [
    firstLocationId,
    ...Array.from({ length: 19 }, (_, i) => `loc_bench_${String(i + 1).padStart(2, '0')}`),
  ]
  const weekly = JSON.stringify(
    Object.fromEntries(
      ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'].map((d) => [d, [{ start: '08:00', end: '18:00' }]])
    )
  )
  await db.$executeRawUnsafe(
    `INSERT INTO locations (id, tenant_id, name, time_zone, currency)
     SELECT 'loc_bench_' || lpad(g::text, 2, '0'), $1, 'Centre ' || lpad(g::text, 2, '0'), $2, 'USD' FROM generate_series(1, 19) g`,
    tenantId,
    ZONES[0]
  )
  // Providers k = 0..199: location k % 20, zone by k % 3.
  await db.$executeRawUnsafe(
    `INSERT INTO providers (id, tenant_id, location_id, name, time_zone, disciplines, weekly_hours, onboarding_status, approved_at, updated_at)
     SELECT 'prv_bench_' || lpad(k::text, 3, '0'), $1, ($2::text[])[k % 20 + 1], 'Provider ' || k, ($3::text[])[k % 3 + 1],
            ARRAY['SPEECH_THERAPY'], $4::jsonb, 'APPROVED', $5::timestamptz - interval '30 days', now()
     FROM generate_series(0, 199) k`,
    tenantId,
    locationIds,
    ZONES,
    weekly,
    start
  )
  await db.$executeRawUnsafe(
    `INSERT INTO provider_locations (tenant_id, provider_id, location_id)
     SELECT tenant_id, id, location_id FROM providers WHERE tenant_id = $1`,
    tenantId
  )
  await db.$executeRawUnsafe(
    `INSERT INTO provider_time_off (id, tenant_id, provider_id, starts_at, ends_at, reason, updated_at)
     SELECT 'tof_bench_' || k || '_' || n, $1, 'prv_bench_' || lpad(k::text, 3, '0'),
            $2::timestamptz + ((k * 7 + n * 150) % 360) * interval '1 day',
            $2::timestamptz + ((k * 7 + n * 150) % 360 + 3) * interval '1 day', 'VACATION', now()
     FROM generate_series(0, 199) k, generate_series(0, 1) n`,
    tenantId,
    start
  )
  // Children c = 0..4999: 25 per provider, at the provider's location, registered through the year.
  await db.$executeRawUnsafe(
    `INSERT INTO children (id, tenant_id, location_id, first_name, last_name, date_of_birth, created_at, updated_at)
     SELECT 'chd_bench_' || c, $1, ($2::text[])[(c / 25) % 20 + 1], 'Child', 'Bench' || c, DATE '2022-01-01',
            $3::timestamptz + (c % 365) * interval '1 day' + (c % 24) * interval '1 hour', now()
     FROM generate_series(0, 4999) c`,
    tenantId,
    locationIds,
    start
  )
  // Appointments: provider k, j = 0..999, about three a day over 365 days, hours 8 + j % 10 (never overlapping).
  await db.$executeRawUnsafe(
    `INSERT INTO appointments (id, tenant_id, location_id, child_id, provider_id, type, status, starts_at, ends_at,
                               time_zone, service, late_cancellation, updated_at)
     SELECT 'apt_bench_' || k || '_' || j, $1, ($2::text[])[k % 20 + 1], 'chd_bench_' || (k * 25 + j % 25),
            'prv_bench_' || lpad(k::text, 3, '0'), 'THERAPY_SESSION',
            (CASE WHEN (j * 7 + k) % 20 < 2 THEN 'CANCELLED' WHEN (j * 7 + k) % 20 = 2 THEN 'NO_SHOW'
                  WHEN (j * 7 + k) % 20 < 5 THEN 'CONFIRMED' ELSE 'COMPLETED' END)::"AppointmentStatus",
            $3::timestamptz + ((j * 365) / 1000) * interval '1 day' + (13 + j % 10) * interval '1 hour',
            $3::timestamptz + ((j * 365) / 1000) * interval '1 day' + (14 + j % 10) * interval '1 hour',
            'America/Chicago', 'SPEECH_THERAPY',
            CASE WHEN (j * 7 + k) % 20 < 2 THEN (j % 3 = 0) END, now()
     FROM generate_series(0, 199) k, generate_series(0, 999) j`,
    tenantId,
    locationIds,
    start
  )
  await db.$executeRawUnsafe(
    `INSERT INTO assessments (id, tenant_id, child_id, instrument, status, due_date, completed_at, updated_at)
     SELECT 'asm_bench_' || c, $1, 'chd_bench_' || c, 'PLS-5',
            (CASE WHEN c % 3 = 0 THEN 'SCHEDULED' ELSE 'COMPLETED' END)::"AssessmentStatus",
            ($2::timestamptz + (c % 365) * interval '1 day')::date,
            CASE WHEN c % 3 = 0 THEN NULL ELSE $2::timestamptz + (c % 365) * interval '1 day' END, now()
     FROM generate_series(0, 4999) c`,
    tenantId,
    start
  )
  // Orders o = 0..49,999: one line; 80% paid, 10% half paid, 10% open; every 30th paid order partly refunded.
  await db.$executeRawUnsafe(
    `INSERT INTO orders (id, tenant_id, location_id, status, currency, subtotal, discount_total, tax_total, total,
                         amount_paid, amount_refunded, balance, opened_at, created_at, updated_at)
     SELECT 'ord_bench_' || o, $1, ($2::text[])[o % 20 + 1],
            (CASE WHEN o % 10 < 8 THEN (CASE WHEN o % 30 = 0 THEN 'PARTIALLY_REFUNDED' ELSE 'PAID' END)
                  WHEN o % 10 = 8 THEN 'PARTIALLY_PAID' ELSE 'OPEN' END)::"OrderStatus", 'USD',
            10000 + o % 5000, 0, 0, 10000 + o % 5000,
            CASE WHEN o % 10 < 8 THEN 10000 + o % 5000 WHEN o % 10 = 8 THEN 5000 ELSE 0 END,
            CASE WHEN o % 10 < 8 AND o % 30 = 0 THEN 2000 ELSE 0 END,
            CASE WHEN o % 10 < 8 THEN 0 WHEN o % 10 = 8 THEN 5000 + o % 5000 ELSE 10000 + o % 5000 END,
            $3::timestamptz + (o % 365) * interval '1 day', $3::timestamptz + (o % 365) * interval '1 day', now()
     FROM generate_series(0, 49999) o`,
    tenantId,
    locationIds,
    start
  )
  await db.$executeRawUnsafe(
    `INSERT INTO order_lines (id, tenant_id, order_id, position, kind, description, quantity, unit_amount, line_total)
     SELECT 'oli_bench_' || substr(id, 11), tenant_id, id, 1, 'SESSION', 'Session', 1, total, total FROM orders
     WHERE tenant_id = $1`,
    tenantId
  )
  await db.$executeRawUnsafe(
    `INSERT INTO payments (id, tenant_id, order_id, location_id, amount, currency, status, method, processor,
                           amount_refunded, received_at, created_at, updated_at)
     SELECT 'pay_bench_' || substr(id, 11), tenant_id, id, location_id, amount_paid, 'USD', 'SUCCEEDED', 'CARD_TERMINAL',
            'recorded', amount_refunded, opened_at + interval '1 day', opened_at + interval '1 day', now()
     FROM orders WHERE tenant_id = $1 AND amount_paid > 0`,
    tenantId
  )
  await db.$executeRawUnsafe(
    `INSERT INTO refunds (id, tenant_id, payment_id, order_id, amount, currency, reason, method, created_at)
     SELECT 'rfd_bench_' || substr(order_id, 11), tenant_id, id, order_id, amount_refunded, 'USD', 'REQUESTED_BY_CLIENT',
            'CARD_TERMINAL', received_at + interval '2 days'
     FROM payments WHERE tenant_id = $1 AND amount_refunded > 0`,
    tenantId
  )
  const [row] = await db.$queryRawUnsafe<Array<{ n: number }>>(
    'SELECT count(*)::int AS n FROM appointments WHERE tenant_id = $1',
    tenantId
  )
  return { locationIds, appointments: row!.n, from: start, to: new Date(start.getTime() + 364 * 86_400_000) }
}
