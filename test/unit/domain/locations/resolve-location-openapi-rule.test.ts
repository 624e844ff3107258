/**
 * The rule that a tenant with several locations must name `locationId` on a create (domain/locations/resolve-location.ts,
 * whose 400 lists the locations) is in the served description of every create it applies to, so an integrator reads
 * it before meeting the error. Built like `npm run api:export`: the real app, whose clients never connect.
 */
import { describe, expect, it } from 'vitest'
import { servedDescription } from '../../../support/served-description.ts'
import { LOCATION_ID_RULE } from '../../../../domain/locations/resolve-location.ts'

interface SchemaObject {
  $ref?: string
  properties?: Record<string, SchemaObject>
}
interface Operation {
  description?: string
  requestBody?: { content: Record<string, { schema: SchemaObject }> }
}
interface Description {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, SchemaObject> }
}

/** The creates whose service resolves the location with `resolveLocation` (a default only for a one-location tenant). */
const CREATES_WITH_THE_RULE = [
  'POST /v1/children',
  'POST /v1/clients',
  'POST /v1/providers',
  'POST /v1/orders',
  'POST /v1/custom-field-definitions',
]

/** POST bodies with a `locationId` the rule does not apply to, and why. */
const OTHER_LOCATION_IDS: Record<string, string> = {
  'POST /v1/prices': 'a price without a location applies at every location',
  'POST /v1/leads': 'a lead may be taken before the family chooses a centre (null)',
  'POST /v1/ai/assessment-recall': 'a filter of the recall, every location without it',
}

const described = servedDescription<Description>()

const resolve = (schema: SchemaObject | undefined): SchemaObject | undefined =>
  schema?.$ref ? described().components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema

/** Every POST whose JSON body has a top-level `locationId`, as `POST <path>`. */
function postsTakingALocation(): string[] {
  return Object.entries(described().paths)
    .filter(([, operations]) => {
      const body = resolve(operations.post?.requestBody?.content['application/json']?.schema)
      return body?.properties?.locationId !== undefined
    })
    .map(([path]) => `POST ${path}`)
    .sort()
}

describe('the several-locations rule in the OpenAPI description', () => {
  it.each(CREATES_WITH_THE_RULE)('%s states it in the operation description', (operation) => {
    const path = operation.replace('POST ', '')
    expect(described().paths[path]?.post?.description, operation).toContain(LOCATION_ID_RULE)
  })

  it('is on every create that takes a locationId, unless the exception says why not', () => {
    expect(postsTakingALocation()).toEqual([...CREATES_WITH_THE_RULE, ...Object.keys(OTHER_LOCATION_IDS)].sort())
  })
})
