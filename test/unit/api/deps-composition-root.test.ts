/**
 * The API's wiring rules, checked over the routers' source: domain services are built once, in the composition root
 * (api/compose-services.ts), and handlers call domain functions rather than Prisma. A router that builds its own
 * service would configure it apart from the others (two sets of assessment reminders, two agent schedule
 * synchronisers); a handler that queries Prisma puts rules where no activity or test of the domain sees them.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import type { AppDeps } from '../../../api/app-env.ts'
import { createApp } from '../../../api/app.ts'
import { buildDeps } from '../../../api/deps.ts'
import { loadConfig } from '../../../infra/config.ts'
import { createLogger } from '../../../infra/logger.ts'

/** The dependencies each router factory was called with, by factory name, recorded by the mocks below. */
const received = vi.hoisted(() => new Map<string, Array<Partial<AppDeps>>>())

/** Wraps a router module's factory so that each call records the dependencies it was given, then builds the router. */
async function recordingRouter(load: () => Promise<Record<string, unknown>>, name: string) {
  const original = await load()
  const factory = original[name] as (deps: Partial<AppDeps>) => unknown
  return {
    ...original,
    [name]: (deps: Partial<AppDeps>) => {
      received.set(name, [...(received.get(name) ?? []), deps])
      return factory(deps)
    },
  }
}

// The routers that share a service with another router (docs in api/compose-services.ts).
vi.mock('../../../api/routes/assessments/index.ts', (load) => recordingRouter(load, 'assessmentRoutes'))
vi.mock('../../../api/routes/ai/index.ts', (load) => recordingRouter(load, 'aiRoutes'))
vi.mock('../../../api/routes/agent-workflows/index.ts', (load) => recordingRouter(load, 'agentWorkflowRoutes'))
vi.mock('../../../api/routes/children/index.ts', (load) => recordingRouter(load, 'childRoutes'))
vi.mock('../../../api/routes/early-intervention/index.ts', (load) => recordingRouter(load, 'earlyInterventionRoutes'))
vi.mock('../../../api/routes/child-progress/index.ts', (load) => recordingRouter(load, 'childProgressRoutes'))

const routesDir = fileURLToPath(new URL('../../../api/routes/', import.meta.url))

async function routerSources(): Promise<Array<{ file: string; source: string }>> {
  const entries = await readdir(routesDir, { recursive: true })
  const files = entries.filter((name) => name.endsWith('.ts')).sort()
  return Promise.all(files.map(async (file) => ({ file, source: await readFile(path.join(routesDir, file), 'utf8') })))
}

/** Factories of domain services: `createLeadService(`, `createAgentSchedules(`, `childCareWorkflows(`... */
const SERVICE_FACTORY =
  /\b(create\w*(Service|Sync|Schedules|Reminders|FollowUps|Runtime|Dispatcher|Outbox|WorkflowCalls)|childCareWorkflows)\(/

/** Prisma reached from a handler: the unit of work's transaction, or the client's raw queries. */
const PRISMA_USE = /\.tx\b|\$queryRaw|\$executeRaw|\bprisma\./

/** The one exception: the health check probes the database itself, not any record (api/routes/health). */
const HEALTH_PROBE = 'db.$queryRaw`SELECT 1`'

describe('the composition root', () => {
  it('is the only place that builds domain services: no router builds one', async () => {
    const sources = await routerSources()
    expect(sources.length).toBeGreaterThan(30)
    const building = sources.filter(({ source }) => SERVICE_FACTORY.test(source)).map(({ file }) => file)
    expect(building).toEqual([])
  })

  it('leaves Prisma to the domain: no handler queries it', async () => {
    const querying = (await routerSources())
      .filter(({ source }) => PRISMA_USE.test(source.replace(HEALTH_PROBE, '')))
      .map(({ file }) => file)
    expect(querying).toEqual([])
  })

  it('hands every router of one app the same instance of each shared service', async () => {
    const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused' })
    const first = buildDeps(config, createLogger('silent', 'test'))
    const second = buildDeps(config, createLogger('silent', 'test'))
    try {
      received.clear()
      createApp(first.deps)
      // Which router reads which shared service: a router built with a service of its own fails the `toBe` below.
      const uses: Array<[router: string, service: keyof AppDeps]> = [
        ['assessmentRoutes', 'assessments'],
        ['aiRoutes', 'assessments'],
        ['agentWorkflowRoutes', 'agentWorkflows'],
        ['earlyInterventionRoutes', 'earlyIntervention'],
        ['childRoutes', 'childCareWorkflows'],
        ['childProgressRoutes', 'progress'],
      ]
      for (const [router, service] of uses) {
        const calls = received.get(router) ?? []
        expect(calls.length, `${router} is mounted`).toBeGreaterThan(0)
        for (const deps of calls) expect(deps[service], `${router} → ${service}`).toBe(first.deps[service])
      }
      // Built per app, not per module: two apps (two tests' own dependencies) never share a service.
      for (const service of ['assessments', 'agentSchedules', 'agentWorkflows', 'earlyIntervention'] as const) {
        expect(first.deps[service], service).not.toBe(second.deps[service])
      }
    } finally {
      await first.close()
      await second.close()
    }
  })
})
