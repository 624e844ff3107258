/**
 * @module Process configuration, parsed once at boot with zod so a bad variable stops the process with a clear
 * message instead of failing on the first request.
 */
import { z } from 'zod'

const durationSeconds = (fallback: number) => z.coerce.number().int().positive().default(fallback)

const ConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z.string().url(),
  DATABASE_POOL_MAX: z.coerce.number().int().positive().default(10),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  TEMPORAL_TASK_QUEUE: z.string().default('care-platform'),
  /** The token issuer and the base of links; what clients call. */
  PUBLIC_URL: z.string().url().optional(),
  ACCESS_TOKEN_AUDIENCE: z.string().default('therapy-care-api'),
  ACCESS_TOKEN_TTL_SECONDS: durationSeconds(900),
  REFRESH_TOKEN_TTL_SECONDS: durationSeconds(30 * 24 * 3600),
  OUTBOX_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(5000),
  /** How long a duplicate request waits for the first one with the same Idempotency-Key before a 409. */
  IDEMPOTENCY_WAIT_MS: z.coerce.number().int().positive().default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
})

export type Config = z.infer<typeof ConfigSchema> & { PUBLIC_URL: string }

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
  return { ...config, PUBLIC_URL: config.PUBLIC_URL ?? `http://localhost:${config.PORT}` }
}
