/**
 * @module The API's fixed vocabularies the console offers as choices: an assistant's tools and an API key's resources
 * and methods. The API publishes them only as enums of its description (the SDK's generated types), so each is written
 * here as a record over that enum: a value the API adds or drops fails the console's type check until it is listed.
 */
import type { Schema } from '@therapy-care/sdk'

export type Tool = Schema<'Assistant'>['tools'][number]
export type KeyResource = Schema<'ApiKeyPermission'>['resource']
export type KeyMethod = Schema<'ApiKeyPermission'>['methods'][number]

const listed = <T extends string>(every: Record<T, true>) => Object.keys(every) as T[]

/** The assistants' and agents' tools (domain/ai/assistants/tool-catalogue.ts). */
export const TOOLS: readonly Tool[] = listed<Tool>({
  knowledge: true,
  bookings: true,
  child_records: true,
  assessments: true,
  sessions: true,
  providers: true,
})

/** What an API key may be permitted on (domain/auth/api-key-permissions.ts), in the API's order. */
export const KEY_RESOURCES: readonly KeyResource[] = listed<KeyResource>({
  children: true,
  clients: true,
  pets: true,
  providers: true,
  bookings: true,
  sessions: true,
  assessments: true,
  orders: true,
  payments: true,
  matching: true,
  leads: true,
  settlements: true,
  analytics: true,
  webhooks: true,
  ai: true,
  audit: true,
  api_keys: true,
  agents: true,
  users: true,
})

export const KEY_METHODS: readonly KeyMethod[] = listed<KeyMethod>({
  GET: true,
  POST: true,
  PUT: true,
  PATCH: true,
  DELETE: true,
})
