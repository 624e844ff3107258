/**
 * @module GET /errors/{code}: every problem document's `type` resolves here, on the API's own public URL, to the
 * code's page (domain/error-catalogue.ts). Public, like the OpenAPI description: the page documents the contract and
 * holds nothing of any tenant. `/problems/{code}`, where `type` pointed before, redirects here so old links still
 * answer.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { accepts } from 'hono/accepts'
import { errorCodeEntry, type ErrorCodeEntry } from '../../../domain/error-catalogue.ts'
import { AppError } from '../../../domain/errors.ts'
import type { AppDeps, AppEnv } from '../../app-env.ts'
import { problemType } from '../../middleware/error-handler.ts'
import { validationHook } from '../../openapi/validation-hook.ts'
import { errorCodePageRoute } from './errors.routes.ts'
import { escapeHtml } from '../../html-escape.ts'

/** Escaped, with `code spans` of the catalogue's text as <code>. */
const prose = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>')

function page(code: string, entry: ErrorCodeEntry): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeHtml(code)}: ${escapeHtml(entry.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 46rem; margin: 2rem auto; line-height: 1.5">
<h1><code>${escapeHtml(code)}</code>: ${escapeHtml(entry.title)}</h1>
<p>HTTP status <strong>${entry.status}</strong>${entry.retryable ? ' — the same request may succeed later' : ''}.</p>
<h2>What it means</h2>
<p>${prose(entry.meaning)}</p>
<h2>What to do</h2>
<p>${prose(entry.action)}</p>
<p>Every error is an RFC 9457 problem document (<code>application/problem+json</code>) with this <code>code</code>,
a <code>detail</code> about this occurrence and a <code>requestId</code> to quote to support. The API description:
<a href="/openapi.json">/openapi.json</a>, <a href="/docs">/docs</a>.</p>
</body>
</html>
`
}

const unknownCode = (code: string) =>
  new AppError(404, 'not_found', 'Not found', { detail: `No error code "${code}" is documented.` })

/** The error-code pages. */
export function errorCodeRoutes({ config }: Pick<AppDeps, 'config'>) {
  const baseUrl = config.PUBLIC_URL
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
    .openapi(errorCodePageRoute, (c) => {
      const { code } = c.req.valid('param')
      const entry = errorCodeEntry(code)
      if (!entry) throw unknownCode(code)
      // The pages change only with a release: let browsers and proxies keep them for a day.
      const headers = { 'Cache-Control': 'public, max-age=86400', Vary: 'Accept' }
      const wants = accepts(c, { header: 'Accept', supports: ['text/html', 'application/json'], default: 'text/html' })
      if (wants === 'application/json')
        return c.json({ type: problemType(baseUrl, code), code, ...entry }, 200, headers)
      return c.html(page(code, entry), 200, headers)
    })
    .get('/problems/:code', (c) => c.redirect(`/errors/${encodeURIComponent(c.req.param('code'))}`, 308))
}
