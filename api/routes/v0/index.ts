/**
 * @module /v0: the deprecated version (docs/versioning.md). Each route is an alias of its /v1 successor
 * served by the same handler behind the same middleware (authentication, unit of work, scope), with `Deprecation`,
 * `Sunset` and `Link` headers until the sunset and 410 `version_sunset` from it.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { deprecatedAlias, type VersionLifecycle } from '../../openapi/deprecated-route.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { getChildRoute } from '../children/children.routes.ts'
import { readChild } from '../children/index.ts'
import { readPayments } from '../payments/index.ts'
import { listPaymentsRoute } from '../payments/payments.routes.ts'

/**
 * When /v0 became deprecated: 2025-01-01T00:00:00Z, the date docs/conventions.md gives (`@1735689600`); the spec names
 * none, only that /v0 is deprecated.
 */
export const V0_DEPRECATED_AT = new Date('2025-01-01T00:00:00Z')

/** The sunset of /v0 (docs/versioning.md): from this instant its routes answer 410. */
export const V0_SUNSET_AT = new Date('2026-12-01T00:00:00Z')

export function v0Routes({ clock, config }: Pick<AppDeps, 'clock' | 'config'>) {
  const v0: VersionLifecycle = {
    deprecatedAt: V0_DEPRECATED_AT,
    sunsetAt: V0_SUNSET_AT,
    // Served, and marks every /v0 operation deprecated with its successor and sunset.
    documentation: `${config.PUBLIC_URL}/openapi.json`,
    clock,
  }
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(deprecatedAlias(getChildRoute, '/v0/children/{id}', v0), readChild)
    .openapi(deprecatedAlias(listPaymentsRoute, '/v0/payments', v0), readPayments)
}
