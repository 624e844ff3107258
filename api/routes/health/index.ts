/**
 * @module Health, in two parts. `GET /health` on the public port is liveness only: 200 `{"status":"ok"}` while the
 * process serves requests, and nothing about what is behind it (which database or Temporal answers, latencies, error
 * text, versions: reconnaissance for anyone on the Internet). Readiness, whether the API can reach its database and
 * Temporal, with each check's state and the versions running, is `GET /health` on the metrics port (METRICS_HOST,
 * METRICS_PORT; infra/metrics/metrics-server.ts): 200 when both answer, 503 otherwise, so an orchestrator and an
 * operator on the private network read the same document.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { API_VERSION } from '../../version.ts'
import { sealedSecretsProblem, type SealedSecretsCheck } from '../../../domain/sealed-secrets-check.ts'

type CheckResult = { status: 'up' | 'down'; latencyMs: number; error?: string }

async function check(probe: () => Promise<unknown>, timeoutMs: number): Promise<CheckResult> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
    return { status: 'up', latencyMs: Math.round(performance.now() - started) }
  } catch (error) {
    // The error class only: messages can carry connection strings.
    const reason = error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : 'unreachable'
    return {
      status: 'down',
      latencyMs: Math.round(performance.now() - started),
      error: reason.replace(/\/\/[^@\s]*@/g, '//***@'),
    }
  } finally {
    clearTimeout(timer)
  }
}

/** The readiness document and its status: the database's and Temporal's checks and the versions running. */
export interface Readiness {
  statusCode: 200 | 503
  body: {
    status: 'ok' | 'degraded'
    version: string
    versions: { api: string; node: string; temporalServer?: string }
    checks: {
      database: CheckResult
      temporal: CheckResult & { namespace: string }
      /** Whether SECRETS_ENCRYPTION_KEYS opens what the database holds, checked once at start (issue 76). */
      secrets?: { status: 'up' | 'down'; opened: number; error?: string }
    }
    /**
     * The knowledge models this process answers with; `fallback` when the sentence model was configured but its files
     * are absent, so the lexical embeddings answer (docs/ai.md). Informational: it does not make the API unready.
     */
    knowledge: { embeddings: string; answerer: string; fallback?: string }
  }
}

/**
 * Probes the database and Temporal, each within 2 s, and names the knowledge models in use.
 * @param secrets - the start-up check of the key-encryption key; the API is not ready when it found a problem
 */
export async function readiness(
  { db, temporal, config, ai }: Pick<AppDeps, 'db' | 'temporal' | 'config' | 'ai'>,
  secrets?: SealedSecretsCheck
): Promise<Readiness> {
  let temporalServer: string | undefined
  const [database, temporalCheck] = await Promise.all([
    check(() => db.$queryRaw`SELECT 1`, 2000),
    check(async () => {
      const info = await temporal.workflowService.getSystemInfo({})
      temporalServer = info.serverVersion || undefined
    }, 2000),
  ])
  const secretsOpen = !secrets || secrets.problems.length === 0
  const healthy = database.status === 'up' && temporalCheck.status === 'up' && secretsOpen
  return {
    statusCode: healthy ? 200 : 503,
    body: {
      status: healthy ? 'ok' : 'degraded',
      version: API_VERSION,
      versions: { api: API_VERSION, node: process.version, ...(temporalServer ? { temporalServer } : {}) },
      checks: {
        database,
        temporal: { ...temporalCheck, namespace: config.TEMPORAL_NAMESPACE },
        ...(secrets && {
          secrets: {
            status: secretsOpen ? 'up' : 'down',
            opened: secrets.opened,
            ...(secretsOpen ? {} : { error: sealedSecretsProblem(secrets) }),
          },
        }),
      },
      knowledge: {
        embeddings: ai.embeddings.modelId,
        answerer: ai.answerer.id,
        // The reason names a file path: the log has it; this document only says that the fallback is in use.
        ...(ai.embeddingsFallback
          ? { fallback: 'the sentence model is absent; lexical embeddings in use (see the log)' }
          : {}),
      },
    },
  }
}

/** The public port's `GET /health`: liveness, with no detail about what is behind the API. */
export function healthRoutes() {
  return new OpenAPIHono<AppEnv>().get('/health', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }))
}
