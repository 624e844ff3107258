/** @module Route table of /v1/children: schemas and OpenAPI definitions. */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses, protectedRoute } from '../../openapi/routes.ts'
import { IdParam, UtcDateTime } from '../../openapi/schemas.ts'

const CalendarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a calendar date, YYYY-MM-DD')
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), 'Not a valid date')

export const ChildCreate = z
  .strictObject({
    firstName: z.string().trim().min(1).max(100).openapi({ example: 'Maya' }),
    lastName: z.string().trim().min(1).max(100).openapi({ example: 'Okafor' }),
    dateOfBirth: CalendarDate.openapi({ example: '2023-04-18' }),
    locationId: z.string().optional().openapi({ description: "Defaults to the tenant's only location" }),
  })
  .openapi('ChildCreate')

export const Child = z
  .object({
    id: z.string().openapi({ example: 'chd_019a...' }),
    firstName: z.string(),
    lastName: z.string(),
    dateOfBirth: z.string().openapi({ format: 'date' }),
    locationId: z.string().nullable(),
    createdAt: UtcDateTime,
    updatedAt: UtcDateTime,
  })
  .openapi('Child')

export const createChildRoute = protectedRoute('children', {
  method: 'post',
  path: '/v1/children',
  tags: ['Children'],
  summary: 'Register a child',
  request: { body: { required: true, content: { 'application/json': { schema: ChildCreate } } } },
  responses: {
    201: { description: 'The child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(400, 409, 413, 415, 422, ...COMMON_ERRORS),
  },
})

export const getChildRoute = protectedRoute('children.read', {
  method: 'get',
  path: '/v1/children/{id}',
  tags: ['Children'],
  summary: 'Retrieve a child',
  request: { params: IdParam('child', 'chd_019a...') },
  responses: {
    200: { description: 'The child', content: { 'application/json': { schema: Child } } },
    ...problemResponses(404, ...COMMON_ERRORS),
  },
})
