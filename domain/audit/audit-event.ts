/**
 * @module The shape of an audit record (every call is recorded: docs/audit-trail.md). An {@link AuditEntry} is what the API
 * knows about one call; appending it adds the id ({@link AuditRecord}); sealing it onto its tenant's chain adds `seq`,
 * `prevHash` and `hash` ({@link SealedAuditEvent}). Values are normalised before they are stored, so what PostgreSQL
 * returns to the sealer and to verification is exactly what was recorded.
 */
/**
 * Who made a call to a tenant's API. `client` is an OAuth client; `api_key` an API key; `user` a platform user signed
 * in through SSO; `anonymous` is a call that did not authenticate. What a tenant's chain holds and the API lists.
 */
export type TenantActorType = 'client' | 'api_key' | 'user' | 'anonymous'

/**
 * Who made a call: a tenant's actor, or an `operator` of the platform (the Temporal codec server's named operators,
 * api/middleware/require-operator.ts), whose calls are on the {@link PLATFORM_AUDIT_CHAIN} only.
 */
export type ActorType = TenantActorType | 'operator'

/**
 * The chain that records calls no tenant can be named for (no or an invalid credential). Tenant ids are `ten_…`, so
 * it can never be a tenant's; tenants never see it (row-level security), operators verify it like any other chain.
 */
export const PLATFORM_AUDIT_CHAIN = 'platform'

/** One call, as recorded. Everything here is covered by the record's hash. */
export interface AuditEntry {
  /** The tenant whose chain holds the record, or {@link PLATFORM_AUDIT_CHAIN}. */
  tenantId: string
  /** When the request arrived (UTC, millisecond precision as stored). */
  occurredAt: Date
  actorType: ActorType
  actorId: string | null
  /** The centre the call concerned, when the resource names one. */
  locationId: string | null
  method: string
  /** The route template, e.g. `/v1/children/:id`; empty when no route matched. */
  route: string
  path: string
  resourceType: string | null
  resourceId: string | null
  status: number
  requestId: string
  clientIp: string | null
  userAgent: string | null
  latencyMs: number
}

/** A record as appended by the request, before it is sealed onto its chain. */
export interface AuditRecord extends AuditEntry {
  id: string
}

/** Where a record sits on its tenant's chain (the `audit_chain` link that seals it). */
export interface ChainPlace {
  /** Position on the tenant's chain: 1, 2, 3… without gaps. The order records were sealed in, not time order. */
  seq: bigint
  /** The previous record's hash; {@link GENESIS_HASH} for seq 1. */
  prevHash: string
  /** SHA-256 (hex) of the canonical form of every other field. */
  hash: string
}

/** A record on its chain. */
export interface SealedAuditEvent extends AuditRecord, ChainPlace {}

/** A record as listed: sealed, or not yet (its chain fields null until the sealer reaches it). */
export type AuditEvent = AuditRecord & { [K in keyof ChainPlace]: ChainPlace[K] | null }

/** A record of a tenant's chain, as the API lists it: never an operator's (those are on the platform chain). */
export type TenantAuditEvent = AuditEvent & { actorType: TenantActorType }

/** The `prevHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64)

/**
 * What the trail needs of any principal: its kind and the id it is known by (the client's, the key's, the user's).
 * A principal of a kind that is not an actor type does not fit here, so a new kind is a compile error until mapped.
 */
export interface AuditedPrincipal {
  kind: Exclude<TenantActorType, 'anonymous'>
  actorId: string
}

/** The actor of a call: its principal's, or anonymous without one. */
export function actorOf(principal: AuditedPrincipal | undefined): { actorType: ActorType; actorId: string | null } {
  if (!principal) return { actorType: 'anonymous', actorId: null }
  return { actorType: principal.kind, actorId: principal.actorId }
}

const MAX_TEXT = { path: 2048, userAgent: 512, short: 255 } as const

/**
 * Text as PostgreSQL will store it: no NUL (which `text` refuses), well-formed UTF-8 (a lone surrogate would be
 * replaced on the way in and break the hash), and bounded so a hostile header cannot bloat the trail.
 */
export function storableText(value: string, maxLength: number): string {
  const bounded = value.length > maxLength ? value.slice(0, maxLength) : value
  return Buffer.from(bounded.replace(/\0/g, '\uFFFD'), 'utf8').toString('utf8')
}

const optionalText = (value: string | null | undefined, maxLength: number = MAX_TEXT.short) =>
  value === null || value === undefined || value === '' ? null : storableText(value, maxLength)

/** Normalises an entry so that the stored record equals the hashed one, and clamps numbers to the columns. */
export function normaliseEntry(entry: AuditEntry): AuditEntry {
  return {
    tenantId: entry.tenantId,
    occurredAt: new Date(entry.occurredAt.getTime()),
    actorType: entry.actorType,
    actorId: optionalText(entry.actorId),
    locationId: optionalText(entry.locationId),
    method: storableText(entry.method, 16),
    route: storableText(entry.route, MAX_TEXT.path),
    path: storableText(entry.path, MAX_TEXT.path),
    resourceType: optionalText(entry.resourceType),
    resourceId: optionalText(entry.resourceId),
    status: Math.trunc(entry.status),
    requestId: storableText(entry.requestId, MAX_TEXT.short),
    clientIp: optionalText(entry.clientIp, 64),
    userAgent: optionalText(entry.userAgent, MAX_TEXT.userAgent),
    latencyMs: Math.min(Math.max(0, Math.round(entry.latencyMs)), 2_147_483_647),
  }
}
