/**
 * @module The API application: middleware in order, feature routers mounted, one error handler, and the OpenAPI
 * description generated from the same route definitions that validate requests.
 */
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Hono, MiddlewareHandler } from 'hono'
import { SCOPE_CATALOGUE } from '../domain/auth/scopes.ts'
import type { AppDeps, AppEnv } from './app-env.ts'
import { accessLog } from './middleware/access-log.ts'
import { auditTrail } from './middleware/audit.ts'
import { authenticate } from './middleware/authenticate.ts'
import { requestBodyLimit } from './middleware/body-limit.ts'
import { browserOrigins } from './middleware/browser-origins.ts'
import { assistantRoutes } from './routes/assistants/index.ts'
import { knowledgeRoutes } from './routes/knowledge/index.ts'
import { unansweredRoutes } from './routes/knowledge/unanswered.ts'
import { agentRoutes } from './routes/agents/index.ts'
import { agentWorkflowRoutes } from './routes/agent-workflows/index.ts'
import { aiRoutes } from './routes/ai/index.ts'
import { aiAnalyticsRoutes } from './routes/ai/ai-analytics-router.ts'
import { recommendationRoutes } from './routes/recommendations/index.ts'
import { knowledgeUploadLimits } from './routes/knowledge/upload-limits.ts'
import { allowedMethods } from './middleware/allowed-methods.ts'
import { errorHandler, notFoundHandler } from './middleware/error-handler.ts'
import { idempotency } from './middleware/idempotency.ts'
import { identifyCaller } from './middleware/identify-caller.ts'
import { rateLimit } from './middleware/rate-limit.ts'
import { rejectRevokedTokens } from './middleware/reject-revoked-tokens.ts'
import { requestId } from './middleware/request-id.ts'
import { noStore, secureHeaders } from './middleware/secure-headers.ts'
import { handlerSavepoint, unitOfWork } from './middleware/unit-of-work.ts'
import { validationHook } from './openapi/validation-hook.ts'
import { apiKeyRoutes } from './routes/api-keys/index.ts'
import { credentialRoutes } from './routes/credentials/index.ts'
import { userRoutes } from './routes/users/index.ts'
import { appointmentRoutes } from './routes/appointments/index.ts'
import { appointmentSeriesRoutes } from './routes/appointment-series/index.ts'
import { auditEventRoutes } from './routes/audit-events/index.ts'
import { childRoutes } from './routes/children/index.ts'
import { earlyInterventionRoutes } from './routes/early-intervention/index.ts'
import { childProgressRoutes } from './routes/child-progress/index.ts'
import { providerOnboardingRoutes } from './routes/provider-onboarding/index.ts'
import { clientRoutes } from './routes/clients/index.ts'
import { customFieldRoutes } from './routes/custom-fields/index.ts'
import { petRoutes } from './routes/pets/index.ts'
import { sessionRoutes } from './routes/sessions/index.ts'
import { assessmentRoutes } from './routes/assessments/index.ts'
import { codecRoutes } from './routes/codec/index.ts'
import { errorCodeRoutes } from './routes/errors/index.ts'
import { healthRoutes } from './routes/health/index.ts'
import { oauthRoutes } from './routes/oauth/index.ts'
import { providerRoutes } from './routes/providers/index.ts'
import { locationRoutes } from './routes/locations/index.ts'
import { availabilityRoutes } from './routes/availability/index.ts'
import { wellKnownRoutes } from './routes/well-known/index.ts'
import { API_VERSION } from './version.ts'
import { serverTiming } from './middleware/server-timing.ts'
import { stageTimingStart, timedStage } from './middleware/stage-timing.ts'
import { httpMetrics } from './middleware/http-metrics.ts'
import { tracing } from './middleware/tracing.ts'
import { tracingInstalled } from '../infra/tracing/tracing.ts'
import { buildOpenApiDocument } from './openapi/document.ts'
import { v0Routes } from './routes/v0/index.ts'
import { priceRoutes } from './routes/prices/index.ts'
import { orderRoutes } from './routes/orders/index.ts'
import { paymentRoutes } from './routes/payments/index.ts'
import { processorWebhookRoutes } from './routes/processor-webhooks/index.ts'
import { createResponseSealer } from '../infra/response-sealer.ts'
import { payoutRoutes } from './routes/payouts/index.ts'
import { reconciliationRoutes } from './routes/reconciliation/index.ts'
import { referenceRoutes } from './routes/reference/index.ts'
import { consoleRoutes } from './routes/console/index.ts'
import { eventRoutes } from './routes/events/index.ts'
import { webhookEndpointRoutes } from './routes/webhook-endpoints/index.ts'
import { therapistRoutes } from './routes/therapists/index.ts'
import { marketplaceRoutes } from './routes/marketplace/index.ts'
import { analyticsRoutes } from './routes/analytics/index.ts'
import { leadRoutes } from './routes/leads/index.ts'
import { responseConformance } from './openapi/response-conformance.ts'

