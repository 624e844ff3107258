/**
 * The platform's custom Temporal search attributes: the one list that the dev server launcher
 * (`start-dev.sh`), `ensureTemporal()`, the compose stack's setup service and the workflows read.
 *
 * Deliberately free of Node and client imports so workflow code can import the typed keys
 * (`upsertSearchAttributes`, `typedSearchAttributes` on start) without pulling anything
 * non-deterministic into the workflow bundle.
 *
 * @module
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common'

/**
 * Custom search attribute names and their types. All Keyword: exact-match ids, filterable in
 * visibility queries (`TenantId = "ten_..." AND WorkflowKind = "booking"`).
 *
 * Adding one: append it here; `ensureTemporal()` and `register-search-attributes.ts` add missing
 * attributes to servers that already exist. Keep within the SQL visibility limits of the dev server
 * and of PostgreSQL visibility (10 Keyword attributes per namespace).
 */
export const SEARCH_ATTRIBUTES = {
  TenantId: SearchAttributeType.KEYWORD,
  AppointmentId: SearchAttributeType.KEYWORD,
  ChildId: SearchAttributeType.KEYWORD,
  ProviderId: SearchAttributeType.KEYWORD,
  LocationId: SearchAttributeType.KEYWORD,
  WorkflowKind: SearchAttributeType.KEYWORD,
  WebhookEndpointId: SearchAttributeType.KEYWORD,
  EventId: SearchAttributeType.KEYWORD,
  EventType: SearchAttributeType.KEYWORD,
} as const satisfies Record<string, SearchAttributeType>

/** Name of one of the platform's custom search attributes. */
export type SearchAttributeName = keyof typeof SEARCH_ATTRIBUTES

/** All custom search attribute names, in declaration order. */
export const SEARCH_ATTRIBUTE_NAMES = Object.keys(SEARCH_ATTRIBUTES) as SearchAttributeName[]

/**
 * Typed keys for `TypedSearchAttributes`, e.g.
 * `typedSearchAttributes: [{ key: searchAttributeKeys.TenantId, value: tenantId }]`.
 */
export const searchAttributeKeys = {
  TenantId: defineSearchAttributeKey('TenantId', SEARCH_ATTRIBUTES.TenantId),
  AppointmentId: defineSearchAttributeKey('AppointmentId', SEARCH_ATTRIBUTES.AppointmentId),
  ChildId: defineSearchAttributeKey('ChildId', SEARCH_ATTRIBUTES.ChildId),
  ProviderId: defineSearchAttributeKey('ProviderId', SEARCH_ATTRIBUTES.ProviderId),
  LocationId: defineSearchAttributeKey('LocationId', SEARCH_ATTRIBUTES.LocationId),
  WorkflowKind: defineSearchAttributeKey('WorkflowKind', SEARCH_ATTRIBUTES.WorkflowKind),
  WebhookEndpointId: defineSearchAttributeKey('WebhookEndpointId', SEARCH_ATTRIBUTES.WebhookEndpointId),
  EventId: defineSearchAttributeKey('EventId', SEARCH_ATTRIBUTES.EventId),
  EventType: defineSearchAttributeKey('EventType', SEARCH_ATTRIBUTES.EventType),
} as const satisfies { [K in SearchAttributeName]: { type: (typeof SEARCH_ATTRIBUTES)[K] } }

/** The CLI's spelling of each SDK type, as `temporal server start-dev --search-attribute` wants it. */
const CLI_TYPE_NAMES: Record<SearchAttributeType, string> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
}

/**
 * Arguments that pre-register the attributes on a fresh dev server.
 *
 * @returns `['--search-attribute', 'TenantId=Keyword', ...]`
 */
export function searchAttributeCliArgs(): string[] {
  return SEARCH_ATTRIBUTE_NAMES.flatMap((name) => [
    '--search-attribute',
    `${name}=${CLI_TYPE_NAMES[SEARCH_ATTRIBUTES[name]]}`,
  ])
}

/** Search-attribute values for a workflow start, as stored in the outbox. */
export type SearchAttributeValues = Partial<Record<SearchAttributeName, string>>
