/** @module Route table of /v1/children: schemas and OpenAPI definitions. */
import { z } from '@hono/zod-openapi'
import { LOCATION_ID_RULE } from '../../../domain/locations/resolve-location.ts'
import { DisciplineSchema } from '../../../domain/catalogue/disciplines.ts'
import { ChildClientLinkInput, ChildFields, Diagnosis, GOAL_STATUSES } from '../../../domain/children/child-schema.ts'
import { CHILD_SORTS } from '../../../domain/children/child-service.ts'
import { EarlyIntervention, ServiceCoordinator } from '../../../domain/early-intervention/ei-enrolment.ts'
import { BooleanQuery } from '../../../domain/clients/record-fields.ts'
import { listQuerySchema } from '../../../domain/listing.ts'
import { mergePatchSchema } from '../../../domain/merge-patch.ts'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime, pageOf } from '../../openapi/schemas.ts'
import { resourceId } from '../../../domain/id-schema.ts'
import { orNull } from '../../../domain/nullable.ts'

/** The create body: names and date of birth are all a child needs; everything else can follow. */
export const ChildCreate = ChildFields.openapi('ChildCreate')

export const ChildPatch = mergePatchSchema(ChildFields, {
  required: ['firstName', 'lastName', 'dateOfBirth', 'locationId'],
  nested: {
    earlyIntervention: mergePatchSchema(EarlyIntervention, {
      nested: { serviceCoordinator: mergePatchSchema(ServiceCoordinator) },
    }),
  },
}).openapi('ChildPatch', {
  description:
    'A JSON merge patch (RFC 7396): members present replace, null removes. `clients`, `languages`, `diagnoses` and ' +
    '`goals` are replaced whole (keep a goal’s id to keep the goal); `earlyIntervention` merges member by member and ' +
    'null removes the enrolment.',
})

export const Goal = z
  .object({
    id: resourceId('goal'),
    description: z.string(),
    discipline: DisciplineSchema.optional(),
    status: z.enum(GOAL_STATUSES),
    targetDate: z.string().optional().openapi({ format: 'date' }),
  })
  .openapi('Goal')

export const Child = z
  .object({
    id: resourceId('child'),
    firstName: z.string(),
    lastName: z.string(),
    dateOfBirth: z.string().openapi({ format: 'date' }),
    locationId: z.string().nullable(),
    languages: z.array(z.string()),
    clients: z.array(ChildClientLinkInput),
    diagnoses: z.array(Diagnosis),
    goals: z.array(Goal),
    earlyIntervention: orNull(EarlyIntervention),
    archivedAt: UtcDateTime.nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Child')

const ListChildrenQuery = listQuerySchema(CHILD_SORTS, '-createdAt').extend({
  locationId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'locationId', in: 'query' } }),
  clientId: z
    .string()
    .max(64)
    .optional()
    .openapi({ param: { name: 'clientId', in: 'query' }, description: 'Children linked to this client' }),
  earlyIntervention: BooleanQuery(
    'earlyIntervention',
    'true: only children enrolled in early intervention; false: only those not'
  ),
  archived: BooleanQuery('archived', 'true lists only archived children; default false (only active ones)'),
})

const ChildId = IdParam('child')

export const createChildRoute = protectedRoute('children', {
  method: 'post',
  path: '/v1/children',
  tags: ['Children'],
  summary: 'Register a child',
  description: `Records the \`child.registered\` event in the same transaction. \`locationId\`: ${LOCATION_ID_RULE}`,
  request: { body: { required: true, content: { 'application/json': { schema: ChildCreate } } } },
  responses: {
    201: { description: 'The child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const listChildrenRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children',
  tags: ['Children'],
  summary: 'List children',
  request: { query: ListChildrenQuery },
  responses: {
    200: { description: 'A page of children', content: { 'application/json': { schema: pageOf(Child, 'ChildPage') } } },
    ...problemResponses(400, ...COMMON_ERRORS),
  },
})

export const getChildRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}',
  tags: ['Children'],
  summary: 'Retrieve a child',
  request: { params: ChildId },
  responses: {
    200: { description: 'The child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})

export const patchChildRoute = protectedRoute('children', {
  method: 'patch',
  path: '/v1/children/{id}',
  tags: ['Children'],
  summary: 'Update a child (JSON merge patch)',
  request: {
    params: ChildId,
    body: {
      required: true,
      content: { 'application/merge-patch+json': { schema: ChildPatch }, 'application/json': { schema: ChildPatch } },
    },
  },
  responses: {
    200: { description: 'The child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(400, 404, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const archiveChildRoute = protectedRoute('children', {
  method: 'delete',
  path: '/v1/children/{id}',
  tags: ['Children'],
  summary: 'Archive a child',
  description:
    'Archives rather than deletes: the child and their clinical history stay readable (with `archivedAt`) and drop ' +
    'out of lists unless `archived=true`. Repeating it changes nothing.',
  request: { params: ChildId },
  responses: {
    200: { description: 'The archived child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(404, 409, 422, ...COMMON_ERRORS),
  },
})
