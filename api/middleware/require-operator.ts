/**
 * @module Operator authentication for the Temporal codec endpoint (docs/payload-encryption.md). The credential is
 * `CODEC_OPERATOR_TOKEN`, presented either as `Authorization: Bearer <token>` (the Temporal CLI's `--codec-auth`,
 * scripts) or as the password of HTTP Basic (a browser: the operator signs in once at `/codec` and the Temporal UI,
 * with "include cross-origin credentials" on, sends the cached credential with each decode). Without a configured
 * token nobody is an operator and every request is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { operatorCredentialRequired } from '../../domain/errors.ts'
import type { AppEnv } from '../app-env.ts'

/** The protection space the browser caches the Basic credential for; the same on every /codec response. */
export const OPERATOR_REALM = 'temporal-codec'
const CHALLENGE = `Bearer realm="${OPERATOR_REALM}", Basic realm="${OPERATOR_REALM}", charset="UTF-8"`

/** The secret a request presents, from a Bearer token or a Basic password; undefined when it presents none. */
function presentedSecret(header: string | undefined): string | undefined {
  const [scheme, value] = header?.trim().split(/\s+/, 2) ?? []
  if (!value) return undefined
  if (/^bearer$/i.test(scheme!)) return value
  if (!/^basic$/i.test(scheme!)) return undefined
  const decoded = Buffer.from(value, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? undefined : decoded.slice(colon + 1)
}

/** SHA-256 first, so the comparison takes the same time whatever the lengths. */
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/**
 * Lets only callers holding the operator token through.
 * @param operatorToken - `CODEC_OPERATOR_TOKEN`; undefined refuses everyone
 */
export function requireOperator(operatorToken: string | undefined): MiddlewareHandler<AppEnv> {
  const expected = operatorToken === undefined ? undefined : digest(operatorToken)
  return async function requireOperator(c, next) {
    const secret = presentedSecret(c.req.header('Authorization'))
    if (!expected || secret === undefined || !timingSafeEqual(digest(secret), expected)) {
      throw operatorCredentialRequired(CHALLENGE)
    }
    await next()
  }
}
