/**
 * @module `null` beside a schema, in the form the OpenAPI generator describes correctly. `schema.nullable()` copies a
 * registered schema's component name to the nullable copy (@asteasolutions/zod-to-openapi preserves metadata through
 * `.nullable()`), so whichever form the generator meets first becomes the component: `PaymentFailureCode` came out
 * as an enum with `null` in it, and the create that takes a failure code then allowed `{"code": null}`, which the API
 * refuses (Schemathesis: most generated payments refused). A union keeps the component as it is and says
 * `anyOf: [$ref, null]` where null is allowed.
 */
import { z } from '@hono/zod-openapi'

/**
 * `schema`, or null.
 * @param schema - any schema, a registered component or not
 */
export const orNull = <T extends z.ZodType>(schema: T) => z.union([schema, z.null()])
