/** @module Route table of /v1/clients: parents, guardians and payers with their custom fields (spec row 4). */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../../../domain/locations/resolve-location.ts'
import {
  CLIENT_ROLES,
  ClientFields,
  CustomFieldValuesInput,
  PostalAddress,
} from '../../../domain/clients/client-schema.ts'
import { CLIENT_SORTS } from '../../../domain/clients/client-service.ts'
import { BooleanQuery } from '../../../domain/clients/record-fields.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

export const ClientCreate = z
  .strictObject({ ...ClientFields.shape, custom_fields: CustomFieldValuesInput.optional() })
  .openapi('ClientCreate')

export const ClientPatch = mergePatchSchema(ClientCreate, {
  required: ['firstName', 'lastName', 'locationId', 'custom_fields'],
  nested: { address: mergePatchSchema(PostalAddress) },
}).openapi('ClientPatch', {
  description:
    'A JSON merge patch (RFC 7396): members present replace, null removes, `address` and `custom_fields` merge ' +
    'member by member, `roles` is replaced whole.',
})

export const Client = z
  .object({
    id: resourceId('client'),
    locationId: z.string(),
    firstName: z.string(),
    lastName: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    preferredLanguage: z.string().nullable(),
    address: orNull(PostalAddress),
    roles: z.array(z.enum(CLIENT_ROLES)),
    custom_fields: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .openapi({ description: 'Values by field key, including values of fields archived since they were written' }),
    archivedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Client')

const ListClientsQuery = listQuerySchema(CLIENT_SORTS, '-createdAt').extend({
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'locationId', in: 'query' } }),
  email: z
    .string()
    .max(254)
    .optional()
    .openapi({ param: { name: 'email', in: 'query' }, description: 'Exact, case-insensitive' }),
  q: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .openapi({
      param: { name: 'q', in: 'query' },
      description: 'Name search: every word must appear in the first or last name',
    }),
  role: z
    .enum(CLIENT_ROLES)
    .optional()
    .openapi({ param: { name: 'role', in: 'query' } }),
  childId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'childId', in: 'query' }, description: 'Clients linked to this child' }),
  archived: BooleanQuery('archived', 'true lists only archived clients; default false (only active ones)'),
})

const ClientId = IdParam('client')

export const createClientRoute = protectedRoute('clients', {
  method: 'post',
  path: '/v1/clients',
  tags: ['Clients'],
  summary: 'Create a client (parent, guardian, payer) with custom fields',
  description: `\`locationId\`: ${LOCATION_ID_RULE}`,
  request: { body: { required: true, content: { 'application/json': { schema: ClientCreate } } } },
  responses: {
    201: { description: 'The client', content: { 'application/json': { schema: Client } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listClientsRoute = protectedRoute('clients.read', {
  method: 'get',
  path: '/v1/clients',
  tags: ['Clients'],
  summary: 'List clients',
  request: { query: ListClientsQuery },
  responses: {
    200: {
      description: 'A page of clients',
      content: { 'application/json': { schema: pageOf(Client, 'ClientPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getClientRoute = protectedRoute('clients.read', {
  method: 'get',
  path: '/v1/clients/{id}',
  tags: ['Clients'],
  summary: 'Retrieve a client',
  request: { params: ClientId },
  responses: {
    200: { description: 'The client', content: { 'application/json': { schema: Client } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const patchClientRoute = protectedRoute('clients', {
  method: 'patch',
  path: '/v1/clients/{id}',
  tags: ['Clients'],
  summary: 'Update a client (JSON merge patch)',
  request: {
    params: ClientId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: ClientPatch }, 'application/json': { schema: ClientPatch } },
    },
  },
  responses: {
    200: { description: 'The client', content: { 'application/json': { schema: Client } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const archiveClientRoute = protectedRoute('clients', {
  method: 'delete',
  path: '/v1/clients/{id}',
  tags: ['Clients'],
  summary: 'Archive a client',
  description:
    'Archives rather than deletes: the client stays readable (with `archivedAt`) for the history that names them, ' +
    'drops out of lists unless `archived=true`, and cannot be newly linked to a child or given a pet. Repeating it ' +
    'changes nothing.',
  request: { params: ClientId },
  responses: {
    200: { description: 'The archived client', content: { 'application/json': { schema: Client } } },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
