/**
 * @module Scope enforcement. Every protected route declares its scope through `protectedRoute`, which installs this
 * middleware and documents the scope in OpenAPI from the same value.
 */
import type { MiddlewareHandler } from 'hono'
import { satisfiesScope, type Scope } from '../../domain/auth/scopes.ts'
import { insufficientScope } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

export const requireScope = (scope: Scope): MiddlewareHandler<AppEnv> =>
  async function requireScope(c, next) {
    if (!satisfiesScope(c.get('principal').scopes, scope)) throw insufficientScope(scope)
    await next()
  }
