/**
 * @module Request and response schemas shared by the money routes (prices, orders, payments): amounts are integer
 * minor units, currencies ISO 4217 codes (docs/payments.md).
 */
import { z } from '@hono/zod-openapi'
import { MAX_AMOUNT } from '../../../domain/pricing/money.ts'
import { OffsetDateTime } from '../../openapi/schemas.ts'

export const Amount = z.number().int().min(0).max(MAX_AMOUNT).openapi({
  description: 'Integer minor units of `currency` (cents for USD, yen for JPY, fils for BHD).',
  example: 12000,
})

export const PositiveAmount = z
  .number()
  .int()
  .min(1)
  .max(MAX_AMOUNT)
  .openapi({ description: 'Integer minor units of `currency`, at least 1.', example: 6000 })

export const Currency = z
  .string()
  .regex(/^[A-Z]{3}$/, 'Must be an ISO 4217 currency code in upper case, e.g. USD')
  .openapi({ description: 'ISO 4217 currency code; unknown codes are `unknown_currency`.', example: 'USD' })

/** `true`/`false` in a query string. */
export const QueryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true')

/** An instant in a query string (RFC 3339, with Z or an offset). */
export const QueryInstant = OffsetDateTime.openapi({ format: 'date-time', example: '2026-11-01T00:00:00Z' })

/** An instant in a request body (RFC 3339, with Z or an offset). */
export const OffsetInstant = OffsetDateTime.openapi({ format: 'date-time', example: '2026-11-21T16:30:00-06:00' })
