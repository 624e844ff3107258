/**
 * @module An `operationId` for every operation, derived from its method and path so it is stable, unique by
 * construction and never forgotten on a new route: `GET /v1/children` → `getChildren`, `GET /v1/children/{id}` →
 * `getChildrenById`, `POST /v1/appointments/{id}/cancel` → `postAppointmentsByIdCancel`. Generated clients name their
 * methods after it (openapi-generator's python, java and dart clients; Stripe's description reads the same way), and
 * tools name requests by it. The deprecated `/v0` paths get a `v0` prefix; `/v1` is the default and has none.
 */
type Operations = Record<string, Record<string, { operationId?: string }>>

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'])

const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')

/** The operationId of a method on a path. */
export function operationIdOf(method: string, path: string): string {
  const segments = path.split('/').filter(Boolean)
  const version = segments[0] === 'v1' ? '' : segments[0] === 'v0' ? 'v0' : undefined
  const rest = version === undefined ? segments : segments.slice(1)
  const name = rest.map((s) => (s.startsWith('{') ? `By${pascal(s.slice(1, -1))}` : pascal(s))).join('')
  return `${version ?? ''}${version ? pascal(method) : method}${name}`
}

/**
 * Sets the operationId of every operation that has none.
 * @throws Error when two operations would share one (a path that differs only in punctuation)
 */
export function addOperationIds<T extends { paths?: unknown }>(document: T): T {
  const seen = new Map<string, string>()
  for (const [path, item] of Object.entries((document.paths ?? {}) as Operations)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue
      operation.operationId ??= operationIdOf(method, path)
      const other = seen.get(operation.operationId)
      if (other) throw new Error(`operationId ${operation.operationId} of ${method} ${path} is also ${other}'s`)
      seen.set(operation.operationId, `${method} ${path}`)
    }
  }
  return document
}
