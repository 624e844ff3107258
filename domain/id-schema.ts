/**
 * @module Which ids can exist, as schemas. Every id the API issues is its type prefix, `_` and a UUIDv7 without dashes
 * (`ids.ts`), so a value of any other shape names nothing. Declaring that shape in the schemas puts it in the OpenAPI
 * description (generated clients and fuzzers then send ids that could exist) without changing a single answer: an id
 * of the wrong shape is refused as `not_found`, exactly as an unknown id of the right shape (a 404 in a path, a 400
 * field error with the code `not_found` in a body; `api/openapi/validation-hook.ts`).
 */
import { z } from '@hono/zod-openapi'
import { ID_PREFIXES, type IdKind } from './id-prefixes.ts'

/** A UUIDv7's 32 hex digits, lower case, without its dashes. */
const UUID_DIGITS = '[0-9a-f]{32}'

/**
 * The pattern every id of a kind matches, e.g. `^chd_[0-9a-f]{32}$`.
 * @param kind - the resource kind
 */
export const idPattern = (kind: IdKind) => new RegExp(`^${ID_PREFIXES[kind]}_${UUID_DIGITS}$`)

/** Each kind by its pattern as zod reports it in an issue (`/^chd_[0-9a-f]{32}$/`). */
const KIND_BY_PATTERN = new Map(
  (Object.keys(ID_PREFIXES) as IdKind[]).map((kind) => [String(idPattern(kind)), kind] as const)
)

/**
 * The kind whose id pattern a zod issue reports unmatched, if it is one: that value is an id naming nothing.
 * @param issue - a zod issue
 * @returns the kind, or undefined for any other issue
 */
export function idKindOfIssue(issue: { code: string; format?: string; pattern?: string }): IdKind | undefined {
  if (issue.code !== 'invalid_format' || issue.format !== 'regex' || issue.pattern === undefined) return undefined
  return KIND_BY_PATTERN.get(issue.pattern)
}

/**
 * The kind an OpenAPI pattern belongs to, if it is an id pattern (`^chd_[0-9a-f]{32}$` → `child`).
 * @param pattern - a `pattern` of the description
 */
export function idKindOfPattern(pattern: string | undefined): IdKind | undefined {
  return pattern === undefined ? undefined : KIND_BY_PATTERN.get(`/${pattern}/`)
}

/** Names that splitting the kind's words would get wrong. */
const LABELS: Partial<Record<IdKind, string>> = {
  apiKey: 'API key',
  ssoConnection: 'SSO connection',
  timeOff: 'time-off',
}

/**
 * How people call a kind: `customFieldDefinition` → `custom field definition`, `apiKey` → `API key`.
 * @param kind - the resource kind
 */
export const idLabel = (kind: IdKind) => LABELS[kind] ?? kind.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`)

/**
 * A well-formed id of a kind, for examples: the documented example must match its own pattern.
 * @param kind - the resource kind
 */
export const exampleId = (kind: IdKind) => `${ID_PREFIXES[kind]}_019a6b3c8f2e7d41a5b6c7d8e9f0a1b2`

/**
 * The schema of an id of `kind`, wherever one appears (a path, a body, a response).
 * @param kind - the resource kind
 */
export const resourceId = (kind: IdKind) =>
  z
    .string()
    .regex(idPattern(kind), `No ${idLabel(kind)} has this id.`)
    .openapi({ example: exampleId(kind) })
