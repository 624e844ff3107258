/**
 * @module The composition root of the API's domain services: every service a router, a middleware or a background
 * loop uses is built here, once per app, from the process's infrastructure (database, Temporal client, clock,
 * configuration). Routers receive the built services and build none themselves, so two routers that need the same
 * service (the assessment reminders of /v1/assessments and /v1/ai, the agent schedules of /v1/agent-workflows and of
 * the trigger dispatcher) share one instance configured one way.
 */
import type { Client } from '@temporalio/client'
import { createAiRuntime, logAiModels } from '../adapters/ai-models.ts'
import { outboundCalls } from '../adapters/outbound/outbound-calls.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import { createAgentSchedules, type AgentSchedules } from '../domain/ai/agents/agent-schedules.ts'
import { createAgentWorkflowService, type AgentWorkflowService } from '../domain/ai/agents/agent-workflow-service.ts'
import { createSeriesService, type SeriesService } from '../domain/appointment-series/series-service.ts'
import { createAppointmentService, type AppointmentService } from '../domain/appointments/appointment-service.ts'
import { createAssessmentWorkflowCalls } from '../domain/assessments/assessment-workflow-calls.ts'
import { createAssessmentService, type AssessmentService } from '../domain/assessments/assessment-service.ts'
import { createRevocationList, type RevocationList } from '../domain/auth/revocation-list.ts'
import { createSigningKeys, type SigningKeys } from '../domain/auth/signing-keys.ts'
import { createSsoVerifier, type SsoVerifier } from '../domain/auth/sso.ts'
import { createIssuerKeys } from '../domain/auth/sso-issuer-keys.ts'
import { ssoSettings } from '../domain/auth/sso-settings.ts'
import { createTokenLifecycle, type TokenLifecycle } from '../domain/auth/token-lifecycle.ts'
import { createTokenService, type TokenService } from '../domain/auth/token-service.ts'
import { childCareWorkflows, type ChildCareWorkflows } from '../domain/children/child-care-workflows.ts'
import {
  createEiWorkflowCalls,
  type EarlyInterventionWorkflowCalls,
} from '../domain/early-intervention/ei-workflow-calls.ts'
import { createLeadService, type LeadService } from '../domain/leads/lead-service.ts'
import { createOnboardingService, type OnboardingService } from '../domain/provider-onboarding/onboarding-service.ts'
import { onlineProcessorFrom } from '../adapters/online-processors.ts'
import type { OnlinePaymentProcessor } from '../domain/payments/online-processor.ts'
import type { PayoutProcessor } from '../domain/payouts/payout-processor.ts'
import { createProgressFollowUps, type ProgressFollowUps } from '../domain/child-progress/progress-follow-ups.ts'
import { webhookSettings } from '../domain/webhooks/webhook-settings.ts'
import { createWorkflowOutbox, type WorkflowOutbox } from '../domain/workflow-runs/workflow-outbox.ts'
import type { OutboundCalls } from '../domain/outbound-policy.ts'
import { createPaymentFlows, type PaymentFlows } from '../domain/payments/payment-flows.ts'
import { aiConfigOf } from '../infra/ai-config.ts'
import { createSecretBox, type SecretBox } from '../infra/secret-box.ts'
import type { Clock } from '../infra/clock.ts'
import type { Config } from '../infra/config.ts'
import type { Db } from '../infra/db.ts'
import type { Logger } from '../infra/logger.ts'
import type { Metrics } from '../infra/metrics/metrics-registry.ts'
import type { PacerTurns } from '../infra/pacer.ts'
import { DAY_MS } from '../common/time/calendar.ts'

/** What the services are built from: the process's infrastructure, built by `buildDeps`. */
export interface ServiceInfrastructure {
  config: Config
  /** The request path's pool: every request's unit of work, and what a request starts after it (the outbox). */
  db: Db
  /**
   * The pool of the API's background loops (audit sealer, agent dispatcher, schedules, metrics): its own connections
   * (DATABASE_BACKGROUND_POOL_MAX), so a busy loop never takes one a request waits for (docs/operations.md).
   */
  backgroundDb: Db
  temporal: Client
  clock: Clock
  logger: Logger
  /** The process's Prometheus metrics (infra/metrics/metrics-registry.ts). */
  metrics: Metrics
  /** Where the workflow-view pacer keeps its turns: shared by every instance, or this process's memory if unset. */
  viewTurns?: PacerTurns
}

/** Every domain service of the API, built once. */
export interface AppServices {
  /** Seals the secrets kept at rest and opens them (SECRETS_ENCRYPTION_KEYS; infra/secret-box.ts). */
  secrets: SecretBox
  keys: SigningKeys
  tokens: TokenService
  tokenLifecycle: TokenLifecycle
  revocations: RevocationList
  sso: SsoVerifier
  outbox: WorkflowOutbox
  appointments: AppointmentService
  series: SeriesService
  assessments: AssessmentService
  earlyIntervention: EarlyInterventionWorkflowCalls
  progress: ProgressFollowUps
  childCareWorkflows: ChildCareWorkflows
  onboarding: OnboardingService
  leads: LeadService
  agentSchedules: AgentSchedules
  agentWorkflows: AgentWorkflowService
  /** The AI runtime of the knowledge routes (embeddings, vector stores, answerer). */
  ai: AiRuntime
  /** Online card payments and payouts, when a processor is configured (adapters/online-processors.ts). */
  onlinePayments: (OnlinePaymentProcessor & PayoutProcessor) | undefined
  /** The workflows that finish online payments and refunds durably (domain/payments/payment-flows.ts). */
  paymentFlows: PaymentFlows
  /** The outbound network policy's calls (adapters/outbound/), for the routes that vet URLs tenants register. */
  outbound: OutboundCalls
}

