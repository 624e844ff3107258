/**
 * @module Which methods a path is served with, from the app's own route table, so a request whose path exists with
 * other methods is answered `405 method_not_allowed` with an `Allow` header (RFC 9110 §15.5.6) rather than 404.
 * Middleware (Hono's method `ALL`) serves no path by itself and is left out; a path no route serves stays a 404.
 */
import { TrieRouter } from 'hono/router/trie-router'

/** One row of Hono's route table (`app.routes`). */
export interface RouteRow {
  method: string
  path: string
}

/**
 * Builds the lookup once, on first use (every router is mounted by then).
 * @param routes - returns the app's route table
 * @returns the methods `path` is served with, HEAD beside GET (Hono answers HEAD with the GET handler); empty when none
 */
export function allowedMethods(routes: () => readonly RouteRow[]): (path: string) => string[] {
  let table: { router: TrieRouter<string>; methods: string[] } | undefined
  const build = () => {
    const router = new TrieRouter<string>()
    const methods = new Set<string>()
    for (const { method, path } of routes()) {
      if (method === 'ALL') continue
      router.add(method, path, method)
      methods.add(method)
    }
    return { router, methods: [...methods].sort() }
  }
  return function allowedFor(path) {
    table ??= build()
    const { router, methods } = table
    const allowed = methods.filter((method) => router.match(method, path)[0].length > 0)
    if (allowed.includes('GET') && !allowed.includes('HEAD')) allowed.push('HEAD')
    return allowed
  }
}
