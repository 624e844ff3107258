/**
 * @module The typed Hono environment: what each request carries once the middleware has run, and what the app is
 * built from. Dependencies are built once per process (api/deps.ts) and passed to the route factories.
 */
import type { Client } from '@temporalio/client'
import type { ClientPrincipal } from '../domain/auth/access-tokens.ts'
import type { SigningKeys } from '../domain/auth/signing-keys.ts'
import type { TokenService } from '../domain/auth/token-service.ts'
import type { AppointmentService } from '../domain/appointments/appointment-service.ts'
import type { WorkflowOutbox } from '../domain/workflows/workflow-outbox.ts'
import type { Clock } from '../infra/clock.ts'
import type { Config } from '../infra/config.ts'
import type { Db } from '../infra/db.ts'
import type { Logger } from '../infra/logger.ts'
import type { UnitOfWork } from '../infra/unit-of-work.ts'

export interface AppDeps {
  config: Config
  db: Db
  temporal: Client
  keys: SigningKeys
  tokens: TokenService
  outbox: WorkflowOutbox
  appointments: AppointmentService
  clock: Clock
  logger: Logger
}

export interface AppVariables {
  requestId: string
  principal: ClientPrincipal
  uow: UnitOfWork
}

export type AppEnv = { Variables: AppVariables }
