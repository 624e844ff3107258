/**
 * @module Builds the Temporal worker with every workflow and the activities wired to their dependencies.
 */
import { bundleWorkflowCode, NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker'
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createActivities } from '../activities/index.ts'
import { createKnowledgeActivities } from '../activities/knowledge-activities.ts'
import { createKnowledgeReembedActivities } from '../activities/knowledge-reembed-activities.ts'
import { knowledgeTaskQueue } from '../common/knowledge/knowledge-indexing-contract.ts'
import type { AiRuntime } from '../domain/ai/ai-runtime.ts'
import type { Config } from '../infra/config.ts'
import type { Clock } from '../infra/clock.ts'
import type { Db } from '../infra/db.ts'
import { temporalDataConverter } from '../infra/payload-codec.ts'
import { webhookSettings } from '../domain/webhooks/webhook-settings.ts'
import { createAiRuntime, logAiModels, selectAgentDecider } from '../adapters/ai-models.ts'
import type { AiConfig } from '../infra/ai-config.ts'
import {
  onlineProcessorFrom,
  reconciliationSourceFrom,
  type OnlineProcessorConfig,
} from '../adapters/online-processors.ts'
import type { Metrics } from '../infra/metrics/metrics-registry.ts'
import { createRequire } from 'node:module'
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry'
import { NO_TRACING, type Tracing } from '../infra/tracing/tracing.ts'
import { createSecretBox, type SecretBox } from '../infra/secret-box.ts'

export interface WorkerDeps {
  config: Pick<
    Config,
    | 'TEMPORAL_NAMESPACE'
    | 'TEMPORAL_TASK_QUEUE'
    | 'TEMPORAL_CODEC_KEYS'
    | 'WORKFLOW_BUNDLE_PATH'
    | 'SECRETS_ENCRYPTION_KEYS'
  > &
    Partial<
      Pick<
        Config,
        | 'CARE_WORKFLOW_DAY_MS'
        | 'CARE_WORKFLOW_NO_SHOW_GRACE_MS'
        | 'RECONCILIATION_WINDOW_HOURS'
        | 'RECONCILIATION_STRIPE_READS_PER_SECOND'
        | 'AGENT_RUNS_PER_TENANT_PER_HOUR'
        | 'WORKER_MAX_CONCURRENT_ACTIVITIES'
        | 'WORKER_WORKFLOWS_IN_MAIN_THREAD'
      >
    > &
    Parameters<typeof webhookSettings>[0] &
    AiConfig &
    Partial<OnlineProcessorConfig>
  connection: NativeConnection
  db: Db
  /** Told which embedding model and answerer the activities use (docs/ai.md). */
  logger?: Parameters<typeof logAiModels>[0]
  /** The activities' "now" (activities/index.ts); the system clock unless a test follows a time-skipping server. */
  clock?: Clock
  /**
   * Aborted when the process is asked to stop: long-running activities (the webhook delivery pump) end at once rather
   * than when the SDK cancels them, after the grace time.
   */
  stopping?: AbortSignal
  /** The worker's metrics, served by worker/main.ts. */
  metrics?: Metrics
  /** Where the spans of workflows and activities go (infra/tracing/tracing.ts); none by default. */
  tracing?: Tracing
  /** The models, stores and file readers, shared with the knowledge worker; built from `config` when absent. */
  ai?: AiRuntime
  /** The secrets box the start-up check configured (domain/sealed-secrets-check.ts); built from `config` when absent. */
  secrets?: SecretBox
}

/** The workflow entry module; the worker bundles it with webpack at start, unless given a bundle made from it. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url))

/**
 * OpenTelemetry's workflow interceptors, in every bundle: they continue the trace a workflow was started in and hand
 * their spans to the worker's `exporter` sink, which drops them unless tracing is on. They issue no commands, but
 * their yield points can order commands (SDK flags 3 to 6): a history recorded with them replays with them
 * (test/integration/workflow-replay.int.test.ts).
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors'),
]

/** Writes the workflow bundle a worker can load instead of bundling at start (WORKFLOW_BUNDLE_PATH). */
export async function writeWorkflowBundle(path: string): Promise<void> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
  })
  await mkdir(dirname(path), { recursive: true })
  // Written aside and renamed, so a worker starting meanwhile never loads half a bundle.
  const partial = `${path}.${process.pid}.partial`
  await writeFile(partial, code)
  await rename(partial, path)
}

/** The reconciliation's processor side, when a processor is configured. */
function reconciliationOf(config: WorkerDeps['config']) {
  const source = reconciliationSourceFrom(config)
  return source && { source, windowHours: config.RECONCILIATION_WINDOW_HOURS ?? 48 }
}

/** The configured online processor, for payouts and for online payments' refunds and expiries. */
function onlineOf(config: WorkerDeps['config']) {
  const processor = onlineProcessorFrom({
    ONLINE_PAYMENT_PROCESSOR: 'none',
    STRIPE_WEBHOOK_SECRET: [],
    STRIPE_CONNECT_WEBHOOK_SECRET: [],
    ...config,
  })
  return { payouts: processor, online: processor }
}

