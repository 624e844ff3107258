/** @module Route table of /v1/providers: schemas and OpenAPI definitions. */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, PaginationQuery, UtcDateTime, pageOf } from '../../openapi/schemas.ts'

export const ProviderCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(200).openapi({ example: 'Dana Whitfield, CCC-SLP' }),
    timeZone: z.string().min(1).max(64).openapi({ description: 'IANA time zone', example: 'America/Chicago' }),
    locationId: z.string().optional().openapi({ description: "Defaults to the tenant's only location" }),
  })
  .openapi('ProviderCreate')

export const Provider = z
  .object({
    id: z.string().openapi({ example: 'prv_019a...' }),
    name: z.string(),
    timeZone: z.string(),
    locationId: z.string(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Provider')

export const createProviderRoute = protectedRoute('providers', {
  method: 'post',
  path: '/v1/providers',
  tags: ['Providers'],
  summary: 'Create a provider (therapist)',
  request: { body: { required: true, content: { 'application/json': { schema: ProviderCreate } } } },
  responses: {
    201: { description: 'The provider', content: { 'application/json': { schema: Provider } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listProvidersRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers',
  tags: ['Providers'],
  summary: 'List providers',
  request: { query: PaginationQuery },
  responses: {
    200: { description: 'A page of providers', content: { 'application/json': { schema: pageOf(Provider, 'ProviderPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getProviderRoute = protectedRoute('providers.read', {
  method: 'get',
  path: '/v1/providers/{id}',
  tags: ['Providers'],
  summary: 'Retrieve a provider',
  request: { params: IdParam('provider', 'prv_019a...') },
  responses: {
    200: { description: 'The provider', content: { 'application/json': { schema: Provider } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})
