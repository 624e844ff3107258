/** @module All activities, composed from the per-area factories with the worker's dependencies. */
import { systemClock, type Clock } from '../infra/clock.ts'
import type { Db } from '../infra/db.ts'
import type { SecretBox } from '../infra/secret-box.ts'
import { createAssessmentActivities } from './assessment-activities.ts'
import { createAppointmentActivities } from './appointment-activities.ts'
import { createAppointmentFollowUpActivities } from './appointment-follow-up-activities.ts'
import type { AppointmentTiming } from './appointment-activities.ts'
import type { WebhookSettings } from '../domain/webhooks/webhook-settings.ts'
import { createWebhookActivities } from './webhook-activities.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import { createKnowledgeActivities } from './knowledge-activities.ts'
import { createKnowledgeReembedActivities } from './knowledge-reembed-activities.ts'
import { createSettlementActivities } from './settlement-activities.ts'
import { createOnlinePaymentActivities } from './online-payment-activities.ts'
import { createEarlyInterventionActivities } from './early-intervention-activities.ts'
import { createChildProgressActivities } from './child-progress-activities.ts'
import { createProviderOnboardingActivities } from './provider-onboarding-activities.ts'
import { createLeadQualificationActivities } from './lead-qualification-activities.ts'
import { createAgentRunActivities } from './agent-run-activities.ts'
import type { AgentDecider } from '../domain/ai/agents/agent-decider.ts'
import type { OnlinePaymentProcessor } from '../domain/payments/online-processor.ts'
import type { PayoutProcessor } from '../domain/payouts/payout-processor.ts'
import type { Metrics } from '../infra/metrics/metrics-registry.ts'
import { createReconciliationActivities, type ReconciliationActivityDeps } from './reconciliation-activities.ts'

export interface ActivityDeps {
  db: Db
  /** Webhook delivery settings (network policy, timeout, disable threshold) from the worker's configuration. */
  webhooks: WebhookSettings
  /** Opens the secrets stored sealed: webhook endpoints' and agent workflows' (infra/secret-box.ts). */
  secrets: SecretBox
  /** Aborted when the worker process is asked to stop (worker/create-worker.ts). */
  stopping?: AbortSignal
  /** Embedding model and vector stores of the knowledge indexing activities (docs/ai.md). */
  ai: AiRuntime
  /** The agent of agent workflow runs: the configured chat model, or the offline drafter when absent (docs/agents.md). */
  agentDecider?: AgentDecider
  /** Each tenant's quota of agent runs per hour (AGENT_RUNS_PER_TENANT_PER_HOUR); unset: none. */
  agentRunsPerHour?: number
  /** The worker's metrics (infra/metrics/metrics-registry.ts); none in tests that do not scrape. */
  metrics?: Metrics
  /** Marketplace payouts (Stripe Connect), when configured (adapters/online-processors.ts). */
  payouts?: PayoutProcessor
  /** Online card payments (refunds, expiries), when configured; the same processor as `payouts`. */
  online?: OnlinePaymentProcessor
  /** Policy time of the appointment lifecycle and the appointment follow-up (tests shorten it); defaults to real time. */
  appointmentTiming?: Partial<AppointmentTiming>
  /**
   * "Now" for every decision an activity takes on time (a no-show, a reminder's due date, a period's end); defaults
   * to the system clock. Tests on the time-skipping server give the server's clock, which the workflows follow.
   */
  clock?: Clock
  /** The processor's side of the daily reconciliation, when a processor is configured (docs/payments.md). */
  reconciliation?: ReconciliationActivityDeps['reconciliation']
}

/** Builds every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  const clock = deps.clock ?? systemClock
  // The factories name the clock `now` (settlements: `clock`); each reads the one it declares.
  deps = { ...deps, clock }
  const timed = { ...deps, now: clock }
  return {
    ...createAppointmentActivities(timed),
    ...createWebhookActivities(deps),
    ...createAssessmentActivities(timed),
    ...createKnowledgeActivities(deps),
    ...createKnowledgeReembedActivities(deps),
    ...createSettlementActivities(deps),
    ...createOnlinePaymentActivities({ db: deps.db, clock, online: deps.online }),
    ...createEarlyInterventionActivities(timed),
    ...createChildProgressActivities(timed),
    ...createAgentRunActivities(deps),
    ...createProviderOnboardingActivities(timed),
    ...createAppointmentFollowUpActivities(timed),
    ...createLeadQualificationActivities(timed),
    ...createReconciliationActivities(deps),
  }
}
