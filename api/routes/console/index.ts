/**
 * @module The centre console at /console (docs/console.md): one HTML page and its hashed assets, built by
 * `npm run console:build` (scripts/console/build-console.ts). It is the API's own origin, so the console calls /v1
 * with no CORS, and it adds no route of its own beyond these files: everything it shows or changes goes through the
 * same guarded /v1 calls as any client. The page runs no inline script and loads nothing from another origin but the
 * identity providers the deployment names (CONSOLE_IDENTITY_ORIGINS), and no other site may frame it.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { Hono } from 'hono'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { escapeHtml } from '../../html-escape.ts'

/** What the build wrote: the entry's script and style, content-hashed names. */
interface ConsoleManifest {
  script: string
  style: string
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/** The page's Content-Security-Policy: this origin only, plus the identity providers' for sign-in calls. */
export function consolePolicy(identityOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ['connect-src', "'self'", ...identityOrigins].join(' '),
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

function page(manifest: ConsoleManifest, temporalUi: string | undefined): string {
  const ui = temporalUi ? `\n  <meta name="temporal-ui" content="${escapeHtml(temporalUi.replace(/\/$/, ''))}">` : ''
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Therapy Care console</title>${ui}
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/console/assets/${manifest.style}">
</head>
<body>
  <div id="console"></div>
  <script type="module" src="/console/assets/${manifest.script}"></script>
</body>
</html>
`
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Console not built</title></head>
<body><h1>The console is not built</h1><p>Run <code>npm run console:build</code> (npm start does it), then reload.</p>
</body></html>
`

/** The console's routes. The build is read on first use and kept: a new build needs a restart, as new code does. */
export function consoleRoutes({ config }: Pick<AppDeps, 'config'>) {
  const dir = config.CONSOLE_DIR
  const policy = consolePolicy(config.CONSOLE_IDENTITY_ORIGINS)
  let manifest: Promise<ConsoleManifest | undefined> | undefined
  const readManifest = () =>
    (manifest ??= readFile(path.join(dir, 'manifest.json'), 'utf8').then(
      (text) => JSON.parse(text) as ConsoleManifest,
      () => {
        manifest = undefined // built later: found on the next request
        return undefined
      }
    ))
  const assets = new Map<string, Buffer>()
  const pageHeaders = {
    'Content-Security-Policy': policy,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  }
  return new Hono<AppEnv>()
    .get('/console', (c) => c.redirect('/console/', 308))
    .get('/console/', async (c) => {
      const built = await readManifest()
      if (!built) return c.html(NOT_BUILT, 503, pageHeaders)
      return c.html(page(built, config.TEMPORAL_UI_URL), 200, pageHeaders)
    })
    .get('/console/assets/:file', async (c) => {
      const built = await readManifest()
      const file = c.req.param('file')
      // Only the build's own two files: the parameter never reaches the file system otherwise.
      if (!built || (file !== built.script && file !== built.style)) return c.notFound()
      let body = assets.get(file)
      if (!body) {
        body = await readFile(path.join(dir, 'assets', file))
        assets.set(file, body)
      }
      return c.body(new Uint8Array(body), 200, {
        'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
        // Content-hashed names: a new build is a new name.
        'Cache-Control': 'public, max-age=31536000, immutable',
      })
    })
}
