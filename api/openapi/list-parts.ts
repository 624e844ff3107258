/**
 * @module The parts every list endpoint's route is made of: its optional query filters and its page response. One
 * definition, so a filter by id or a page is described and validated the same way on every collection.
 */
import { z } from '@hono/zod-openapi'
import { COMMON_ERRORS, problemResponses } from './routes.ts'
import { pageOf } from './schemas.ts'

/**
 * An optional query parameter, named in the description as it is in the URL.
 * @param name - the parameter's name in the query string
 * @param schema - its values
 */
export const queryFilter = <T extends z.ZodTypeAny>(name: string, schema: T) =>
  schema.optional().openapi({ param: { name, in: 'query' } })

/**
 * An optional filter by the id of a related record (`childId`, `providerId`...): ids are at most 64 characters.
 * @param name - the parameter's name in the query string
 */
export const idFilter = (name: string) => queryFilter(name, z.string().max(64))

/**
 * The responses of a list endpoint: a page of items, or a problem (400 for a bad filter, cursor or sort).
 * @param item - the schema of one item
 * @param pageName - the page schema's name in the OpenAPI description
 * @param description - what the page holds ("A page of sessions")
 */
export const pageResponses = <T extends z.ZodTypeAny>(item: T, pageName: string, description: string) => ({
  200: { description, content: { 'application/json': { schema: pageOf(item, pageName) } } },
  ...problemResponses(400, ...COMMON_ERRORS),
})
