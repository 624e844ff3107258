/**
 * @module Route table of /v1/analytics (release 2.3.0): one location's analytics and the
 * multi-location request. Definitions of every figure: docs/analytics.md.
 */
import { z } from '@hono/zod-openapi'
import { MAX_RANGE_DAYS } from '../../../domain/analytics/analytics-range.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam } from '../../openapi/schemas.ts'
import { CALENDAR_DATE } from '../../../domain/time.ts'

const q = (name: string, description: string, example?: string) => ({
  param: { name, in: 'query' as const },
  description,
  ...(example ? { example } : {}),
})
const CalendarDate = z.string().regex(CALENDAR_DATE, 'A calendar date, YYYY-MM-DD')
const Rate = z.number().nullable().openapi({ description: 'A ratio to four decimals; null when the denominator is 0' })

export const AnalyticsMetrics = z
  .object({
    appointments: z
      .object({
        total: z.number().int(),
        confirmed: z.number().int(),
        completed: z.number().int(),
        cancelled: z.number().int(),
        lateCancelled: z
          .number()
          .int()
          .openapi({ description: 'Of the cancelled, those inside the late-cancellation window' }),
        noShow: z.number().int(),
      })
      .openapi({ description: 'Appointments starting in the range, by status, at this location' }),
    cancellationRate: Rate.openapi({ description: 'cancelled / total' }),
    noShowRate: Rate.openapi({ description: 'noShow / (completed + noShow)' }),
    utilisation: z.object({
      bookedMinutes: z.number().openapi({ description: 'Time of non-cancelled appointments inside the range' }),
      availableMinutes: z.number().openapi({ description: 'Weekly working hours minus time off, inside the range' }),
      ratio: Rate.openapi({ description: 'bookedMinutes / availableMinutes' }),
      providers: z.number().int().openapi({ description: 'Providers with weekly hours based here (primary location)' }),
    }),
    newChildren: z.number().int(),
    assessments: z.object({
      due: z.number().int().openapi({ description: 'Due on a day of the range, not cancelled' }),
      completed: z.number().int().openapi({ description: 'Of those due, completed' }),
      completionRate: Rate,
      completedInRange: z
        .number()
        .int()
        .openapi({ description: 'Completed during the range, whatever their due date' }),
    }),
    revenue: z.array(
      z.object({
        currency: z.string(),
        collected: z.number().int().openapi({ description: 'Succeeded payments received in the range' }),
        refunded: z.number().int().openapi({ description: 'Refunds made in the range' }),
        net: z.number().int(),
      })
    ),
    outstanding: z.array(
      z.object({
        currency: z.string(),
        amount: z.number().int().openapi({ description: 'Owed on finalized orders at balancesAsOf' }),
        orders: z.number().int(),
      })
    ),
  })
  .openapi('AnalyticsMetrics')

export const AnalyticsRange = z
  .object({
    from: z.string(),
    to: z.string(),
    timeZone: z.string(),
    startsAt: z
      .string()
      .openapi({ format: 'date-time', description: 'Local midnight starting `from`, with its offset' }),
    endsAt: z.string().openapi({ format: 'date-time', description: 'Local midnight after `to` (exclusive)' }),
    balancesAsOf: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('AnalyticsRange')

const RangeQuery = z.object({
  from: CalendarDate.openapi(q('from', 'First day, included', '2026-11-01')),
  to: CalendarDate.openapi(q('to', `Last day, included (at most ${MAX_RANGE_DAYS} days after from)`, '2026-11-30')),
})

export const LocationAnalytics = z
  .object({
    range: AnalyticsRange,
    location: z.object({ id: z.string(), name: z.string(), timeZone: z.string() }),
    metrics: AnalyticsMetrics,
  })
  .openapi('LocationAnalytics')

export const MultiLocationAnalytics = z
  .object({
    range: AnalyticsRange,
    totals: AnalyticsMetrics,
    locations: z
      .array(z.object({ locationId: z.string().nullable(), name: z.string().nullable(), metrics: AnalyticsMetrics }))
      .openapi({
        description:
          'Per location, adding up exactly to the totals; `locationId: null` holds children without a location',
      }),
  })
  .openapi('MultiLocationAnalytics')

export const locationAnalyticsRoute = protectedRoute('analytics', {
  method: 'get',
  path: '/v1/analytics/locations/{id}',
  tags: ['Analytics'],
  summary: "One location's analytics for a date range",
  request: {
    params: IdParam('location'),
    query: RangeQuery.extend({
      timeZone: z.string().max(64).optional().openapi(q('timeZone', "IANA zone of the days; default the location's")),
    }),
  },
  responses: {
    200: { description: 'The analytics', content: { 'application/json': { schema: LocationAnalytics } } },
    ...problemResponses(400, 404, ...COMMON_ERRORS),
  },
})

export const multiLocationAnalyticsRoute = protectedRoute('analytics', {
  method: 'get',
  path: '/v1/analytics/multi-location',
  tags: ['Analytics'],
  summary: 'Multi-location analytics: every location of the tenant in one request',
  description: 'Totals and a per-location breakdown that sums exactly to them, for days in the zone given.',
  request: {
    query: RangeQuery.extend({
      timeZone: z
        .string()
        .min(1)
        .max(64)
        .openapi(q('timeZone', 'IANA zone of the days', 'America/Chicago')),
      locationIds: z
        .string()
        .max(64 * 100)
        .optional()
        .openapi(q('locationIds', 'Comma-separated: only these locations')),
    }),
  },
  responses: {
    200: { description: 'The analytics', content: { 'application/json': { schema: MultiLocationAnalytics } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})
