/**
 * The served description's `webhooks` section against the event catalogue: every event type the platform can emit is
 * documented with its envelope, its `data` schema, the signature headers of both schemes and the operation that
 * emits it, and nothing else is. Built like `npm run api:export`: the real app, whose clients never connect.
 */
import { describe, expect, it } from 'vitest'
import { servedDescription } from '../../../support/served-description.ts'
import { EVENT_DATA_SCHEMAS, type EventType } from '../../../../domain/events/event-catalogue.ts'
import { EVENT_ORIGINS } from '../../../../domain/events/event-origins.ts'

interface SchemaObject {
  $ref?: string
  type?: string | string[]
  enum?: unknown[]
  properties?: Record<string, SchemaObject>
  required?: string[]
}
interface WebhookOperation {
  summary: string
  description: string
  parameters: Array<{ name: string; in: string }>
  requestBody: { required: boolean; content: { 'application/json': { schema: SchemaObject } } }
  responses: Record<string, unknown>
}
interface Description {
  webhooks?: Record<string, { post?: WebhookOperation }>
  components: { schemas: Record<string, SchemaObject> }
}

const described = servedDescription<Description>()

const resolve = (schema: SchemaObject): SchemaObject => {
  if (!schema.$ref) return schema
  const name = schema.$ref.replace('#/components/schemas/', '')
  expect(Object.keys(described().components.schemas), schema.$ref).toContain(name)
  const found = described().components.schemas[name]
  return found!
}

const CATALOGUE = Object.keys(EVENT_DATA_SCHEMAS) as EventType[]

describe('the OpenAPI webhooks section', () => {
  it('documents exactly the event types of the catalogue', () => {
    expect(Object.keys(described().webhooks ?? {}).sort()).toEqual([...CATALOGUE].sort())
  })

  it.each(CATALOGUE)(
    '%s: the envelope around its data schema, signature headers and the operation that emits it',
    (type) => {
      const operation = described().webhooks?.[type]?.post
      expect(operation?.description, `webhooks["${type}"].post`).toContain(EVENT_ORIGINS[type])

      const headers = operation!.parameters.filter((p) => p.in === 'header').map((p) => p.name.toLowerCase())
      expect(headers).toEqual(
        expect.arrayContaining(['x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'])
      )

      expect(operation!.requestBody.required).toBe(true)
      const envelope = resolve(operation!.requestBody.content['application/json'].schema)
      expect(envelope.required?.sort()).toEqual(['createdAt', 'data', 'id', 'type'])
      expect(envelope.properties?.type?.enum).toEqual([type])

      // The data schema is the catalogue's, the one recordEvent checks every emitted payload against.
      const data = resolve(envelope.properties!.data!)
      const shape = EVENT_DATA_SCHEMAS[type].shape as Record<string, unknown>
      expect(Object.keys(data.properties ?? {}).sort()).toEqual(Object.keys(shape).sort())
      expect(data.required?.sort()).toEqual(Object.keys(shape).sort())

      expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(['200', '410']))
    }
  )
})
