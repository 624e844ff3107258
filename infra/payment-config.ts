/**
 * @module Configuration of payments with a processor (docs/payments.md): online card payments through Stripe and the
 * daily reconciliation with it. Spread into the process configuration (infra/config.ts) so it is validated at boot
 * with everything else.
 */
import { z } from 'zod'

/** Comma-separated signing secrets (several during a rotation); empty or unset: none. */
const secretList = () =>
  z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((secret) => secret.trim())
        .filter(Boolean)
    )

export const PAYMENT_CONFIG_SHAPE = {
  /**
   * When each tenant with online payments is reconciled with the processor (docs/payments.md, "Reconciliation"): a
   * Temporal Schedule cron spec, in UTC; each tenant's run starts within 30 minutes after it (jitter).
   */
  RECONCILIATION_SCHEDULE: z
    .string()
    .trim()
    .regex(/^(@\w+|\S+(\s+\S+){4})$/, 'Must be a cron spec of 5 fields, e.g. "30 3 * * *", or a macro such as @daily')
    .default('30 3 * * *'),
  /** The `created` window a scheduled reconciliation compares: this many hours, ending half an hour before it runs. */
  RECONCILIATION_WINDOW_HOURS: z.coerce.number().int().min(1).max(744).default(48),
  /** Runs a tenant may request in any hour (`POST /v1/reconciliation/runs`; one at a time besides). */
  RECONCILIATION_RUNS_PER_TENANT_PER_HOUR: z.coerce.number().int().positive().default(6),
  /**
   * Each tenant's share of the Stripe read rate during reconciliation: requests a second (burst as many); a run over
   * it waits for its turns, another tenant's run does not (Stripe allows 100 reads a second in live mode).
   */
  RECONCILIATION_STRIPE_READS_PER_SECOND: z.coerce.number().positive().default(10),
  /**
   * Online card payments (docs/payments.md, "Online payments"): `none` (only payments the centre records), or
   * `stripe` with the two keys below.
   */
  ONLINE_PAYMENT_PROCESSOR: z.enum(['none', 'stripe']).default('none'),
  /** Stripe's secret API key (`sk_test_...` while testing). */
  STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  /**
   * The signing secret of the Stripe webhook endpoint that calls POST /processor-webhooks/stripe (`whsec_...`);
   * comma-separated during a rotation (each is tried).
   */
  STRIPE_WEBHOOK_SECRET: secretList(),
  /**
   * The signing secret of the Stripe Connect webhook endpoint (events of connected accounts, such as
   * `account.updated`) that calls POST /processor-webhooks/stripe/connect; Stripe gives that endpoint its own
   * secret. Comma-separated during a rotation. Unset: that endpoint verifies nothing (400 `invalid_signature`).
   */
  STRIPE_CONNECT_WEBHOOK_SECRET: secretList(),
  /** How long a PENDING online payment waits for its payer before its intent is cancelled and its hold released. */
  ONLINE_PAYMENT_EXPIRY_SECONDS: z.coerce.number().int().min(1).max(604_800).default(86_400),
  /**
   * How long after a request recorded an online refund its workflow takes the processor call over (the request
   * calls first; the workflow, started with this delay, calls only when the request did not get an answer).
   */
  REFUND_TAKEOVER_SECONDS: z.coerce.number().int().min(0).max(3_600).default(60),
  /** Where Stripe's API is: unset for Stripe itself; stripe-mock's address in the tests (http://127.0.0.1:12111). */
  STRIPE_API_BASE: z.string().url().optional(),
}
