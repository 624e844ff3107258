/**
 * @module Gauges read from the database when Prometheus scrapes (registered by the API only, so two processes never
 * report the same backlog twice): what waits in the outboxes and how long the oldest has waited, the webhook
 * endpoints by state, the audit chain's sealing lag, the reconciliation's open findings, and the process's connection
 * pool. One query serves every gauge of a scrape. Platform-wide counts (no tenant label): the root client reads past
 * row-level security, as the outbox sweeper does, and reports totals only.
 */
import { Gauge } from 'prom-client'
import { poolStats, type Db } from '../db.ts'
import type { Metrics } from './metrics-registry.ts'

interface Backlog {
  workflow_starts_pending: bigint
  workflow_starts_oldest_seconds: number | null
  webhook_deliveries_due: bigint
  webhook_deliveries_oldest_due_seconds: number | null
  endpoints_healthy: bigint
  endpoints_failing: bigint
  endpoints_disabled: bigint
  audit_unsealed: bigint
  audit_oldest_unsealed_seconds: number | null
  reconciliation_findings_open: bigint
}

/** How long one read serves the gauges of a scrape. */
const SCRAPE_SHARING_MS = 100

/** Registers the database-backed gauges on `metrics`' registry. */
export function registerPlatformGauges(metrics: Metrics, db: Db): void {
  const registers = [metrics.registry]
  // Every gauge's collect() of one scrape shares this read: the gauges of a scrape are collected together, within a
  // few milliseconds; the next scrape (seconds later) reads again.
  let reading: { at: number; backlog: Promise<Backlog> } | undefined
  const backlog = () => {
    const now = Date.now()
    if (!reading || now - reading.at > SCRAPE_SHARING_MS) {
      reading = {
        at: now,
        backlog: db.$queryRaw<Backlog[]>`
          SELECT
            (SELECT count(*) FROM workflow_outbox WHERE state = 'PENDING') AS workflow_starts_pending,
            (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM workflow_outbox WHERE state = 'PENDING')
              AS workflow_starts_oldest_seconds,
            (SELECT count(*) FROM webhook_deliveries WHERE status = 'PENDING' AND next_attempt_at <= now())
              AS webhook_deliveries_due,
            (SELECT extract(epoch FROM now() - min(next_attempt_at))::float8 FROM webhook_deliveries
              WHERE status = 'PENDING' AND next_attempt_at <= now()) AS webhook_deliveries_oldest_due_seconds,
            (SELECT count(*) FROM webhook_endpoints WHERE enabled AND failing_since IS NULL) AS endpoints_healthy,
            (SELECT count(*) FROM webhook_endpoints WHERE enabled AND failing_since IS NOT NULL) AS endpoints_failing,
            (SELECT count(*) FROM webhook_endpoints WHERE NOT enabled) AS endpoints_disabled,
            (SELECT count(*) FROM audit_unsealed) AS audit_unsealed,
            (SELECT extract(epoch FROM now() - min(occurred_at))::float8 FROM audit_unsealed)
              AS audit_oldest_unsealed_seconds,
            (SELECT count(*) FROM reconciliation_findings WHERE status = 'OPEN') AS reconciliation_findings_open`.then(
          (rows) => rows[0]!
        ),
      }
    }
    return reading.backlog
  }

  new Gauge({
    name: 'therapy_outbox_pending',
    help: 'Work committed and not yet handed on: workflow starts not dispatched, webhook deliveries due',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      const b = await backlog()
      this.set({ queue: 'workflow_starts' }, Number(b.workflow_starts_pending))
      this.set({ queue: 'webhook_deliveries' }, Number(b.webhook_deliveries_due))
    },
  })
  new Gauge({
    name: 'therapy_outbox_oldest_age_seconds',
    help: 'How long the oldest pending workflow start, or the longest-due webhook delivery, has waited (0: none)',
    labelNames: ['queue'] as const,
    registers,
    async collect() {
      const b = await backlog()
      this.set({ queue: 'workflow_starts' }, b.workflow_starts_oldest_seconds ?? 0)
      this.set({ queue: 'webhook_deliveries' }, b.webhook_deliveries_oldest_due_seconds ?? 0)
    },
  })
  new Gauge({
    name: 'therapy_webhook_endpoints',
    help: 'Webhook endpoints by state: healthy, failing (attempts failing since failing_since), disabled',
    labelNames: ['state'] as const,
    registers,
    async collect() {
      const b = await backlog()
      this.set({ state: 'healthy' }, Number(b.endpoints_healthy))
      this.set({ state: 'failing' }, Number(b.endpoints_failing))
      this.set({ state: 'disabled' }, Number(b.endpoints_disabled))
    },
  })
  new Gauge({
    name: 'therapy_audit_unsealed_records',
    help: 'Audit records committed and not yet sealed onto their chain',
    registers,
    async collect() {
      this.set(Number((await backlog()).audit_unsealed))
    },
  })
  new Gauge({
    name: 'therapy_audit_sealing_lag_seconds',
    help: 'Age of the oldest audit record not yet sealed (0: all sealed)',
    registers,
    async collect() {
      this.set((await backlog()).audit_oldest_unsealed_seconds ?? 0)
    },
  })
  new Gauge({
    name: 'therapy_reconciliation_findings_open',
    help: "Differences with the payment processor no operator has resolved yet (docs/payments.md, 'Reconciliation')",
    registers,
    async collect() {
      this.set(Number((await backlog()).reconciliation_findings_open))
    },
  })
  registerPoolGauge(metrics, db)
}

/** The process's database pool: open and idle connections, and requests waiting for one. */
export function registerPoolGauge(metrics: Metrics, db: Db): void {
  new Gauge({
    name: 'therapy_db_pool_connections',
    help: "This process's database pool: total and idle connections, and requests waiting for a connection",
    labelNames: ['state'] as const,
    registers: [metrics.registry],
    collect() {
      const stats = poolStats(db)
      this.set({ state: 'total' }, stats.total)
      this.set({ state: 'idle' }, stats.idle)
      this.set({ state: 'waiting' }, stats.waiting)
    },
  })
}
