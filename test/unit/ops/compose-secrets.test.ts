/**
 * The production compose file ships no secret and no cleartext public port (issue 54; security review finding 13):
 * every password and key is a variable compose refuses to start without (`${NAME:?message}`), never a default; the
 * address clients call is required; and every published port is bound to the host's loopback unless the operator
 * sets a documented variable (the API behind a TLS terminator, docs/operations.md).
 */
import { readFile } from 'node:fs/promises'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'

interface Service {
  ports?: Array<string | number>
}

/** One `${NAME...}` in the file: its name, compose's operator (`:-`, `-`, `:?`, `?`, ...) and what follows it. */
interface Reference {
  name: string
  operator: string
  rest: string
}

/** Credentials by name: passwords, secrets, tokens, key lists, operator lists. */
const SECRET = /PASSWORD|SECRET|TOKEN|_KEYS?$|OPERATORS/
/** What compose must refuse to start without. */
const REQUIRED = [
  'PLATFORM_DB_PASSWORD',
  'PLATFORM_DB_SYSTEM_PASSWORD',
  'PLATFORM_DB_UNITS_PASSWORD',
  'TEMPORAL_DB_PASSWORD',
  'GRAFANA_ADMIN_PASSWORD',
  'TEMPORAL_CODEC_KEYS',
  'SECRETS_ENCRYPTION_KEYS',
  'PUBLIC_URL',
]
const LOOPBACK = new Set(['127.0.0.1', '[::1]', '::1'])

let text: string
let operations: string
let services: Record<string, Service>
let references: Reference[]

beforeAll(async () => {
  text = await readFile(new URL('../../../temporal-compose.yml', import.meta.url), 'utf8')
  operations = await readFile(new URL('../../../docs/operations.md', import.meta.url), 'utf8')
  services = (parse(text, { merge: true }) as { services: Record<string, Service> }).services
  // `$${...}` is a literal `$` for the shell inside a command, not compose's interpolation.
  references = [...text.matchAll(/(?<!\$)\$\{(\w+)(:?[-?+])?([^}]*)\}/g)].map((m) => ({
    name: m[1]!,
    operator: m[2] ?? '',
    rest: m[3] ?? '',
  }))
})

/** The host address of a short-syntax port (`[ip:]host:container`), `${VAR:-default}` as compose resolves it unset. */
function hostAddress(port: string): { address: string | undefined; variable: string | undefined } {
  const variable = /^\$\{(\w+):-([^}]*)\}:/.exec(port)
  if (variable) return { address: variable[2], variable: variable[1] }
  const parts = port.split(':')
  return { address: parts.length >= 3 ? parts.slice(0, -2).join(':') : undefined, variable: undefined }
}

describe('temporal-compose.yml', () => {
  it('gives no password, secret or key a default: each is required, or empty (off) where optional', () => {
    const secrets = references.filter((r) => SECRET.test(r.name))
    expect(secrets.map((r) => r.name)).toEqual(
      expect.arrayContaining(['PLATFORM_DB_PASSWORD', 'GRAFANA_ADMIN_PASSWORD'])
    )
    for (const { name, operator, rest } of secrets) {
      if (operator.endsWith('-')) expect(rest, `${name} has a default`).toBe('')
      if (/PASSWORD/.test(name)) expect(operator, `${name} must be required`).toBe(':?')
    }
  })

  it('requires the passwords, the payload keys and the https address clients call, saying how to set them', () => {
    for (const name of REQUIRED) {
      const uses = references.filter((r) => r.name === name)
      expect(uses.length, name).toBeGreaterThan(0)
      for (const use of uses) {
        expect(use.operator, name).toBe(':?')
        expect(use.rest, `${name}'s message`).toMatch(/set \w+/)
      }
      expect(operations, `docs/operations.md explains ${name}`).toContain(name)
    }
    expect(text).not.toMatch(/PUBLIC_URL:-/)
  })

  it('publishes every port on the loopback only, unless the operator sets a documented variable', () => {
    const published = Object.entries(services).flatMap(([name, service]) =>
      (service.ports ?? []).map((port) => ({ name, port: String(port) }))
    )
    expect(published.map((p) => p.name)).toContain('api-proxy')
    for (const { name, port } of published) {
      const { address, variable } = hostAddress(port)
      expect(LOOPBACK.has(address ?? '0.0.0.0'), `${name} publishes ${port} beyond the loopback`).toBe(true)
      if (variable) expect(operations, `docs/operations.md explains ${variable}`).toContain(variable)
    }
  })
})