/**
 * The versioned API: /v1, and /v0 until its sunset (docs/versioning.md). One pattern, so a /v0 alias goes through
 * exactly the chain of its /v1 successor.
 */
const VERSIONED_API = '/:version{v[01]}/*'

/**
 * Builds the Hono app from its dependencies.
 * @param deps - built once per process by `buildDeps`
 */
export function createApp(deps: AppDeps) {
  const baseUrl = deps.config.PUBLIC_URL
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })

  app.onError(errorHandler(deps.logger, baseUrl))
  // A path served with other methods is a 405 with Allow, from the route table as it is once every router is mounted.
  const routeTable = () => app.routes
  app.notFound(notFoundHandler(baseUrl, allowedMethods(routeTable)))
  app.use('*', serverTiming())
  // Where the server time goes, by stage, only when asked (SERVER_TIMING_STAGES=on): benchmarks, profiling.
  const staged = deps.config.SERVER_TIMING_STAGES === 'on'
  const stage = (name: string, middleware: MiddlewareHandler<AppEnv>) =>
    staged ? timedStage(name, middleware) : middleware
  if (staged) app.use('*', stageTimingStart())
  // Counted only where they are served (METRICS_PORT): the benchmark prices them with and without.
  if (deps.config.METRICS_PORT !== 'off') app.use('*', httpMetrics(deps.metrics))
  app.use('*', requestId())
  // The request's span only where tracing is installed (api/server.ts, or a test's in-memory exporter).
  if (tracingInstalled()) app.use('*', tracing())
  app.use('*', accessLog(deps.logger))
  if (deps.config.RESPONSE_VALIDATION === 'enforce') {
    app.use(
      '*',
      responseConformance(() => app.openAPIRegistry.definitions)
    )
  }
  app.use('*', async function apiVersion(c, next) {
    await next()
    c.res.headers.set('X-Api-Version', API_VERSION)
  })
  // nosniff on every answer, HSTS when served over https; health data never cached (docs/security.md).
  app.use('*', secureHeaders(baseUrl))
  app.use(VERSIONED_API, noStore())
  // Browser apps on the allowed origins (none by default): before the audit trail and the rate limit, so a preflight
  // is answered without being recorded or counted, and every answer (a 429, a 401) carries the CORS headers.
  if (deps.config.API_CORS_ORIGINS.length > 0) app.use(VERSIONED_API, browserOrigins(deps.config.API_CORS_ORIGINS))
  // Every /v0 and /v1 call leaves an audit record whatever answers it (docs/audit-trail.md), so it wraps the rest.
  const audit = auditTrail(deps)
  app.use(VERSIONED_API, stage('audit', audit.record))
  // So is every call of the OAuth endpoints and the codec server, whose decodes hand operators health data.
  app.use('/oauth/*', audit.recordOutsideApi)
  app.use('/codec/*', audit.recordOutsideApi)
  // Every request: counted against its client (or address) first, then bounded in size, before any real work.
  app.use('*', stage('token', identifyCaller(deps)))
  app.use('*', stage('rate-limit', rateLimit(deps)))
  app.use('*', requestBodyLimit(deps.config.REQUEST_BODY_LIMIT_BYTES, knowledgeUploadLimits(deps.config)))

  mount(app, [healthRoutes(), wellKnownRoutes(deps), oauthRoutes(deps), errorCodeRoutes(deps), consoleRoutes(deps)])
  // Signed by the payment processor, not authenticated by us (docs/payments.md).
  mount(app, [processorWebhookRoutes(deps)])
  // The Temporal codec server for operators (docs/payload-encryption.md); its own credential, not the API's.
  mount(app, [codecRoutes(deps)])

  // Every /v0 and /v1 request: authenticated, one tenant-scoped transaction, idempotent writes, no partial writes.
  app.use(
    VERSIONED_API,
    stage('token', authenticate(deps)),
    stage('token', rejectRevokedTokens(deps.revocations)),
    stage('transaction', unitOfWork(deps.db)),
    stage('audit', audit.inTransaction),
    idempotency({
      clock: deps.clock,
      waitMs: deps.config.IDEMPOTENCY_WAIT_MS,
      onReplay: () => deps.metrics.idempotentReplays.inc(),
      sealer: createResponseSealer({
        codecKeys: deps.config.TEMPORAL_CODEC_KEYS,
        processorSecretKey: deps.config.STRIPE_SECRET_KEY,
      }),
    }),
    handlerSavepoint()
  )
  mount(app, [
    providerRoutes(deps),
    providerOnboardingRoutes(deps),
    locationRoutes(),
    availabilityRoutes(deps),
    childRoutes(deps),
    earlyInterventionRoutes(deps),
    childProgressRoutes(deps),
    clientRoutes(deps),
    customFieldRoutes(deps),
    petRoutes(deps),
    sessionRoutes(deps),
    assessmentRoutes(deps),
    appointmentRoutes(deps),
    appointmentSeriesRoutes(deps),
    apiKeyRoutes(deps),
    credentialRoutes(deps),
    userRoutes(deps),
    v0Routes(deps),
    auditEventRoutes(),
    priceRoutes(deps),
    orderRoutes(deps),
    paymentRoutes(deps),
    payoutRoutes(deps),
    reconciliationRoutes(deps),
    eventRoutes(),
    webhookEndpointRoutes(deps),
    assistantRoutes(),
    knowledgeRoutes(deps),
    unansweredRoutes(deps),
    therapistRoutes(deps),
    marketplaceRoutes(deps),
    analyticsRoutes(deps),
    leadRoutes(deps),
    agentRoutes(deps),
    aiRoutes(deps),
    recommendationRoutes(deps),
    agentWorkflowRoutes(deps),
    aiAnalyticsRoutes(deps),
  ])

  app.openAPIRegistry.registerComponent('securitySchemes', 'oauth2', {
    type: 'oauth2',
    description: 'OAuth 2.0 client credentials. A scope `x` grants read and write on x; `x.read` grants read only.',
    flows: {
      clientCredentials: { tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: { ...SCOPE_CATALOGUE } },
    },
  })
  // Routes never change after start-up, so the description is built once, on first use.
  let description: ReturnType<typeof buildOpenApiDocument> | undefined
  const describe = () => (description ??= buildOpenApiDocument(app, baseUrl))
  app.get('/openapi.json', (c) => c.json(describe()))
  app.route('/', referenceRoutes(describe))
  return app
}

export type App = ReturnType<typeof createApp>

/**
 * Mounts routers at the root. Each `app.route()` would merge the router's route types into the app's (what a typed
 * RPC client reads); nothing here reads them, and computing them for some forty routers took tsc over a minute.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema: the routers' route types are deliberately not merged (above)
function mount(app: OpenAPIHono<AppEnv>, routers: Array<Hono<AppEnv, any, any>>): void {
  for (const router of routers) app.route('/', router)
}
