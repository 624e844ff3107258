/**
 * @module OpenAPI links (3.1 §4.8.20) from the operations that create a resource to every operation that takes its id
 * in the path, generated from the description itself so they cannot drift from the routes: an id's kind is its
 * declared pattern (`domain/id-schema.ts`), so `POST /v1/children` (201, a `chd_` id) links to
 * `GET /v1/children/{id}`, `/v1/children/{id}/progress`, `/v1/ai/children/{id}/insights`... A generated client learns
 * where a created resource can be used, and Schemathesis's stateful phase chains the calls instead of guessing ids.
 *
 * Lists link the same way from the first item of their page (`$response.body#/data/0/id`): that reaches what no
 * operation creates (users sign in through SSO; agent runs and staff tasks are made by triggers) and what a client
 * cannot create without first knowing other ids (an appointment needs a child, a provider and a free slot).
 */
import type { IdKind } from '../../domain/id-prefixes.ts'
import { idKindOfPattern, idLabel } from '../../domain/id-schema.ts'

type Schema = {
  $ref?: string
  pattern?: string
  properties?: Record<string, Schema>
  items?: Schema
  allOf?: Schema[]
  anyOf?: Schema[]
}
type Parameter = { name: string; in: string; schema?: Schema }
type Response = { content?: Record<string, { schema?: Schema }>; links?: Record<string, Link> }
type Operation = { parameters?: Parameter[]; responses?: Record<string, Response> }
type Document = { paths?: Record<string, Record<string, unknown>>; components?: { schemas?: Record<string, unknown> } }

/** A link object: the target by reference (a JSON pointer, valid whatever the operationIds) and where each path parameter comes from. */
export interface Link {
  operationRef: string
  parameters: Record<string, string>
  description: string
}

/** An operation of the description, with the kind of each id in its path. */
interface Described {
  path: string
  method: string
  operation: Operation
  pathKinds: Map<string, IdKind | undefined>
}

/** Where a response yields ids: the kind of the resource it returns (at `idPointer`) and of its other fields. */
interface Yield {
  kind: IdKind
  idPointer: string
  fieldPointers: Map<IdKind, string>
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const

/** `#/paths/~1v1~1children~1{id}/get`: a JSON pointer, `/` and `~` escaped (RFC 6901). */
export const operationRef = (path: string, method: string) =>
  `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}`

/** A link's name (`^[A-Za-z0-9.\-_]+$`): the target's method and path, `get.v1.children.id.early-intervention`. */
export const linkName = (path: string, method: string) =>
  `${method}${path.replace(/[{}]/g, '').replace(/\//g, '.')}`.replace(/[^A-Za-z0-9.\-_]/g, '_')

function resolver(document: Document) {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>
  const resolve = (schema: Schema | undefined, depth = 0): Schema | undefined => {
    if (!schema || depth > 20) return undefined
    if (schema.$ref) return resolve(schemas[schema.$ref.split('/').pop()!], depth + 1)
    // One level of composition is how the generator writes an extended object (ApiKeyWithSecret): merge its members.
    if (schema.allOf) {
      const parts = schema.allOf.map((part) => resolve(part, depth + 1) ?? {})
      const properties: Record<string, Schema> = {}
      for (const part of parts) Object.assign(properties, part.properties)
      return { ...schema, properties }
    }
    return schema
  }
  const kindOf = (schema: Schema | undefined): IdKind | undefined => {
    const resolved = resolve(schema)
    if (!resolved) return undefined
    // A nullable id is `anyOf: [id, null]` once referenced, or a plain schema with a null type.
    return idKindOfPattern(resolved.pattern) ?? resolved.anyOf?.map(kindOf).find(Boolean)
  }
  return { resolve, kindOf }
}

function describedOperations(document: Document, kindOf: (schema: Schema | undefined) => IdKind | undefined) {
  const described: Described[] = []
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined
      if (!operation?.responses) continue
      const pathKinds = new Map(
        (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, kindOf(p.schema)] as const)
      )
      described.push({ path, method, operation, pathKinds })
    }
  }
  return described
}

/**
 * What a 2xx JSON response yields: a resource (`id`) or the first item of a page (`data/0/id`), when the resource is of
 * a kind the operation does not already take in its path (`POST /v1/leads/{id}/offer` answers the lead it was given).
 */
function yieldOf(
  op: Described,
  response: Response,
  tools: ReturnType<typeof resolver>,
  asList: boolean
): Yield | undefined {
  const body = tools.resolve(response.content?.['application/json']?.schema)
  const item = asList ? tools.resolve(tools.resolve(body?.properties?.data)?.items) : body
  const prefix = asList ? '/data/0' : ''
  const kind = tools.kindOf(item?.properties?.id)
  if (!kind || [...op.pathKinds.values()].includes(kind)) return undefined
  const fieldPointers = new Map<IdKind, string>()
  for (const [name, field] of Object.entries(item?.properties ?? {})) {
    const fieldKind = tools.kindOf(field)
    if (fieldKind && name !== 'id' && !fieldPointers.has(fieldKind)) fieldPointers.set(fieldKind, `${prefix}/${name}`)
  }
  return { kind, idPointer: `${prefix}/id`, fieldPointers }
}

/**
 * The link from a source's response to a target, or undefined when a path parameter of the target cannot be filled
 * from the source (its request's path, or its response).
 */
function linkTo(source: Described, yielded: Yield, target: Described): Link | undefined {
  const parameters: Record<string, string> = {}
  for (const [name, kind] of target.pathKinds) {
    if (kind === yielded.kind) {
      parameters[name] = `$response.body#${yielded.idPointer}`
      continue
    }
    const inPath = [...source.pathKinds].find(([, sourceKind]) => sourceKind !== undefined && sourceKind === kind)
    const inBody = kind && yielded.fieldPointers.get(kind)
    if (inPath) parameters[name] = `$request.path.${inPath[0]}`
    else if (inBody) parameters[name] = `$response.body#${inBody}`
    else return undefined
  }
  return {
    operationRef: operationRef(target.path, target.method),
    parameters,
    description: `${target.method.toUpperCase()} ${target.path} on the ${idLabel(yielded.kind)} ${
      yielded.idPointer === '/id' ? 'this response returns' : 'first in this page'
    }`,
  }
}

/**
 * Adds the links to `document` (in place) and returns it.
 * @param document - the generated description
 */
export function addResourceLinks<D extends object>(document: D): D {
  const described = document as Document
  const tools = resolver(described)
  const operations = describedOperations(described, tools.kindOf)
  const consumers = new Map<IdKind, Described[]>()
  for (const op of operations) {
    for (const kind of new Set(op.pathKinds.values())) {
      if (kind) consumers.set(kind, [...(consumers.get(kind) ?? []), op])
    }
  }
  const sources: Array<{ op: Described; response: Response; yielded: Yield }> = []
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.operation.responses ?? {})) {
      if (!status.startsWith('2')) continue
      // A create: a POST answering a resource, or a page of them (several files uploaded at once). A list: a GET's page.
      const yielded =
        op.method === 'post'
          ? (yieldOf(op, response, tools, false) ?? yieldOf(op, response, tools, true))
          : op.method === 'get'
            ? yieldOf(op, response, tools, true)
            : undefined
      if (yielded) sources.push({ op, response, yielded })
    }
  }
  for (const { op, response, yielded } of sources) {
    for (const target of consumers.get(yielded.kind) ?? []) {
      const link = linkTo(op, yielded, target)
      if (link) response.links = { ...response.links, [linkName(target.path, target.method)]: link }
    }
  }
  return document
}
