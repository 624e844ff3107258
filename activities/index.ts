/** @module All activities, composed from the per-area factories with the worker's dependencies. */
import type { Db } from '../infra/db.ts'
import { createAssessmentActivities } from './assessment-activities.ts'
import { createBookingActivities } from './booking-activities.ts'
import { createAppointmentFollowUpActivities } from './appointment-follow-up-activities.ts'
import type { BookingTiming } from './booking-activities.ts'
import type { WebhookSettings } from '../domain/webhooks/webhook-settings.ts'
import { createWebhookActivities } from './webhook-activities.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import { createKnowledgeActivities } from './knowledge-activities.ts'
import { createSettlementActivities } from './settlement-activities.ts'
import { createEarlyInterventionActivities } from './early-intervention-activities.ts'
import { createChildProgressActivities } from './child-progress-activities.ts'
import { createProviderOnboardingActivities } from './provider-onboarding-activities.ts'
import { createLeadQualificationActivities } from './lead-qualification-activities.ts'
import { createAgentRunActivities } from './agent-run-activities.ts'
import type { AgentDecider } from '../domain/agent-workflows/agent-decider.ts'

export interface ActivityDeps {
  db: Db
  /** Webhook delivery settings (network policy, timeout, disable threshold) from the worker's configuration. */
  webhooks: WebhookSettings
  /** Embedding model and vector stores of the knowledge indexing activities (docs/ai.md). */
  ai: AiRuntime
  /** The agent of agent workflow runs: the configured chat model, or the offline drafter when absent (docs/agents.md). */
  agentDecider?: AgentDecider
  /** Policy time of the booking lifecycle and the appointment follow-up (tests shorten it); defaults to real time. */
  bookingTiming?: Partial<BookingTiming>
}

/** Builds every activity the worker registers. */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createBookingActivities(deps),
    ...createWebhookActivities(deps),
    ...createAssessmentActivities(deps),
    ...createKnowledgeActivities(deps),
    ...createSettlementActivities(deps),
    ...createEarlyInterventionActivities(deps),
    ...createChildProgressActivities(deps),
    ...createAgentRunActivities(deps),
    ...createProviderOnboardingActivities(deps),
    ...createAppointmentFollowUpActivities(deps),
    ...createLeadQualificationActivities(deps),
  }
}
