/** @module The idempotency keys we send an online processor, stored on our record before the call. */
import { createHash } from 'node:crypto'

/**
 * A request's Idempotency-Key and who sent it. Keys are the caller's own: two API clients (or keys, or users) of one
 * tenant may pick the same one, and neither must find the other's payment or refund by it (issue 46).
 */
export interface RequestKey {
  /** The principal's actor id (`cli_...`, `key_...`, `usr_...`); `auto` for the platform's own requests. */
  caller: string
  key: string
}

/** Stripe refuses an Idempotency-Key longer than 255 characters. */
const MAX_PROCESSOR_KEY = 255

/**
 * The key of a record: the caller's Idempotency-Key scoped to the tenant and the caller
 * (`<kind>:<tenant>:<caller>:<key>`), else the record's own id (`<kind>:<tenant>:<id>`). A key that would be longer
 * than the processor takes is sent as its SHA-256 instead, the same for every retry.
 */
export function processorKey(
  kind: 'payment' | 'refund',
  tenantId: string,
  request: RequestKey | undefined,
  id: string
): string {
  if (!request) return `${kind}:${tenantId}:${id}`
  const key = `${kind}:${tenantId}:${request.caller}:${request.key}`
  if (key.length <= MAX_PROCESSOR_KEY) return key
  return `${kind}:${tenantId}:${request.caller}:sha256-${createHash('sha256').update(request.key).digest('hex')}`
}

/**
 * The key a record made before keys named their caller carries (`<kind>:<tenant>:<key>`): a retry across that upgrade
 * still finds its payment or refund, as long as it is the same request (the same order and amount, the same payment).
 */
export const keyBeforeCallers = (kind: 'payment' | 'refund', tenantId: string, request: RequestKey) =>
  `${kind}:${tenantId}:${request.key}`
