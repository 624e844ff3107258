/** @module The idempotency keys we send an online processor, stored on our record before the call. */

/** The key of a record: the caller's Idempotency-Key (scoped to the tenant), else the record's own id. */
export const processorKey = (
  kind: 'payment' | 'refund',
  tenantId: string,
  requestKey: string | undefined,
  id: string
) => (requestKey ? `${kind}:${tenantId}:${requestKey}` : `${kind}:${tenantId}:${id}`)
