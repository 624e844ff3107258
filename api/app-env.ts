/**
 * @module The typed Hono environment: what each request carries once the middleware has run, and what the app is
 * built from. Dependencies are built once per process (api/deps.ts, api/compose-services.ts) and passed to
 * the route factories.
 */
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
  /** The bearer token's outcome, set by identifyCaller on every route but the OAuth endpoints. */
  bearer?: BearerOutcome
  principal: Principal
  uow: UnitOfWork
  /** The answer carries a secret: its stored copy for Idempotency-Key replays is sealed (infra/response-sealer.ts). */
  sealStoredResponse?: boolean
}

export type AppEnv = { Variables: AppVariables }
