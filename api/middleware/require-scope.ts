/**
 * @module Scope enforcement. Every protected route declares its scope through `protectedRoute`, which installs this
 * middleware and documents the scope in OpenAPI from the same value. API keys are checked against the scope's
 * resource and the request's method.
 */
import type { MiddlewareHandler } from 'hono'
import { principalAllows } from '../../domain/auth/principal.ts'
import type { Scope } from '../../domain/auth/scopes.ts'
import { insufficientScope, keyNotPermitted } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

export const requireScope = (scope: Scope): MiddlewareHandler<AppEnv> =>
  async function requireScope(c, next) {
    const principal = c.get('principal')
    if (!principalAllows(principal, scope, c.req.method)) {
      // A key lacks a resource-and-method permission rather than a scope; the problem says what was needed.
      throw principal.kind === 'api_key' ? keyNotPermitted(scope, c.req.method) : insufficientScope(scope)
    }
    await next()
  }

/** For a route any one of several scopes opens (`protectedRouteAnyOf`); refusals name the first, the broadest. */
export const requireAnyScope = (scopes: readonly Scope[]): MiddlewareHandler<AppEnv> =>
  async function requireAnyScope(c, next) {
    const principal = c.get('principal')
    if (!scopes.some((scope) => principalAllows(principal, scope, c.req.method))) {
      throw principal.kind === 'api_key' ? keyNotPermitted(scopes[0]!, c.req.method) : insufficientScope(scopes[0]!)
    }
    await next()
  }

/** For a route that needs every one of several scopes (`protectedRouteAllOf`); a refusal names the first missing. */
export const requireAllScopes = (scopes: readonly Scope[]): MiddlewareHandler<AppEnv> =>
  async function requireAllScopes(c, next) {
    const principal = c.get('principal')
    const missing = scopes.find((scope) => !principalAllows(principal, scope, c.req.method))
    if (missing !== undefined) {
      throw principal.kind === 'api_key' ? keyNotPermitted(missing, c.req.method) : insufficientScope(missing)
    }
    await next()
  }
