/**
 * The API's wiring rules, checked over the routers' source: domain services are built once, in the composition root
 * (api/compose-services.ts), and handlers call domain functions rather than Prisma. A router that builds its own
 * service would configure it apart from the others (two sets of assessment reminders, two agent schedule
 * synchronisers); a handler that queries Prisma puts rules where no activity or test of the domain sees them.
 */
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildDeps } from '../../../api/deps.ts'
import { loadConfig } from '../../../infra/config.ts'
import { createLogger } from '../../../infra/logger.ts'

const routesDir = fileURLToPath(new URL('../../../api/routes/', import.meta.url))

async function routerSources(): Promise<Array<{ file: string; source: string }>> {
  const entries = await readdir(routesDir, { recursive: true })
  const files = entries.filter((name) => name.endsWith('.ts')).sort()
  return Promise.all(files.map(async (file) => ({ file, source: await readFile(path.join(routesDir, file), 'utf8') })))
}

/** Factories of domain services: `createLeadService(`, `createAgentSchedules(`, `childCareWorkflows(`... */
const SERVICE_FACTORY =
  /\b(create\w*(Service|Sync|Schedules|Reminders|FollowUps|Runtime|Dispatcher|Outbox)|childCareWorkflows)\(/

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

  it('hands routers and background loops one instance of each shared service', async () => {
    const config = loadConfig({ NODE_ENV: 'development', DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused' })
    const first = buildDeps(config, createLogger('silent', 'test'))
    const second = buildDeps(config, createLogger('silent', 'test'))
    try {
      // Built per app, not per module: two apps (two tests' own dependencies) never share a service.
      expect(first.deps.assessments).not.toBe(second.deps.assessments)
      expect(first.deps.agentSchedules).not.toBe(second.deps.agentSchedules)
      for (const service of ['assessments', 'agentSchedules', 'agentWorkflows', 'earlyIntervention'] as const) {
        expect(first.deps[service], service).toBeDefined()
      }
    } finally {
      await first.close()
      await second.close()
    }
  })
})
