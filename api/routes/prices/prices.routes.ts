/** @module Route table of /v1/prices: the price list (docs/payments.md). */
import { z } from '@hono/zod-openapi'
import { AppointmentType, PriceUnit } from '../../../generated/prisma/enums.ts'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { PRICE_SORTS } from '../../../domain/pricing/price-service.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, pageOf, UtcDateTime } from '../../openapi/schemas.ts'
import { Amount, Currency, QueryBoolean } from './money-schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { CurrencyCode } from '../../../domain/pricing/currency-schema.ts'

const AppointmentTypeSchema = z.enum(AppointmentType).openapi({ example: 'THERAPY_SESSION' })
const PriceUnitSchema = z
  .enum(PriceUnit)
  .openapi('PriceUnit', { description: 'What one `amount` buys: a session, a 15-minute unit, an assessment...' })

export const PriceCreate = z
  .strictObject({
    service: DisciplineSchema,
    appointmentType: AppointmentTypeSchema.optional().openapi({
      description: 'Only for this appointment type; omit for any.',
    }),
    locationId: resourceId('location')
      .optional()
      .openapi({ description: 'Only at this location (in its currency); omit for tenant-wide.' }),
    description: z.string().trim().min(1).max(200).optional().openapi({ example: 'Speech therapy, 45 minutes' }),
    amount: Amount,
    currency: CurrencyCode,
    unit: PriceUnitSchema,
    active: z
      .boolean()
      .optional()
      .openapi({ description: 'Default true. One active price per service, location and type.' }),
  })
  .openapi('PriceCreate')

export const PricePatch = z
  .strictObject({
    description: z.string().trim().min(1).max(200).nullable().optional(),
    amount: Amount.optional(),
    unit: PriceUnitSchema.optional(),
    active: z.boolean().optional(),
  })
  .openapi('PricePatch', {
    description: 'A JSON merge patch (RFC 7396) of the writable fields; null removes the description',
  })

export const Price = z
  .object({
    id: resourceId('price'),
    service: DisciplineSchema,
    appointmentType: AppointmentTypeSchema.nullable(),
    locationId: z.string().nullable(),
    description: z.string().nullable(),
    amount: Amount,
    currency: Currency,
    unit: PriceUnitSchema,
    active: z.boolean(),
    archivedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Price')

const json = <T extends z.ZodTypeAny>(schema: T) => ({ 'application/json': { schema } })

export const createPriceRoute = protectedRoute('orders', {
  method: 'post',
  path: '/v1/prices',
  tags: ['Prices'],
  summary: 'Add a price to the price list',
  request: { body: { required: true, content: json(PriceCreate) } },
  responses: {
    201: { description: 'The price', content: json(Price) },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listPricesRoute = protectedRoute('orders.read', {
  method: 'get',
  path: '/v1/prices',
  tags: ['Prices'],
  summary: 'List the price list',
  request: {
    query: listQuerySchema(PRICE_SORTS, 'createdAt').extend({
      service: DisciplineSchema.optional(),
      locationId: z.string().max(64).optional(),
      appointmentType: AppointmentTypeSchema.optional(),
      currency: Currency.optional(),
      active: QueryBoolean.optional(),
      archived: QueryBoolean.optional().openapi({
        description: 'true: only archived prices; default: only unarchived ones.',
      }),
    }),
  },
  responses: {
    200: { description: 'A page of prices', content: json(pageOf(Price, 'PricePage')) },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getPriceRoute = protectedRoute('orders.read', {
  method: 'get',
  path: '/v1/prices/{id}',
  tags: ['Prices'],
  summary: 'Retrieve a price',
  request: { params: IdParam('price') },
  responses: {
    200: { description: 'The price', content: json(Price) },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const updatePriceRoute = protectedRoute('orders', {
  method: 'patch',
  path: '/v1/prices/{id}',
  tags: ['Prices'],
  summary: "Change a price's amount, unit, description or active flag",
  request: {
    params: IdParam('price'),
    body: { required: true, content: { 'application/merge-patch+json': { schema: PricePatch }, ...json(PricePatch) } },
  },
  responses: {
    200: { description: 'The price', content: json(Price) },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const archivePriceRoute = protectedRoute('orders', {
  method: 'post',
  path: '/v1/prices/{id}/archive',
  tags: ['Prices'],
  summary: 'Archive a price: it stays readable, never prices anything again',
  request: { params: IdParam('price') },
  responses: {
    200: { description: 'The archived price', content: json(Price) },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