/** Creates a worker on the configured task queue. */
export function createWorker({
  config,
  connection,
  db,
  clock,
  stopping,
  metrics,
  tracing = NO_TRACING,
  logger,
  ai = createAiRuntime(config),
  secrets = createSecretBox(config.SECRETS_ENCRYPTION_KEYS),
}: WorkerDeps): Promise<Worker> {
  if (logger) logAiModels(logger, ai)
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    ...(config.WORKFLOW_BUNDLE_PATH
      ? { workflowBundle: { codePath: config.WORKFLOW_BUNDLE_PATH } }
      : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities({
      db,
      webhooks: webhookSettings(config),
      secrets,
      stopping,
      metrics,
      ai,
      agentDecider: selectAgentDecider(config),
      agentRunsPerHour: config.AGENT_RUNS_PER_TENANT_PER_HOUR,
      ...onlineOf(config),
      appointmentTiming: { dayMs: config.CARE_WORKFLOW_DAY_MS, noShowGraceMs: config.CARE_WORKFLOW_NO_SHOW_GRACE_MS },
      reconciliation: reconciliationOf(config),
      clock,
    }),
    // Activities continue the trace of the workflow that scheduled them; workflows send their spans to this sink.
    interceptors: {
      // A bundle carries them already (writeWorkflowBundle); given again beside one, the SDK warns that it ignores them.
      ...(config.WORKFLOW_BUNDLE_PATH ? {} : { workflowModules: WORKFLOW_INTERCEPTOR_MODULES }),
      activity: ACTIVITY_INTERCEPTORS,
    },
    sinks: { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) },
    // The same codec as the API's client: the worker decrypts inputs and signals and encrypts what it records.
    dataConverter: temporalDataConverter(config.TEMPORAL_CODEC_KEYS),
    // A crashed worker's sticky queue is abandoned quickly, so another worker resumes its workflows promptly.
    stickyQueueScheduleToStartTimeout: '5 seconds',
    shutdownGraceTime: '10 seconds',
    maxConcurrentActivityTaskExecutions: config.WORKER_MAX_CONCURRENT_ACTIVITIES,
    ...workflowThreadOptions(config.WORKER_WORKFLOWS_IN_MAIN_THREAD ?? false),
  })
}

/** Activities continue the trace of the workflow that scheduled them. */
const ACTIVITY_INTERCEPTORS: NonNullable<WorkerOptions['interceptors']>['activity'] = [
  (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  }),
]

/**
 * The worker of the indexing and re-embedding activities, on their own task queue (`<queue>-knowledge`) with its own slots
 * (KNOWLEDGE_INDEXING_SLOTS): however many files a tenant uploads, parsing and embedding never take a slot that a
 * payment, a reminder or a delivery needs (docs/ai.md, "Reading untrusted files"). Activities only; no workflows.
 * @param ai - the runtime the main worker uses (one set of models and file readers per process)
 */
export function createKnowledgeWorker({
  config,
  connection,
  db,
  ai,
}: Pick<WorkerDeps, 'config' | 'connection' | 'db'> & { ai: AiRuntime }): Promise<Worker> {
  const { indexKnowledgeDocument } = createKnowledgeActivities({ db, ai })
  const { reembedKnowledgeDocument } = createKnowledgeReembedActivities({ db, ai })
  return Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: knowledgeTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities: { indexKnowledgeDocument, reembedKnowledgeDocument },
    interceptors: { activity: ACTIVITY_INTERCEPTORS },
    dataConverter: temporalDataConverter(config.TEMPORAL_CODEC_KEYS),
    shutdownGraceTime: '10 seconds',
    maxConcurrentActivityTaskExecutions: config.KNOWLEDGE_INDEXING_SLOTS,
    // Heartbeats reach the server within seconds, and with them a cancellation that stops a file's reader.
    defaultHeartbeatThrottleInterval: '2 seconds',
  })
}

/** The SDK's default deadline for one workflow activation. */
const WORKFLOW_ACTIVATION_DEADLINE = '5 seconds'

/**
 * Where workflow code runs (WORKER_WORKFLOWS_IN_MAIN_THREAD). The SDK runs it in the main thread only in its debug
 * mode, which also lifts the deadline of one activation (after which the task fails as a deadlock). The deadline is
 * given back: `isolateExecutionTimeout` is read from the options (the SDK spreads them over its defaults, 5 s, or
 * unbounded in debug mode) though its type does not list it, so a workflow that never yields fails alike in either
 * thread.
 */
export function workflowThreadOptions(
  inMainThread: boolean
): Pick<WorkerOptions, 'debugMode'> & { isolateExecutionTimeout?: string } {
  return inMainThread ? { debugMode: true, isolateExecutionTimeout: WORKFLOW_ACTIVATION_DEADLINE } : {}
}
