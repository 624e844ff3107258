/** @module /v1/availability: a thin handler over the availability service. */
import { OpenAPIHono } from '@hono/zod-openapi'
import { performance } from 'node:perf_hooks'
import { findAvailability, type AvailabilityTimings } from '../../../domain/availability/availability-service.ts'
import { validationError } from '../../../domain/errors.ts'
import { afterCursor, encodeCursor } from '../../../domain/pagination.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { serverTimingMetric } from '../../middleware/server-timing.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { getAvailabilityRoute } from './availability.routes.ts'
import { MAX_PROVIDERS } from '../../../domain/availability/availability-service.ts'

/** The ids of `providerId` or `providerIds`, de-duplicated, or undefined when providers are selected by filters. */
function namedProviders(query: { providerId?: string; providerIds?: string }): string[] | undefined {
  if (query.providerId) return [query.providerId]
  if (query.providerIds === undefined) return undefined
  const ids = [
    ...new Set(
      query.providerIds
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean)
    ),
  ]
  if (ids.length === 0 || ids.length > MAX_PROVIDERS) {
    throw validationError([
      { path: 'providerIds', code: 'invalid_size', message: `Between 1 and ${MAX_PROVIDERS} provider ids.` },
    ])
  }
  return ids
}

export function availabilityRoutes({ clock }: Pick<AppDeps, 'clock'>) {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook }).openapi(getAvailabilityRoute, async (c) => {
    const query = c.req.valid('query')
    const timings: AvailabilityTimings = { loadMs: 0, computeMs: 0 }
    const result = await findAvailability(
      c.var.uow,
      {
        ...query,
        providerIds: namedProviders(query),
        from: new Date(query.from),
        to: new Date(query.to),
        afterProviderId: afterCursor(query.cursor),
      },
      clock(),
      timings
    )
    const nextCursor = result.nextProviderId ? encodeCursor(result.nextProviderId) : null
    // c.json serialises on the spot: timing it measures JSON.stringify of the answer (820 KiB for 200 providers).
    const serialiseStarted = performance.now()
    const response = c.json({ data: result.data, nextCursor }, 200)
    const serialiseMs = performance.now() - serialiseStarted
    response.headers.append(
      'Server-Timing',
      [
        serverTimingMetric('load', timings.loadMs),
        serverTimingMetric('compute', timings.computeMs),
        serverTimingMetric('json', serialiseMs),
      ].join(', ')
    )
    return response
  })
}
