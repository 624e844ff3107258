/**
 * @module What an API key may do: a list of resource types, each with the HTTP methods allowed on it
 * (docs/access-control.md), e.g. `[{ "resource": "children", "methods": ["GET"] }]`. Resources are the scope catalogue's resource names;
 * a route's declared scope names the resource it touches, so keys and OAuth scopes are checked against one vocabulary.
 */
import { SCOPE_CATALOGUE } from './scopes.ts'

export const API_KEY_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type ApiKeyMethod = (typeof API_KEY_METHODS)[number]

/** Resource names a key can be scoped to: the catalogue's scopes without the `.read` variants. */
export const API_KEY_RESOURCES = Object.keys(SCOPE_CATALOGUE).filter((s) => !s.endsWith('.read'))

export interface KeyPermission {
  resource: string
  methods: ApiKeyMethod[]
}

const resourceOfScope = (scope: string) => scope.replace(/\.read$/, '')
const normalMethod = (method: string) => (method === 'HEAD' ? 'GET' : method.toUpperCase())

/**
 * Whether a key's permissions allow a request.
 * @param scope - the scope the route declares (its resource)
 * @param method - the request's HTTP method
 */
export function keyPermits(permissions: readonly KeyPermission[], scope: string, method: string): boolean {
  const resource = resourceOfScope(scope)
  const wanted = normalMethod(method)
  return permissions.some((p) => p.resource === resource && (p.methods as string[]).includes(wanted))
}

/** The OAuth scope a permission amounts to: reading needs `x.read`, any other method needs `x`. */
export const scopesForPermission = (p: KeyPermission): string[] =>
  p.methods.map((m) => (m === 'GET' ? `${p.resource}.read` : p.resource))

/** Merges duplicate resources and sorts methods, so stored permissions are canonical. */
export function normalisePermissions(permissions: readonly KeyPermission[]): KeyPermission[] {
  const merged = new Map<string, Set<ApiKeyMethod>>()
  for (const p of permissions) {
    const methods = merged.get(p.resource) ?? new Set<ApiKeyMethod>()
    for (const m of p.methods) methods.add(m)
    merged.set(p.resource, methods)
  }
  return [...merged.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([resource, methods]) => ({ resource, methods: API_KEY_METHODS.filter((m) => methods.has(m)) }))
}
