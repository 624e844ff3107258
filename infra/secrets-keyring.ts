/**
 * @module The secrets key ring as a process resolves it before anything else (issue 76): SECRETS_ENCRYPTION_KEYS, or
 * the development key only where NODE_ENV says development or test in so many words. Apart from infra/config.ts, which
 * the API and the worker load after this check and the operator CLI does not load at all; parsed as it parses it.
 */
import { CodecKeysSchema, type CodecKeyring } from './codec-keys.ts'
import { DEVELOPMENT_KEYRING } from './secret-box.ts'

/**
 * Refuses the development secrets key unless the environment asks for development or tests in so many words
 * (issue 76): a process started with no NODE_ENV and no SECRETS_ENCRYPTION_KEYS — a deployment that forgot both —
 * would otherwise seal its secrets with a key anyone can derive from the source. `npm start`, `npm run start:cluster`
 * and the test suite set NODE_ENV; the API, the worker and the operator CLI call this at start.
 * @throws Error naming both variables
 */
export function refuseImplicitDevelopmentKey(env: Record<string, string | undefined>): void {
  if (env.SECRETS_ENCRYPTION_KEYS || env.NODE_ENV === 'development' || env.NODE_ENV === 'test') return
  throw new Error(
    'Invalid configuration:\n  SECRETS_ENCRYPTION_KEYS: required unless NODE_ENV=development or NODE_ENV=test is ' +
      'set (the development key is derivable from the source); `npm start` sets NODE_ENV=development'
  )
}

/**
 * The secrets key ring alone, as {@link loadConfig} resolves it, for processes that read no other setting (the
 * operator CLI): SECRETS_ENCRYPTION_KEYS, required in production, the development key when NODE_ENV says development
 * or test.
 * @throws Error naming the variable when it is malformed, or missing outside development and tests
 */
export function secretsKeyringFrom(env: Record<string, string | undefined>): CodecKeyring {
  const parsed = CodecKeysSchema.optional().safeParse(env.SECRETS_ENCRYPTION_KEYS)
  if (!parsed.success) {
    throw new Error(`Invalid configuration:\n  SECRETS_ENCRYPTION_KEYS: ${parsed.error.issues[0]?.message}`)
  }
  if (parsed.data) return parsed.data
  if (env.NODE_ENV === 'production') {
    throw new Error('Invalid configuration:\n  SECRETS_ENCRYPTION_KEYS: required when NODE_ENV=production')
  }
  refuseImplicitDevelopmentKey(env)
  return DEVELOPMENT_KEYRING
}
