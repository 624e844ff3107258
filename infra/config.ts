/**
 * @module Process configuration, parsed once at boot with zod so a bad variable stops the process with a clear
 * message instead of failing on the first request.
 */
import { z } from 'zod'
import { CodecKeysSchema, type CodecKeyring } from './codec-keys.ts'
import { CodecOperatorsSchema, SHARED_OPERATOR_NAME } from './codec-operators.ts'
import { AI_CONFIG_SHAPE } from './ai-config.ts'
import { METRICS_CONFIG_SHAPE } from './metrics/metrics-config.ts'
import { PAYMENT_CONFIG_SHAPE } from './payment-config.ts'
import { WEBHOOK_CONFIG_SHAPE } from './webhook-config.ts'
import { CONSOLE_CONFIG_SHAPE } from './console-config.ts'
import { DEVELOPMENT_KEYRING } from './secret-box.ts'
import { DAY_MS } from '../common/time/calendar.ts'

const durationSeconds = (fallback: number) => z.coerce.number().int().positive().default(fallback)

/** Comma-separated browser origins (`scheme://host[:port]`). */
const originList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean)
    )
    .pipe(z.array(z.string().regex(/^https?:\/\/[^/\s]+$/, 'Each entry must be an origin: scheme://host[:port]')))

/** An http:// URL whose host is not this machine's loopback (localhost, 127.0.0.0/8, ::1). */
function cleartextBeyondLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  return protocol === 'http:' && !/^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(hostname)
}

const ConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    /**
     * On SIGTERM the API answers the requests it holds for at most this long, then ends their connections (a rolling
     * restart must finish within an orchestrator's grace period, 30 s by default in Kubernetes; the worker's is 10 s).
     */
    API_DRAIN_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * How long an idle keep-alive connection stays open. Longer than the idle timeout of what sits in front (a load
     * balancer's 60 s; an HTTP client's few seconds): with Node's 5 s, a client or balancer that reuses a connection
     * the moment the API closes it gets a reset, a 502 for a request that never reached us.
     */
    API_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(65_000),
    /**
     * The database login of the process's cross-tenant statements (token and key checks, sweeps, delivery pumps): a
     * member of therapy_system on PostgreSQL, and of everything when DATABASE_APP_URL is unset (the embedded
     * database's single login). docs/security.md, "Least privilege in the database".
     */
    DATABASE_URL: z.string().url(),
    /**
     * The login of the tenants' units of work: a NOINHERIT member of therapy_app only, so a statement that resets the
     * role inside a request's transaction reads nothing. Unset: DATABASE_URL serves the units too.
     */
    DATABASE_APP_URL: z.string().url().optional(),
    DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
    /**
     * The API's connections for its background loops (audit sealer, agent dispatcher, schedules, metrics), apart from
     * the requests' DATABASE_POOL_MAX, so background work never takes a connection a request is waiting for.
     */
    DATABASE_BACKGROUND_POOL_MAX: z.coerce.number().int().positive().default(3),
    TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
    TEMPORAL_NAMESPACE: z.string().default('default'),
    TEMPORAL_TASK_QUEUE: z.string().default('care-platform'),
    /** The token issuer and the base of links; what clients call. */
    PUBLIC_URL: z.string().url().optional(),
    ACCESS_TOKEN_AUDIENCE: z.string().default('therapy-care-api'),
    // At most a year (the time-skipping tests use 90 days): a revoked client's entry on the revocation list outlives
    // every token it was issued (domain/auth/revocation-list.ts, CLIENT_REVOCATION_TTL_MS).
    ACCESS_TOKEN_TTL_SECONDS: durationSeconds(900).refine((s) => s <= 365 * 86_400, 'at most 31536000 (a year)'),
    REFRESH_TOKEN_TTL_SECONDS: durationSeconds(30 * 24 * 3600),
    /** The longest an API key may live; a key created without `expiresAt` gets exactly this (docs/access-control.md). */
    API_KEY_MAX_LIFETIME_DAYS: z.coerce.number().int().positive().max(3650).default(365),
    OUTBOX_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
    /** How often each instance seals committed audit records onto their chains (docs/audit-trail.md). */
    AUDIT_SEAL_INTERVAL_MS: z.coerce.number().int().positive().default(500),
    /** How long a duplicate request waits for the first one with the same Idempotency-Key before a 409. */
    IDEMPOTENCY_WAIT_MS: z.coerce.number().int().positive().default(5000),
    /** Requests per API client (per address when unauthenticated) in each fixed 60-second window. */
    RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
    /**
     * Failed authentications (credentials sent and refused) per address in each window; beyond it, requests with
     * credentials from that address are answered 429 before any lookup (docs/rate-limits.md, "Failed authentications").
     */
    AUTH_FAILURES_PER_MINUTE: z.coerce.number().int().positive().default(60),
    /** Length of that window in seconds: 60 (tests shorten it rather than wait out a minute). */
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
    /**
     * Workflow views (`GET /v1/appointments/{id}/workflow`) each tenant gets a second from each API process: they are
     * answered by Temporal, and a view beyond the pace waits its turn (up to WORKFLOW_VIEW_MAX_WAIT_MS, then 429).
     * 0 paces nothing. docs/workflows.md ("What the API shows").
     */
    WORKFLOW_VIEWS_PER_SECOND: z.coerce.number().min(0).default(20),
    WORKFLOW_VIEW_BURST: z.coerce.number().int().positive().default(20),
    WORKFLOW_VIEW_MAX_WAIT_MS: z.coerce.number().int().min(0).default(2000),
    /**
     * `memory`: counters in this process (one instance); `postgres`: in `rate_limits`, shared by every instance.
     * Unset: `postgres`, unless DATABASE_EMBEDDED (infra/rate-limiter.ts `chooseRateLimitStore`).
     */
    RATE_LIMIT_STORE: z.enum(['memory', 'postgres']).optional(),
    /**
     * Quotas per tenant (docs/rate-limits.md, "Quotas"; the knowledge ones are in infra/ai-config.ts): active API keys
     * and enabled agent workflows, refused at creation (409 `quota_exceeded`); agent runs started in the last hour, a
     * run beyond it recorded as skipped, not started.
     */
    API_KEYS_PER_TENANT: z.coerce.number().int().positive().default(100),
    AGENT_WORKFLOWS_PER_TENANT: z.coerce.number().int().positive().default(50),
    AGENT_RUNS_PER_TENANT_PER_HOUR: z.coerce.number().int().positive().default(600),
    /**
     * The database is the embedded PGlite that `npm start` runs for one API process (set by scripts/start.ts). It
     * serves a single process, so per-process state (the rate limit's counters) is as good as shared there.
     */
    DATABASE_EMBEDDED: z.stringbool().default(false),
    /**
     * Development only: start with a superuser, BYPASSRLS or table-owning login, with a warning, rather than refusing
     * (infra/login-privileges.ts). Refused in production.
     */
    DATABASE_ALLOW_PRIVILEGED_LOGIN: z.stringbool().default(false),
    /** Take the client address from X-Forwarded-For (its last entry); only behind a proxy that sets it. */
    TRUST_PROXY: z.stringbool().default(false),
    /** Largest request body accepted; beyond it a 413. */
    REQUEST_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(1024 * 1024),
    /**
     * Temporal payload encryption keys, `<id>:<base64 32 bytes>,...`; the first encrypts, all decrypt
     * (docs/payload-encryption.md). Required in production; elsewhere the codec is off unless they are set.
     */
    TEMPORAL_CODEC_KEYS: CodecKeysSchema.optional(),
    /**
     * The keys that seal secrets at rest (the token-signing key, webhook and agent secrets; infra/secret-box.ts),
     * `<id>:<base64 32 bytes>,...`: the first seals, all open (docs/security.md, "Secrets at rest"). Required in
     * production; elsewhere unset means the fixed development key (`npm start` and the tests need no step).
     */
    SECRETS_ENCRYPTION_KEYS: CodecKeysSchema.optional(),
    /**
     * The operators who may decode payloads at /codec, each with a token of their own, `<name>:<token>,...` (tokens of
     * 32+ characters); every decode is audited under the operator's name (infra/codec-operators.ts). Unset or empty:
     * none but the holder of CODEC_OPERATOR_TOKEN.
     */
    CODEC_OPERATORS: CodecOperatorsSchema.optional(),
    /**
     * The older shared operator credential (32+ characters), recorded as the operator `operator`; unset or empty:
     * nobody. Prefer CODEC_OPERATORS, which tells operators apart.
     */
    CODEC_OPERATOR_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(32).optional()),
    /** Browser origins allowed to call /codec (the Temporal Web UI), comma-separated. */
    CODEC_CORS_ORIGINS: originList('http://localhost:8233,http://127.0.0.1:8233'),
    /**
     * Browser origins of apps allowed to call /v0 and /v1 directly with access tokens from their own backend
     * (api/middleware/browser-origins.ts), comma-separated; empty: none (no CORS headers at all).
     */
    API_CORS_ORIGINS: originList(''),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Assistants and knowledge: models, vector store, upload limits (infra/ai-config.ts, docs/ai.md). */
    ...AI_CONFIG_SHAPE,
    /**
     * `enforce`: every response of a described route is checked against its OpenAPI description, and one that does not
     * match becomes a 500 `response_schema_violation` (the test suite runs so). `off` in production.
     */
    RESPONSE_VALIDATION: z.enum(['off', 'enforce']).default('off'),
    /**
     * `on`: every response's `Server-Timing` also says where its server time went, stage by stage (token, rate limit,
     * transaction, audit record, handler; api/middleware/stage-timing.ts). For benchmarks and profiling; `off` adds
     * nothing to a request.
     */
    SERVER_TIMING_STAGES: z.enum(['off', 'on']).default('off'),
    /**
     * Length of a day in the assessment reminder workflow's schedule, in ms (docs/workflows.md). Only tests shorten
     * it, to run weeks of reminders in seconds; production keeps a real day.
     */
    ASSESSMENT_REMINDER_DAY_MS: z.coerce.number().int().positive().default(DAY_MS),
    /**
     * Length of a day in the early-intervention check-in, child progress follow-up and provider onboarding workflows,
     * in ms (docs/workflows.md). Only tests shorten it; production keeps a real day.
     */
    CARE_WORKFLOW_DAY_MS: z.coerce.number().int().positive().default(DAY_MS),
    /**
     * How long after an appointment's end the appointment workflow waits for a check-in before it marks the appointment
     * NO_SHOW, in ms (docs/workflows.md). Real time, not scaled by CARE_WORKFLOW_DAY_MS; tests shorten it.
     */
    CARE_WORKFLOW_NO_SHOW_GRACE_MS: z.coerce
      .number()
      .int()
      .nonnegative()
      .default(30 * 60_000),
    /**
     * `deferred`: a booking's workflow is started at booking with a start delay that ends 10 minutes before its first
     * reminder, so the booking's hot path pays for the start only (docs/workflows.md); `immediate`: its first task runs
     * at booking, as before.
     */
    BOOKING_WORKFLOW_START: z.enum(['deferred', 'immediate']).default('deferred'),
    /** Days between two periodic progress summaries of a child (the child progress follow-up workflow). */
    CHILD_PROGRESS_INTERVAL_DAYS: z.coerce.number().int().min(1).max(366).default(30),
    /**
     * A workflow bundle written by `npm run worker:bundle`. Unset, the worker bundles workflows/ with webpack as it starts
     * (a few seconds of CPU); set, it loads the bundle, which must come from the same code (docs/operations.md).
     */
    WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
    /**
     * The outbound network policy for every URL a tenant chooses (webhook receivers, agent `call_webhook` actions, SSO
     * issuers and key sets; adapters/outbound/network-policy.ts) is strict unless relaxed here, whatever NODE_ENV says:
     * a deployment that forgets NODE_ENV=production must not be open to server-side request forgery. `npm start`
     * relaxes both for receivers on the developer's machine, and says so as it starts. Cloud metadata addresses are
     * refused even when relaxed. The per-caller settings below override these for their caller.
     */
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: z.stringbool().default(false),
    /** Allow plain `http://` URLs (default: https:// only). */
    OUTBOUND_ALLOW_HTTP: z.stringbool().default(false),
    /**
     * SSO issuers and their key sets (docs/access-control.md): the webhooks' network rules, with their own switches.
     * Unset: OUTBOUND_ALLOW_HTTP and OUTBOUND_ALLOW_PRIVATE_NETWORKS decide.
     */
    SSO_REQUIRE_HTTPS: z.stringbool().optional(),
    /** Allow issuers on loopback, private, CGNAT, link-local and ULA addresses (never cloud metadata addresses). */
    SSO_ALLOW_PRIVATE_NETWORKS: z.stringbool().optional(),
    ...WEBHOOK_CONFIG_SHAPE,
    ...CONSOLE_CONFIG_SHAPE,
    /**
     * The worker's CPU priority as a nice value (0 normal, 19 lowest). `npm start` runs its worker at 10, so that on
     * one machine requests come before webhook deliveries and workflow tasks (infra/process-priority.ts).
     */
    WORKER_CPU_NICE: z.coerce.number().int().min(0).max(19).default(0),
    /**
     * Activities one worker runs at once (the Temporal SDK's default, 100). Past it, tasks wait in the task queue's
     * backlog, where the server shares them out fairly between tenants (common/tenant-priority.ts).
     */
    WORKER_MAX_CONCURRENT_ACTIVITIES: z.coerce.number().int().positive().default(100),
    /**
     * Workflow code in the worker's main thread rather than in a thread of its own (worker/create-worker.ts). Off in
     * production: a long workflow activation then never delays the activities' heartbeats. On where workers start often
     * (the test suite's worker hosts): each thread costs ~0.9 s of CPU to start, as it compiles the workflow bundle in a
     * new V8 isolate, against ~0.06 s in the main thread, whose isolate compiled it already.
     */
    WORKER_WORKFLOWS_IN_MAIN_THREAD: z.stringbool().default(false),
    ...METRICS_CONFIG_SHAPE,
    ...PAYMENT_CONFIG_SHAPE,
  })
  .superRefine((config, ctx) => {
    if (config.ONLINE_PAYMENT_PROCESSOR === 'stripe') {
      for (const key of ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'] as const) {
        if (!config[key]?.length)
          ctx.addIssue({ code: 'custom', path: [key], message: 'required when ONLINE_PAYMENT_PROCESSOR=stripe' })
      }
    }
    if (config.WEBHOOK_CLAIM_LEASE_MS <= config.WEBHOOK_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_CLAIM_LEASE_MS'],
        message: 'must be longer than WEBHOOK_TIMEOUT_MS, or a claim could end while its attempt is still running',
      })
    }
    if (config.CODEC_OPERATOR_TOKEN !== undefined) {
      const named = config.CODEC_OPERATORS ?? []
      if (named.some((o) => o.name === SHARED_OPERATOR_NAME || o.token === config.CODEC_OPERATOR_TOKEN)) {
        ctx.addIssue({
          code: 'custom',
          path: ['CODEC_OPERATORS'],
          message: `names "${SHARED_OPERATOR_NAME}" or holds CODEC_OPERATOR_TOKEN, which is the operator "${SHARED_OPERATOR_NAME}"`,
        })
      }
    }
    // The token issuer and the address clients send bearer tokens to: never plain http beyond this host in production.
    if (config.NODE_ENV === 'production' && config.PUBLIC_URL && cleartextBeyondLoopback(config.PUBLIC_URL)) {
      ctx.addIssue({
        code: 'custom',
        path: ['PUBLIC_URL'],
        message:
          'must be an https:// URL when NODE_ENV=production (tokens would cross the network in cleartext); serve the ' +
          'API behind a TLS terminator (docs/operations.md)',
      })
    }
    // Encryption is on by default outside development: production refuses to hand Temporal plaintext payloads.
    if (config.NODE_ENV === 'production' && !config.TEMPORAL_CODEC_KEYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['TEMPORAL_CODEC_KEYS'],
        message: 'required when NODE_ENV=production (Temporal payloads are encrypted); see docs/payload-encryption.md',
      })
    }
    if (config.NODE_ENV === 'production' && config.DATABASE_ALLOW_PRIVILEGED_LOGIN) {
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_ALLOW_PRIVILEGED_LOGIN'],
        message: 'development only: production logs in with least privilege (docs/security.md)',
      })
    }
    // The development key is derivable by anyone: production seals its secrets with keys of its own.
    if (config.NODE_ENV === 'production' && !config.SECRETS_ENCRYPTION_KEYS) {
      ctx.addIssue({
        code: 'custom',
        path: ['SECRETS_ENCRYPTION_KEYS'],
        message:
          'required when NODE_ENV=production (secrets are sealed at rest with it); generate a key with ' +
          '`openssl rand -base64 32` and see docs/security.md, "Secrets at rest"',
      })
    }
  })

export type Config = z.infer<typeof ConfigSchema> & { PUBLIC_URL: string; SECRETS_ENCRYPTION_KEYS: CodecKeyring }

/** Every variable the processes read, for checks that deployment files name only real settings. */
export const CONFIG_KEYS: readonly string[] = Object.keys(ConfigSchema.shape)

/**
 * Parses configuration from an environment map.
 * @param env - usually `process.env`
 * @throws Error listing every invalid variable
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')
    throw new Error(`Invalid configuration:\n${problems}`)
  }
  const config = parsed.data
  return {
    ...config,
    PUBLIC_URL: config.PUBLIC_URL ?? `http://localhost:${config.PORT}`,
    // Outside production only (production refused above): the fixed development key.
    SECRETS_ENCRYPTION_KEYS: config.SECRETS_ENCRYPTION_KEYS ?? DEVELOPMENT_KEYRING,
  }
}
