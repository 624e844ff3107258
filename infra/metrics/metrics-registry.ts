/**
 * @module The process's Prometheus metrics (docs/operations.md, "Metrics"): one registry per API or worker instance,
 * built once and injected, holding the process's default metrics (CPU, memory, event-loop lag, GC) and the
 * platform's own. Labels carry ids at most at tenant level, never a child, an appointment or a person: metrics
 * leave the platform for monitoring systems, and every extra label value is another series.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/** Seconds: a fast read is a few milliseconds, a slow write with a workflow call a few seconds. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** The metrics every process has, and the ones each records. */
export function createMetrics(process: 'api' | 'worker') {
  const registry = new Registry()
  registry.setDefaultLabels({ process })
  collectDefaultMetrics({ register: registry, prefix: 'therapy_' })
  const metric = { registers: [registry] }
  return {
    registry,
    httpRequests: new Counter({
      name: 'therapy_http_requests_total',
      help: 'HTTP requests answered, by route template, method and status class',
      labelNames: ['route', 'method', 'status_class'] as const,
      ...metric,
    }),
    httpDuration: new Histogram({
      name: 'therapy_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template and method',
      labelNames: ['route', 'method'] as const,
      buckets: HTTP_BUCKETS,
      ...metric,
    }),
    rateLimitRefusals: new Counter({
      name: 'therapy_rate_limit_refusals_total',
      help: 'Requests refused with 429, by tenant (`anonymous` before authentication)',
      labelNames: ['tenant'] as const,
      ...metric,
    }),
    rateLimitStoreErrors: new Counter({
      name: 'therapy_rate_limit_store_errors_total',
      help: 'Requests the shared rate-limit store failed to count (counted in the process at the outage limit instead)',
      ...metric,
    }),
    idempotentReplays: new Counter({
      name: 'therapy_idempotent_replays_total',
      help: 'Writes answered with the stored response of an earlier request with the same Idempotency-Key',
      ...metric,
    }),
    workflowStarts: new Counter({
      name: 'therapy_workflow_starts_total',
      help: 'Workflow starts dispatched from the outbox, by workflow type and outcome',
      labelNames: ['workflow', 'outcome'] as const,
      ...metric,
    }),
    webhookAttempts: new Counter({
      name: 'therapy_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (succeeded, retry, failed, gone, not_attempted)',
      labelNames: ['outcome'] as const,
      ...metric,
    }),
    reconciliationFindings: new Counter({
      name: 'therapy_reconciliation_findings_total',
      help: 'Differences with the payment processor the reconciliation recorded as new findings, by kind',
      labelNames: ['kind'] as const,
      ...metric,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'therapy_webhook_attempt_duration_seconds',
      help: 'Time a receiver took to answer a webhook attempt',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      ...metric,
    }),
    // Who uses the delivery slots (docs/webhooks.md, "Fair shares between tenants"): what each tenant has now, and
    // the slot time it used, whose rate is the slots it kept busy on average.
    webhookDeliveriesInFlight: new Gauge({
      name: 'therapy_webhook_deliveries_in_flight',
      help:
        "Webhook deliveries this worker's pumps hold for a tenant: attempts in flight, and claimed ones waiting for " +
        "their endpoint's slot (what WEBHOOK_TENANT_CONCURRENCY caps in each pump)",
      labelNames: ['tenant'] as const,
      ...metric,
    }),
    webhookAttemptSeconds: new Counter({
      name: 'therapy_webhook_attempt_seconds_total',
      help: 'Time receivers took to answer webhook attempts, by tenant: its rate is the delivery slots a tenant kept busy',
      labelNames: ['tenant'] as const,
      ...metric,
    }),
  }
}

export type Metrics = ReturnType<typeof createMetrics>
