/**
 * @module A Postman collection (v2.1) derived from the OpenAPI description, so it can never describe a route the API
 * does not serve. One folder per tag, OAuth 2.0 client credentials set up on the collection (Postman fetches and
 * refreshes the token itself), a fresh Idempotency-Key on every write, and example bodies built from the schemas.
 */

/** The parts of an OpenAPI 3.1 document this conversion reads. */
export interface OpenApiDocumentLike {
  info: { title: string; version: string; description?: string }
  // Structural `object`s: the generator's own types (PathItemObject...) have no index signatures.
  paths?: object
  components?: { schemas?: object }
}

interface Parameter {
  name: string
  in: 'query' | 'path' | 'header' | 'cookie'
  required?: boolean
  description?: string
  schema?: JsonSchema
}

interface OperationLike {
  summary?: string
  description?: string
  operationId?: string
  tags?: string[]
  parameters?: Parameter[]
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> }
  security?: Array<Record<string, string[]>>
}

type JsonSchema = {
  $ref?: string
  type?: string | string[]
  format?: string
  enum?: unknown[]
  example?: unknown
  examples?: unknown[]
  default?: unknown
  properties?: Record<string, JsonSchema>
  required?: string[]
  items?: JsonSchema
  anyOf?: JsonSchema[]
  oneOf?: JsonSchema[]
  allOf?: JsonSchema[]
  minimum?: number
  minLength?: number
}

export interface PostmanCollection {
  info: { name: string; description: string; version: string; schema: string }
  auth: unknown
  variable: Array<{ key: string; value: string; description?: string }>
  item: Array<{ name: string; item: PostmanItem[] }>
}

interface PostmanItem {
  name: string
  request: {
    method: string
    description?: string
    header: Array<{ key: string; value: string; description?: string }>
    url: {
      raw: string
      host: string[]
      path: string[]
      query?: Array<{ key: string; value: string; disabled?: boolean; description?: string }>
      variable?: Array<{ key: string; value: string }>
    }
    body?: { mode: 'raw'; raw: string; options: { raw: { language: 'json' } } }
    auth?: { type: 'noauth' }
  }
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const
const MAX_DEPTH = 6

/** A plausible example value for a schema: its own example, default or first enum value, else one by type. */
function exampleOf(schema: JsonSchema | undefined, components: Record<string, unknown>, depth = 0): unknown {
  if (!schema || depth > MAX_DEPTH) return null
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '')
    return exampleOf(components[name] as JsonSchema | undefined, components, depth + 1)
  }
  if (schema.example !== undefined) return schema.example
  if (schema.examples?.length) return schema.examples[0]
  if (schema.default !== undefined) return schema.default
  if (schema.enum?.length) return schema.enum[0]
  const alternatives = schema.oneOf ?? schema.anyOf
  if (alternatives?.length) {
    const first = alternatives.find((s) => s.type !== 'null') ?? alternatives[0]
    return exampleOf(first, components, depth + 1)
  }
  if (schema.allOf?.length) {
    return Object.assign({}, ...schema.allOf.map((s) => exampleOf(s, components, depth + 1) as object))
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(schema.properties ?? {}))
        out[key] = exampleOf(value, components, depth + 1)
      return out
    }
    case 'array':
      return [exampleOf(schema.items, components, depth + 1)]
    case 'integer':
    case 'number':
      return schema.minimum ?? 0
    case 'boolean':
      return false
    case 'string':
      if (schema.format === 'date-time') return '2026-12-01T15:00:00-06:00'
      if (schema.format === 'date') return '2026-12-01'
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com/webhooks'
      if (schema.format === 'email') return 'family@example.com'
      return 'string'
    default:
      return null
  }
}

/**
 * An example as a query or header value: a scalar as itself, an array as its comma-separated items (as `String` joins
 * them), an object as JSON rather than `[object Object]`.
 */
function exampleText(example: unknown): string {
  if (example === null || example === undefined) return ''
  if (Array.isArray(example)) return example.map(exampleText).join(',')
  if (typeof example === 'string') return example
  if (typeof example === 'number' || typeof example === 'boolean') return String(example)
  return JSON.stringify(example)
}

