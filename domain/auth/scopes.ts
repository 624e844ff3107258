/**
 * @module The scope catalogue. A resource name grants read and write on it; the `.read` suffix grants read only
 * (docs/conventions.md). Published in the OpenAPI security scheme and the README.
 */

/** Every scope an API client may hold, with what it grants. */
export const SCOPE_CATALOGUE = {
  children: 'Read and write children',
  'children.read': 'Read children',
  clients: 'Read and write clients (parents, guardians, payers)',
  'clients.read': 'Read clients',
  pets: 'Read and write pet records',
  'pets.read': 'Read pet records',
  providers: 'Read and write providers (therapists)',
  'providers.read': 'Read providers',
  bookings: 'Create and manage appointments; check availability',
  'bookings.read': 'Read appointments and availability',
  sessions: 'Read and write sessions and SOAP notes',
  'sessions.read': 'Read sessions and SOAP notes',
  assessments: 'Read and write assessments',
  'assessments.read': 'Read assessments',
  orders: 'Read and write orders',
  'orders.read': 'Read orders',
  payments: 'Read and write payments',
  'payments.read': 'Read payments',
  matching: 'Match therapists to a child',
  leads: 'Take, work and close marketplace leads (families’ enquiries)',
  'leads.read': 'Read marketplace leads',
  settlements: 'Run and read marketplace settlements',
  'settlements.read': 'Read marketplace settlements',
  analytics: 'Read analytics across locations',
  webhooks: 'Manage webhook endpoints and deliveries',
  'webhooks.read': 'Read webhook endpoints, events and deliveries',
  ai: 'Manage assistants, knowledge and agents',
  'ai.read': 'Query assistants, knowledge, recommendations and insights',
  audit: 'Read the audit trail',
  api_keys: 'Manage API keys',
  agents: 'Create and manage agent workflows (Trigger → Agent → Action) and their staff tasks',
  'agents.read': 'Read agent workflows, their runs and steps, templates and staff tasks',
  users: 'Manage platform users, their roles and SSO connections',
  'users.read': 'Read platform users and SSO connections',
} as const

export type Scope = keyof typeof SCOPE_CATALOGUE

export const ALL_SCOPES = Object.keys(SCOPE_CATALOGUE) as Scope[]

/** Whether a string is a known scope. */
export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPE_CATALOGUE, value)

/** The resource part of a scope: `children.read` → `children`. */
const resourceOf = (scope: string) => scope.replace(/\.read$/, '')

/**
 * Whether a set of granted scopes satisfies a required one.
 * A required `x.read` is satisfied by `x.read` or `x`; a required `x` only by `x`.
 * @param granted - the scopes on the token or key
 * @param required - the scope a route declares
 */
export function satisfiesScope(granted: readonly string[], required: string): boolean {
  if (granted.includes(required)) return true
  return required.endsWith('.read') && granted.includes(resourceOf(required))
}

/**
 * Parses a space-separated scope string (RFC 6749 §3.3) into a de-duplicated list.
 * @returns the scopes, or the first unknown scope name
 */
export function parseScopeString(value: string): { scopes: Scope[] } | { unknown: string } {
  const scopes: Scope[] = []
  for (const part of value.split(' ').filter(Boolean)) {
    if (!isScope(part)) return { unknown: part }
    if (!scopes.includes(part)) scopes.push(part)
  }
  return { scopes }
}

/**
 * Whether `requested` is within what a client was granted: each requested scope is held directly or, for
 * `x.read`, through `x`.
 */
export const isWithinGrant = (granted: readonly string[], requested: readonly string[]) =>
  requested.every((scope) => satisfiesScope(granted, scope))
