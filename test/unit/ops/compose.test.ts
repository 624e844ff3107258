/**
 * No Docker engine runs here, so the production-like stack is checked structurally: every service the platform needs
 * is there with a health check, start-up order only waits on things that can report it, and the API's and worker's
 * environment is a configuration our own loader accepts, naming only settings the code reads.
 */
import { readFile } from 'node:fs/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { CONFIG_KEYS, loadConfig } from '../../../infra/config.ts'

interface Service {
  image?: string
  build?: unknown
  command?: unknown
  environment?: Record<string, string | number>
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: unknown }
  ports?: string[]
}

let services: Record<string, Service>

/** What an operator puts in .env for the variables compose requires (`${NAME:?message}`). */
const REQUIRED: Record<string, string> = {
  PLATFORM_DB_PASSWORD: 'platform0db0password',
  PLATFORM_DB_SYSTEM_PASSWORD: 'platform0system0password',
  PLATFORM_DB_UNITS_PASSWORD: 'platform0units0password',
  TEMPORAL_DB_PASSWORD: 'temporal0db0password',
  GRAFANA_ADMIN_PASSWORD: 'grafana0admin0password',
  PUBLIC_URL: 'https://api.example.com',
  TEMPORAL_CODEC_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
  SECRETS_ENCRYPTION_KEYS: `s1:${Buffer.alloc(32, 9).toString('base64')}`,
}

/** `${NAME:-default}` as compose resolves it with NAME unset, and `${NAME:?message}` with NAME set in .env. */
const withDefaults = (value: string | number) =>
  String(value)
    .replace(/\$\{\w+:-([^}]*)\}/g, '$1')
    .replace(/\$\{(\w+):\?[^}]*\}/g, (_, name: string) => REQUIRED[name] ?? `<${name} is required>`)

beforeAll(async () => {
  const text = await readFile(new URL('../../../temporal-compose.yml', import.meta.url), 'utf8')
  services = (parse(text, { merge: true }) as { services: Record<string, Service> }).services
})

describe('temporal-compose.yml', () => {
  it('runs the whole platform: its database with pgvector, Temporal with its own PostgreSQL and UI, API and worker', () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(['postgres', 'temporal-postgres', 'temporal-frontend', 'temporal-ui', 'api', 'worker'])
    )
    expect(services.postgres!.image).toMatch(/pgvector/)
    expect(services['temporal-postgres']!.image).toMatch(/^postgres:/)
  })

  it('runs the Temporal Server as its four services, on the version the development server and the cluster run', () => {
    const temporal = ['frontend', 'history', 'matching', 'worker'].map((role) => services[`temporal-${role}`]!)
    expect(temporal.map((service) => service.environment?.TEMPORAL_SERVICES)).toEqual([
      'frontend',
      'history',
      'matching',
      'worker',
    ])
    for (const service of temporal) {
      expect(withDefaults(service.image!)).toBe('temporalio/server:1.32.0')
      expect(service.environment!.DB).toBe('postgres12')
      // Fixed for the databases' life: the same figure as `npm run start:cluster` (docs/operations.md).
      expect(service.environment!.NUM_HISTORY_SHARDS).toBe(16)
    }
    expect(withDefaults(services['temporal-schema']!.image!)).toBe('temporalio/admin-tools:1.32.0')
    expect(withDefaults(services['temporal-ui']!.image!)).toBe('temporalio/ui:2.54.1')
  })

  it('health-checks every long-running server, and waits only on what can report readiness', () => {
    for (const name of ['postgres', 'temporal-postgres', 'temporal-frontend', 'temporal-history', 'api']) {
      expect(services[name]!.healthcheck?.test, name).toEqual(expect.arrayContaining([expect.any(String)]))
    }
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(Object.keys(services), `${name} depends on missing ${dependency}`).toContain(dependency)
        if (condition === 'service_healthy')
          expect(services[dependency]!.healthcheck?.test, `${name} → ${dependency}`).toEqual(
            expect.arrayContaining([expect.any(String)])
          )
        expect(['service_healthy', 'service_completed_successfully', 'service_started']).toContain(condition)
      }
    }
    expect(Object.keys(services.worker!.depends_on ?? {})).toContain('api')
  })

  it('gives the API and the worker an environment our configuration loader accepts, naming only real settings', () => {
    for (const name of ['api', 'worker']) {
      const environment = Object.fromEntries(
        Object.entries(services[name]!.environment ?? {}).map(([key, value]) => [key, withDefaults(value)])
      )
      const unknown = Object.keys(environment).filter((key) => !CONFIG_KEYS.includes(key))
      expect(unknown, `${name} sets variables the code never reads`).toEqual([])
      // Production refuses to start without payload-encryption keys; the operator supplies them in .env.
      const config = loadConfig(environment)
      expect(config.NODE_ENV).toBe('production')
      expect(config.DATABASE_URL).toMatch(/@postgres:5432\//)
      expect(config.TEMPORAL_ADDRESS).toBe('temporal-frontend:7233')
      // Two logins of their own, and never the owner's password (docs/security.md, "Least privilege in the database").
      expect(new URL(config.DATABASE_APP_URL ?? '').username).not.toBe(new URL(config.DATABASE_URL).username)
      expect(JSON.stringify(environment)).not.toContain(REQUIRED.PLATFORM_DB_PASSWORD)
    }
  })

  it('migrates as the owner and makes the two logins the API and the worker use', () => {
    const migrate = services.migrate!
    const environment = Object.fromEntries(
      Object.entries(migrate.environment ?? {}).map(([key, value]) => [key, withDefaults(value)])
    )
    expect(new URL(environment.DATABASE_OWNER_URL ?? '').username).toBe('therapy')
    expect(environment.DATABASE_URL).toBe(withDefaults(services.api!.environment!.DATABASE_URL!))
    expect(environment.DATABASE_APP_URL).toBe(withDefaults(services.api!.environment!.DATABASE_APP_URL!))
    expect(migrate.command).toEqual(['node', '--import', 'tsx', 'scripts/db/migrate.ts'])
  })
})
