/**
 * Scopes that match the data (issue 55, item 5): a route that returns health data needs the scope its own routes need,
 * whatever route returns it. An inventory over the served OpenAPI description: every operation, the scopes it
 * requires, and the fields of health data its success answers can carry (found by walking their schemas); a field of
 * SOAP notes needs `sessions.read`, an assessment score `assessments.read`, a child's birth date `children.read`. Routes
 * whose answers are derived from those records without naming their fields (a briefing of which children need what,
 * recommendations from their facts, family messages) are listed by hand. And black-box: a credential holding `ai.read`
 * alone is refused the insights, the recommendations and the briefing it once read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startPlatform, type Platform } from '../support/platform.ts'

interface Schema {
  $ref?: string
  properties?: Record<string, Schema>
  items?: Schema
  additionalProperties?: Schema | boolean
  allOf?: Schema[]
  anyOf?: Schema[]
  oneOf?: Schema[]
}

interface Operation {
  security?: Array<Record<string, string[]>>
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>
}

/** Fields that are health data, by the read scope their own routes require. */
const HEALTH_FIELDS: Record<string, string[]> = {
  'sessions.read': ['subjective', 'objective', 'plan', 'accuracy', 'cueing'],
  'assessments.read': ['standardScore', 'scaledScore', 'percentile', 'rawScore', 'subtest'],
  'children.read': ['dateOfBirth'],
}

/** Answers derived from health records without their field names, and the scopes they need. */
const DERIVED: Record<string, string[]> = {
  'GET /v1/agents/care-coordinator': ['children.read', 'sessions.read', 'assessments.read'],
  'GET /v1/ai/children/{id}/recommendations': ['children.read', 'sessions.read', 'assessments.read'],
  'GET /v1/family-messages': ['clients.read'],
}

/** A lead is an enquiry that carries its own prospective child's details: its scope is the lead's. */
const OWN_DATA = new Set([
  '/v1/leads',
  '/v1/leads/{id}',
  '/v1/leads/{id}/offer',
  '/v1/leads/{id}/book',
  '/v1/leads/{id}/close',
])

let platform: Platform
let document: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } }

beforeAll(async () => {
  platform = await startPlatform({ withWorker: false })
  document = (await platform.http.get('/openapi.json')).body
})

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await platform?.stop()
})

/** Every property name reachable from a schema. */
function fieldsOf(schema: Schema | boolean | undefined, seen = new Set<string>()): Set<string> {
  const fields = new Set<string>()
  if (!schema || schema === true) return fields
  if (schema.$ref) {
    const name = schema.$ref.split('/').at(-1)!
    if (seen.has(name)) return fields
    seen.add(name)
    return fieldsOf(document.components.schemas[name], seen)
  }
  const add = (more: Set<string>) => more.forEach((f) => fields.add(f))
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    fields.add(name)
    add(fieldsOf(property, seen))
  }
  add(fieldsOf(schema.items, seen))
  add(fieldsOf(schema.additionalProperties, seen))
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])])
    add(fieldsOf(part, seen))
  return fields
}

/** Whether every security requirement of an operation includes `scope` (or its write scope). */
const requires = (operation: Operation, scope: string) => {
  const requirements = (operation.security ?? []).map((r) => r.oauth2 ?? [])
  return (
    requirements.length > 0 && requirements.every((r) => r.includes(scope) || r.includes(scope.replace(/\.read$/, '')))
  )
}

describe('health data and the scopes that read it', () => {
  it('every operation that can return health data requires the scope of that data', () => {
    const inventory: string[] = []
    const missing: string[] = []
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue
        const route = `${method.toUpperCase()} ${path}`
        const fields = new Set<string>()
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (!status.startsWith('2')) continue
          for (const content of Object.values(response.content ?? {}))
            fieldsOf(content.schema).forEach((f) => fields.add(f))
        }
        const needed = new Set(DERIVED[route] ?? [])
        for (const [scope, names] of Object.entries(HEALTH_FIELDS)) {
          if (!OWN_DATA.has(path) && names.some((name) => fields.has(name))) needed.add(scope)
        }
        if (needed.size === 0) continue
        inventory.push(`${route}: ${[...needed].join(', ')}`)
        for (const scope of needed) if (!requires(operation, scope)) missing.push(`${route} needs ${scope}`)
      }
    }
    expect(missing).toEqual([])
    // The inventory covers the clinical routes themselves, not only the AI ones.
    expect(inventory.some((line) => line.startsWith('GET /v1/ai/children/{id}/insights'))).toBe(true)
    expect(inventory.length).toBeGreaterThan(5)
  })

  it('refuses a credential holding ai.read alone the answers built from clinical records', async () => {
    const aiOnly = await platform.newTenant(['ai.read'])
    const token = await platform.token(aiOnly)
    for (const path of [
      '/v1/ai/children/chd_0000000000000000000000/insights',
      '/v1/ai/children/chd_0000000000000000000000/recommendations',
      '/v1/agents/care-coordinator',
    ]) {
      const response = await platform.http.get(path, { token })
      expect(response.status, path).toBe(403)
      expect(response.body.code).toBe('insufficient_scope')
    }
    const clinical = await platform.newTenant(['ai.read', 'children.read', 'sessions.read', 'assessments.read'])
    const briefing = await platform.http.get('/v1/agents/care-coordinator', { token: await platform.token(clinical) })
    expect(briefing.status).toBe(200)
  })
})
