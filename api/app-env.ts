/**
 * @module The typed Hono environment: what each request carries once the middleware has run, and what the app is
 * built from. Dependencies are built once per process (api/deps.ts, api/compose-services.ts) and passed to
 * the route factories.
 */
import type { AuditEntry } from '../domain/audit/audit-event.ts'
import type { Principal } from '../domain/auth/principal.ts'
import type { RateLimiter } from '../infra/rate-limiter.ts'
import type { UnitOfWork } from '../infra/unit-of-work.ts'
import type { AppServices, ServiceInfrastructure } from './compose-services.ts'
import type { BearerOutcome } from './middleware/identify-caller.ts'

/** The infrastructure (api/deps.ts) and the domain services built from it once (api/compose-services.ts). */
export interface AppDeps extends ServiceInfrastructure, AppServices {
  rateLimiter: RateLimiter
}

export interface AppVariables {
  requestId: string
  /** The bearer token's outcome, set by identifyCaller on every route but the OAuth and codec endpoints. */
  bearer?: BearerOutcome
  /**
   * What a call outside the versioned API (/oauth, /codec) says about itself for its audit record: the client or
   * operator it authenticated, the chain it belongs to, what it concerned (api/middleware/audit.ts).
   */
  auditedAs?: AuditedAs
  principal: Principal
  uow: UnitOfWork
  /** The answer carries a secret: its stored copy for Idempotency-Key replays is sealed (infra/response-sealer.ts). */
  sealStoredResponse?: boolean
}

/** The fields of a record a call outside the versioned API sets itself; the rest is read from the call. */
export type AuditedAs = Partial<Pick<AuditEntry, 'tenantId' | 'actorType' | 'actorId' | 'resourceType' | 'resourceId'>>

export type AppEnv = { Variables: AppVariables }