/**
 * Builds the API's domain services.
 * @param infra - the infrastructure they share
 * @returns the services, each built once
 */
export function composeServices(infra: ServiceInfrastructure): AppServices {
  const { config, db, temporal, clock, logger, metrics } = infra
  const taskQueue = config.TEMPORAL_TASK_QUEUE
  // Shortened in tests; the real day is every workflow's default and stays out of their inputs.
  const dayMs = config.CARE_WORKFLOW_DAY_MS === DAY_MS ? undefined : config.CARE_WORKFLOW_DAY_MS

  const secrets = createSecretBox(config.SECRETS_ENCRYPTION_KEYS)
  const keys = createSigningKeys(db, { publishForSeconds: config.ACCESS_TOKEN_TTL_SECONDS + 300, clock, secrets })
  const revocations = createRevocationList({ db, clock, logger })
  const accessTokens = { issuer: config.PUBLIC_URL, audience: config.ACCESS_TOKEN_AUDIENCE }
  const tokens = createTokenService({
    db,
    keys,
    clock,
    accessTokens: { ...accessTokens, ttlSeconds: config.ACCESS_TOKEN_TTL_SECONDS },
    refreshTokenTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
    revocations,
  })
  const tokenLifecycle = createTokenLifecycle({ revocations, db, keys, clock, accessTokens })
  const outbound = outboundCalls
  const sso = createSsoVerifier({
    db,
    clock,
    keys: createIssuerKeys({ settings: ssoSettings(config), clock, logger, outbound }),
  })

  const outbox = createWorkflowOutbox({
    db,
    temporal,
    taskQueue,
    logger,
    onStart: (workflow, outcome) => metrics.workflowStarts.inc({ workflow, outcome }),
  })
  const appointments = createAppointmentService({
    outbox,
    clock,
    temporal,
    logger,
    dayMs: config.CARE_WORKFLOW_DAY_MS,
    workflowStart: config.BOOKING_WORKFLOW_START,
    viewPacing: {
      perSecond: config.WORKFLOW_VIEWS_PER_SECOND,
      burst: config.WORKFLOW_VIEW_BURST,
      maxWaitMs: config.WORKFLOW_VIEW_MAX_WAIT_MS,
      ...(infra.viewTurns ? { turns: infra.viewTurns } : {}),
    },
  })
  // One set of reminders for every route that creates or recalls an assessment, so all are reminded alike.
  const reminders = createAssessmentWorkflowCalls({
    outbox,
    temporal,
    logger,
    timing: { dayMs: config.ASSESSMENT_REMINDER_DAY_MS },
  })
  const earlyIntervention = createEiWorkflowCalls({ outbox, temporal, logger, ...(dayMs ? { dayMs } : {}) })
  const progress = createProgressFollowUps({
    outbox,
    temporal,
    logger,
    taskQueue,
    intervalDays: config.CHILD_PROGRESS_INTERVAL_DAYS,
    dayMs: config.CARE_WORKFLOW_DAY_MS,
  })
  const agentSchedules = createAgentSchedules({ db, temporal, taskQueue, logger })

  const ai = createAiRuntime(aiConfigOf(config))
  logAiModels(logger, ai)
  return {
    secrets,
    keys,
    tokens,
    tokenLifecycle,
    revocations,
    sso,
    outbox,
    appointments,
    series: createSeriesService({ appointments }),
    assessments: createAssessmentService({ reminders, clock }),
    earlyIntervention,
    progress,
    childCareWorkflows: childCareWorkflows({ earlyIntervention, progress }),
    onboarding: createOnboardingService({ outbox, temporal, timing: dayMs ? { dayMs } : undefined }),
    leads: createLeadService({ outbox, temporal, appointments, dayMs: config.CARE_WORKFLOW_DAY_MS }),
    agentSchedules,
    agentWorkflows: createAgentWorkflowService({
      rules: { ...webhookSettings(config), vetAddress: outbound.vetAddress },
      schedules: agentSchedules,
      maxEnabledWorkflows: config.AGENT_WORKFLOWS_PER_TENANT,
      secrets,
    }),
    ai,
    onlinePayments: onlineProcessorFrom(config),
    paymentFlows: createPaymentFlows(outbox, {
      expirySeconds: config.ONLINE_PAYMENT_EXPIRY_SECONDS,
      refundTakeoverSeconds: config.REFUND_TAKEOVER_SECONDS,
    }),
    outbound,
  }
}
