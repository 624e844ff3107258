/**
 * @module Route table of /v1/custom-field-definitions: the custom fields each location defines for its client records.
 * Written with the `clients` scope and read with `clients.read`: they are part of the client record's shape.
 */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../../../domain/locations/resolve-location.ts'
import {
  CUSTOM_FIELD_TYPES,
  CustomFieldDefinitionShape,
  optionsRule,
} from '../../../domain/custom-fields/custom-field-schema.ts'
import { DEFINITION_SORTS } from '../../../domain/custom-fields/custom-field-definition-service.ts'
import { BooleanQuery } from '../../../domain/clients/record-fields.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'

export const CustomFieldDefinitionCreate = z
  .strictObject({
    ...CustomFieldDefinitionShape.shape,
    locationId: resourceId('location').optional().openapi({ description: LOCATION_ID_RULE }),
  })
  .superRefine(optionsRule)
  .openapi('CustomFieldDefinitionCreate')

export const CustomFieldDefinitionPatch = mergePatchSchema(CustomFieldDefinitionShape, {
  required: ['key', 'label', 'type', 'required', 'position'],
}).openapi('CustomFieldDefinitionPatch', {
  description:
    'A JSON merge patch (RFC 7396) of label, description, required, options (replaced whole) and position. key and ' +
    'type never change (`immutable`); archive the field and define a new one instead.',
})

export const CustomFieldDefinition = z
  .object({
    id: resourceId('customFieldDefinition'),
    locationId: z.string(),
    key: z.string(),
    label: z.string(),
    description: z.string().nullable(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    required: z.boolean(),
    options: z
      .array(z.string())
      .nullable()
      .openapi({ description: 'The choices of a SELECT field; null for other types' }),
    position: z.number().int(),
    archivedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('CustomFieldDefinition')

const ListDefinitionsQuery = listQuerySchema(DEFINITION_SORTS, 'position').extend({
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'locationId', in: 'query' } }),
  archived: BooleanQuery('archived', 'true lists only archived definitions; default false (only active ones)'),
})

const DefinitionId = IdParam('customFieldDefinition')
const definitionResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: CustomFieldDefinition } },
})

export const createDefinitionRoute = protectedRoute('clients', {
  method: 'post',
  path: '/v1/custom-field-definitions',
  tags: ['Clients'],
  summary: "Define a custom field for a location's client records",
  description: `\`locationId\`: ${LOCATION_ID_RULE}`,
  request: { body: { required: true, content: { 'application/json': { schema: CustomFieldDefinitionCreate } } } },
  responses: {
    201: definitionResponse('The definition'),
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listDefinitionsRoute = protectedRoute('clients.read', {
  method: 'get',
  path: '/v1/custom-field-definitions',
  tags: ['Clients'],
  summary: 'List custom field definitions',
  request: { query: ListDefinitionsQuery },
  responses: {
    200: {
      description: 'A page of definitions',
      content: { 'application/json': { schema: pageOf(CustomFieldDefinition, 'CustomFieldDefinitionPage') } },
    },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getDefinitionRoute = protectedRoute('clients.read', {
  method: 'get',
  path: '/v1/custom-field-definitions/{id}',
  tags: ['Clients'],
  summary: 'Retrieve a custom field definition',
  request: { params: DefinitionId },
  responses: { 200: definitionResponse('The definition'), ...problemResponses(404, ...COMMON_ERRORS) },
})

export const patchDefinitionRoute = protectedRoute('clients', {
  method: 'patch',
  path: '/v1/custom-field-definitions/{id}',
  tags: ['Clients'],
  summary: 'Change a custom field definition (JSON merge patch)',
  description:
    'Stored values are never rewritten: a field made required must be filled the next time a client’s custom fields ' +
    'are edited; a value whose option was removed stays until that field is edited.',
  request: {
    params: DefinitionId,
    body: {
      required: true,
      content: {
        'application/merge-patch+json': { schema: CustomFieldDefinitionPatch },
        'application/json': { schema: CustomFieldDefinitionPatch },
      },
    },
  },
  responses: {
    200: definitionResponse('The definition'),
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const archiveDefinitionRoute = protectedRoute('clients', {
  method: 'delete',
  path: '/v1/custom-field-definitions/{id}',
  tags: ['Clients'],
  summary: 'Archive a custom field definition',
  description:
    'The field accepts no new values and requires nothing; values already stored stay readable and can be removed. ' +
    'Its key is never reused at the location. Repeating it changes nothing.',
  request: { params: DefinitionId },
  responses: {
    200: definitionResponse('The archived definition'),
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
