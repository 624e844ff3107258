/**
 * @module The currency of a write, as a schema: the ISO 4217 codes the API accepts (`currencies.ts`), published as
 * the description's `CurrencyCode` enum so that clients and fuzzers send one the API takes. A code of the right shape
 * that is not in the list keeps its stable field code, `unknown_currency`.
 */
import { z } from '@hono/zod-openapi'
import { CURRENCY_CODES, isCurrency } from './currencies.ts'

export const CurrencyCode = z
  .string()
  .regex(/^[A-Z]{3}$/, { message: 'Must be an ISO 4217 currency code in upper case, e.g. USD', abort: true })
  .refine(isCurrency, { message: 'Not an ISO 4217 currency code.', params: { code: 'unknown_currency' } })
  .openapi('CurrencyCode', {
    description: 'A circulating ISO 4217 currency code, upper case; any other is `unknown_currency`.',
    enum: [...CURRENCY_CODES],
    example: 'USD',
  })
