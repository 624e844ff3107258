/**
 * @module The integrator's reference: an interactive API reference at /docs (Swagger UI, served from the
 * swagger-ui-dist package so it works offline and behind a strict Content-Security-Policy) and the Postman collection
 * at /postman.json. Both read the same OpenAPI description as /openapi.json.
 */
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Hono } from 'hono'
import { toPostmanCollection, type OpenApiDocumentLike } from '../../openapi/postman.ts'
import type { AppEnv } from '../../app-env.ts'

// A Map, not an object literal: a file named `constructor` or `__proto__` must not find Object.prototype's members
// (that answered 500 and logged an error on every such request).
const ASSETS = new Map<string, string>([
  ['swagger-ui.css', 'text/css; charset=utf-8'],
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
  ['favicon-32x32.png', 'image/png'],
])

const assetDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))

// Inline scripts are not allowed by the page's policy, so the initializer is its own file.
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: true,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  })
})
`

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Therapy Care Platform API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/assets/init.js"></script>
</body>
</html>
`

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The reference routes.
 * @param describe - returns the OpenAPI description (the same document /openapi.json serves)
 */
export function referenceRoutes(describe: () => OpenApiDocumentLike) {
  const cache = new Map<string, Buffer>()
  return new Hono<AppEnv>()
    .get('/docs', (c) => {
      c.header('Content-Security-Policy', CSP)
      return c.html(PAGE)
    })
    .get('/docs/assets/init.js', (c) => c.body(INITIALIZER, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }))
    .get('/docs/assets/:file', async (c) => {
      const file = c.req.param('file')
      const type = ASSETS.get(file)
      // Only the listed files: the parameter never reaches the file system otherwise.
      if (!type) return c.notFound()
      let body = cache.get(file)
      if (!body) {
        body = await readFile(path.join(assetDir, file))
        cache.set(file, body)
      }
      return c.body(new Uint8Array(body), 200, { 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' })
    })
    .get('/postman.json', (c) => {
      c.header('Content-Disposition', 'inline; filename="therapy-care-platform.postman_collection.json"')
      return c.json(toPostmanCollection(describe()))
    })
}
