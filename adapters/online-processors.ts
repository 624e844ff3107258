/**
 * @module The online processor a deployment configured (`ONLINE_PAYMENT_PROCESSOR`, infra/config.ts): Stripe (card
 * payments, and marketplace payouts through Connect), or none, in which case only payments the centre records are
 * taken, CARD_ONLINE is refused as `method_not_available`, and settlements move no money. The API's services and the
 * worker build it here and hand it to the domain, which knows it only by the seams it declares (domain/payments/
 * online-processor.ts, domain/payouts/payout-processor.ts, domain/reconciliation/processor-snapshot.ts).
 */
import type { OnlinePaymentProcessor } from '../domain/payments/online-processor.ts'
import type { PayoutProcessor } from '../domain/payouts/payout-processor.ts'
import type { ReconciliationSource } from '../domain/reconciliation/processor-snapshot.ts'
import type { Config } from '../infra/config.ts'
import { stripeProcessor } from './stripe/stripe-processor.ts'
import { createPacer } from '../infra/pacer.ts'
import { stripeReconciliationSource } from './stripe/stripe-reconciliation-source.ts'

export type OnlineProcessorConfig = Pick<
  Config,
  | 'ONLINE_PAYMENT_PROCESSOR'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'STRIPE_CONNECT_WEBHOOK_SECRET'
  | 'STRIPE_API_BASE'
>

/** @returns the configured processor, or undefined for `none` */
export function onlineProcessorFrom(
  config: OnlineProcessorConfig
): (OnlinePaymentProcessor & PayoutProcessor) | undefined {
  switch (config.ONLINE_PAYMENT_PROCESSOR) {
    case 'none':
      return undefined
    case 'stripe':
      // The configuration's own check guarantees both keys with `stripe` (infra/config.ts).
      return stripeProcessor({
        secretKey: config.STRIPE_SECRET_KEY ?? '',
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        connectWebhookSecret: config.STRIPE_CONNECT_WEBHOOK_SECRET,
        apiBase: config.STRIPE_API_BASE,
      })
  }
}

/** The configured processor's side of the reconciliation; undefined without an online processor. */
export function reconciliationSourceFrom(
  config: Partial<
    Pick<
      Config,
      'ONLINE_PAYMENT_PROCESSOR' | 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE' | 'RECONCILIATION_STRIPE_READS_PER_SECOND'
    >
  >
): ReconciliationSource | undefined {
  if (config.ONLINE_PAYMENT_PROCESSOR !== 'stripe' || !config.STRIPE_SECRET_KEY) return undefined
  // Each tenant's reads at its own pace (issue 76): a run paging a large account waits for its turns, no one else's.
  const perSecond = config.RECONCILIATION_STRIPE_READS_PER_SECOND ?? 10
  const pacer = createPacer({
    perSecond,
    burst: perSecond,
    // A run waits as long as it must: its activity heartbeats, and only its own tenant's turns are behind it.
    maxWaitMs: 60 * 60 * 1000,
    what: "A tenant's reconciliation reads at Stripe",
    refuse: (_retryAfter, detail) => new Error(detail),
  })
  return stripeReconciliationSource(
    { secretKey: config.STRIPE_SECRET_KEY, apiBase: config.STRIPE_API_BASE },
    (tenantId) => pacer.take(`stripe-reads:${tenantId}`)
  )
}
