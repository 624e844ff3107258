/**
 * @module The typed Hono environment: what each request carries once the middleware has run, and what the app is
 * built from. Dependencies are built once per process (api/deps.ts) and passed to the route factories.
 */
import type { Client } from '@temporalio/client'
import type { Principal } from '../domain/auth/principal.ts'
import type { SigningKeys } from '../domain/auth/signing-keys.ts'
import type { RevocationList } from '../domain/auth/revocation-list.ts'
import type { SsoVerifier } from '../domain/auth/sso.ts'
import type { TokenLifecycle } from '../domain/auth/token-lifecycle.ts'
import type { TokenService } from '../domain/auth/token-service.ts'
import type { AppointmentService } from '../domain/appointments/appointment-service.ts'
import type { WorkflowOutbox } from '../domain/workflows/workflow-outbox.ts'
import type { Clock } from '../infra/clock.ts'
import type { Config } from '../infra/config.ts'
import type { Db } from '../infra/db.ts'
import type { Logger } from '../infra/logger.ts'
import type { RateLimiter } from '../infra/rate-limiter.ts'
import type { UnitOfWork } from '../infra/unit-of-work.ts'
import type { BearerOutcome } from './middleware/identify-caller.ts'

export interface AppDeps {
  config: Config
  db: Db
  temporal: Client
  keys: SigningKeys
  tokens: TokenService
  tokenLifecycle: TokenLifecycle
  revocations: RevocationList
  sso: SsoVerifier
  outbox: WorkflowOutbox
  appointments: AppointmentService
  clock: Clock
  logger: Logger
  rateLimiter: RateLimiter
}

export interface AppVariables {
  requestId: string
  /** The bearer token's outcome, set by identifyCaller on every route but the OAuth endpoints. */
  bearer?: BearerOutcome
  principal: Principal
  uow: UnitOfWork
}

export type AppEnv = { Variables: AppVariables }