function requestFor(path: string, method: string, op: OperationLike, components: Record<string, unknown>): PostmanItem {
  const parameters = op.parameters ?? []
  const segments = path
    .replace(/^\//, '')
    .split('/')
    .map((s) => s.replace(/^\{(\w+)\}$/, ':$1'))
  const query = parameters
    .filter((p) => p.in === 'query')
    .map((p) => ({
      key: p.name,
      value: exampleText(exampleOf(p.schema, components)),
      ...(p.required ? {} : { disabled: true }),
      ...(p.description ? { description: p.description } : {}),
    }))
  const header = parameters
    .filter((p) => p.in === 'header')
    .map((p) => ({
      key: p.name,
      // Postman's dynamic variable: a new key per send, which is what a client retrying by hand does not want, but a
      // fresh request does. Resend the same value to see the replay.
      value: p.name === 'Idempotency-Key' ? '{{$guid}}' : exampleText(exampleOf(p.schema, components)),
      ...(p.description ? { description: p.description } : {}),
    }))
  const schema = op.requestBody?.content?.['application/json']?.schema
  const queryString = query
    .filter((q) => !q.disabled)
    .map((q) => `${q.key}=${q.value}`)
    .join('&')
  return {
    name: op.summary ?? op.operationId ?? `${method.toUpperCase()} ${path}`,
    request: {
      method: method.toUpperCase(),
      ...(op.description ? { description: op.description } : {}),
      header: schema ? [{ key: 'Content-Type', value: 'application/json' }, ...header] : header,
      url: {
        raw: `{{baseUrl}}/${segments.join('/')}${queryString ? `?${queryString}` : ''}`,
        host: ['{{baseUrl}}'],
        path: segments,
        ...(query.length ? { query } : {}),
        ...(segments.some((s) => s.startsWith(':'))
          ? { variable: segments.filter((s) => s.startsWith(':')).map((s) => ({ key: s.slice(1), value: '' })) }
          : {}),
      },
      ...(schema
        ? {
            body: {
              mode: 'raw' as const,
              raw: JSON.stringify(exampleOf(schema, components), null, 2),
              options: { raw: { language: 'json' as const } },
            },
          }
        : {}),
      ...(op.security === undefined || op.security.length === 0 ? { auth: { type: 'noauth' as const } } : {}),
    },
  }
}

/**
 * Converts an OpenAPI description into a Postman collection.
 * @param document - the description served at /openapi.json
 */
export function toPostmanCollection(document: OpenApiDocumentLike): PostmanCollection {
  const components = (document.components?.schemas ?? {}) as Record<string, unknown>
  const folders = new Map<string, PostmanItem[]>()
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) {
      const op = item[method] as OperationLike | undefined
      if (!op) continue
      const tag = op.tags?.[0] ?? 'Platform'
      if (!folders.has(tag)) folders.set(tag, [])
      folders.get(tag)!.push(requestFor(path, method, op, components))
    }
  }
  return {
    info: {
      name: document.info.title,
      version: document.info.version,
      description: `${document.info.description ?? ''}\n\nSet the collection variables baseUrl, clientId and clientSecret, then "Get New Access Token" on the collection's Authorization tab.`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    auth: {
      type: 'oauth2',
      oauth2: [
        { key: 'grant_type', value: 'client_credentials', type: 'string' },
        { key: 'accessTokenUrl', value: '{{baseUrl}}/oauth/token', type: 'string' },
        { key: 'clientId', value: '{{clientId}}', type: 'string' },
        { key: 'clientSecret', value: '{{clientSecret}}', type: 'string' },
        { key: 'scope', value: '{{scope}}', type: 'string' },
        { key: 'client_authentication', value: 'body', type: 'string' },
        { key: 'addTokenTo', value: 'header', type: 'string' },
      ],
    },
    variable: [
      { key: 'baseUrl', value: 'http://localhost:3000', description: 'The API base URL' },
      { key: 'clientId', value: '', description: 'An API client id (npm run cli -- clients create)' },
      { key: 'clientSecret', value: '', description: 'Its secret, shown once at creation' },
      { key: 'scope', value: 'children bookings providers', description: 'Space-separated scopes to request' },
    ],
    item: [...folders.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, item]) => ({ name, item })),
  }
}
