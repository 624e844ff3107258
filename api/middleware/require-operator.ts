/**
 * @module Operator authentication for the Temporal codec endpoint (docs/payload-encryption.md). Each operator has a name
 * and a token of their own (`CODEC_OPERATORS`; the older shared `CODEC_OPERATOR_TOKEN` is the operator `operator`),
 * presented either as `Authorization: Bearer <token>` (the Temporal CLI's `--codec-auth`, scripts) or as the password
 * of HTTP Basic (a browser: the operator signs in once at `/codec` and the Temporal UI, with "include cross-origin
 * credentials" on, sends the cached credential with each decode). The token alone says who the operator is: a Basic
 * user name is not read. The operator's name goes on the call's audit record. Without any operator configured nobody
 * is an operator and every request is refused.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import { operatorCredentialRequired } from '../../domain/errors.ts'
import type { CodecOperator } from '../../infra/codec-operators.ts'
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
 * Lets only operators through, and names the operator on the call's audit record (actor type `operator`).
 * @param operators - every configured operator (infra/codec-operators.ts `codecOperators`); none refuses everyone
 */
export function requireOperator(operators: readonly CodecOperator[]): MiddlewareHandler<AppEnv> {
  const known = operators.map(({ name, token }) => ({ name, digest: digest(token) }))
  return async function requireOperator(c, next) {
    const secret = presentedSecret(c.req.header('Authorization'))
    let operator: string | undefined
    if (secret !== undefined) {
      const presented = digest(secret)
      // Every token compared, whichever matches: the time taken does not say which operator's token was close.
      for (const { name, digest: expected } of known) {
        if (timingSafeEqual(presented, expected)) operator = name
      }
    }
    if (operator === undefined) throw operatorCredentialRequired(CHALLENGE)
    c.set('auditedAs', { actorType: 'operator', actorId: operator })
    await next()
  }
}
