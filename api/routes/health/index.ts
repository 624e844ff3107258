/**
 * @module GET /health: whether the API can reach its database and Temporal. 200 when both answer, 503 otherwise,
 * with each check's state, so a load balancer and an operator read the same document.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { API_VERSION } from '../../version.ts'

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

export function healthRoutes({ db, temporal, config }: Pick<AppDeps, 'db' | 'temporal' | 'config'>) {
  return new OpenAPIHono<AppEnv>().get('/health', async (c) => {
    const [database, temporalCheck] = await Promise.all([
      check(() => db.$queryRaw`SELECT 1`, 2000),
      check(() => temporal.workflowService.getSystemInfo({}), 2000),
    ])
    const healthy = database.status === 'up' && temporalCheck.status === 'up'
    return c.json(
      {
        status: healthy ? 'ok' : 'degraded',
        version: API_VERSION,
        checks: { database, temporal: { ...temporalCheck, namespace: config.TEMPORAL_NAMESPACE } },
      },
      healthy ? 200 : 503,
      { 'Cache-Control': 'no-store' }
    )
  })
}
