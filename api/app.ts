/**
 * @module The API application: middleware in order, feature routers mounted, one error handler, and the OpenAPI
 * description generated from the same route definitions that validate requests.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import { SCOPE_CATALOGUE } from '../domain/auth/scopes.ts'
import type { AppDeps, AppEnv } from './app-env.ts'
import { authenticate } from './middleware/authenticate.ts'
import { errorHandler, notFoundHandler } from './middleware/error-handler.ts'
import { idempotency } from './middleware/idempotency.ts'
import { requestId } from './middleware/request-id.ts'
import { handlerSavepoint, unitOfWork } from './middleware/unit-of-work.ts'
import { validationHook } from './openapi/validation-hook.ts'
import { appointmentRoutes } from './routes/appointments/index.ts'
import { childRoutes } from './routes/children/index.ts'
import { healthRoutes } from './routes/health/index.ts'
import { oauthRoutes } from './routes/oauth/index.ts'
import { providerRoutes } from './routes/providers/index.ts'
import { wellKnownRoutes } from './routes/well-known/index.ts'
import { API_VERSION } from './version.ts'
import { buildOpenApiDocument } from './openapi/document.ts'

/**
 * Builds the Hono app from its dependencies.
 * @param deps - built once per process by `buildDeps`
 */
export function createApp(deps: AppDeps) {
  const baseUrl = deps.config.PUBLIC_URL
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.onError(errorHandler(deps.logger, baseUrl))
  app.notFound(notFoundHandler(baseUrl))
  app.use('*', requestId())
  app.use('*', async function apiVersion(c, next) {
    await next()
    c.res.headers.set('X-Api-Version', API_VERSION)
  })

  app.route('/', healthRoutes(deps))
  app.route('/', wellKnownRoutes(deps))
  app.route('/', oauthRoutes(deps))

  // Every /v1 request: authenticated, one tenant-scoped transaction, idempotent writes, errors leave no writes.
  app.use(
    '/v1/*',
    authenticate(deps),
    unitOfWork(deps.db),
    idempotency({ clock: deps.clock, waitMs: deps.config.IDEMPOTENCY_WAIT_MS }),
    handlerSavepoint()
  )
  app.route('/', providerRoutes())
  app.route('/', childRoutes(deps))
  app.route('/', appointmentRoutes(deps))

  app.openAPIRegistry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description: 'OAuth 2.0 client credentials. A scope `x` grants read and write on x; `x.read` grants read only.',
    flows: { clientCredentials: { tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: { ...SCOPE_CATALOGUE } } },
  })
  app.get('/openapi.json', (c) => c.json(buildOpenApiDocument(app, baseUrl)))
  return app
}

export type App = ReturnType<typeof createApp>
