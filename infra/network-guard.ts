/**
 * @module The rule "no transaction across a network call", enforced where it can be: a call to Temporal made while
 * the calling code holds a unit of work's open transaction fails at once, before anything is sent. Such a call would
 * hold a pooled connection and the transaction's locks for as long as Temporal takes; on the embedded database (one
 * backend) eight slow workflow views stalled every booking. Units call out through `UnitOfWork.release`
 * (infra/unit-of-work.ts). The check runs in every process that builds its Temporal client with
 * `refuseInsideTransaction` (infra/temporal-connection.ts), the API's included, so every integration test of the API
 * checks the rule.
 */
import type { ConnectionOptions } from '@temporalio/client'
import { holdsUnitTransaction } from './unit-routing.ts'

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number]

/** The error of a network call made inside an open transaction: a defect of the calling code, never of the peer. */
export class TransactionHeldError extends Error {
  constructor(peer: string, what: string) {
    super(
      `${peer} was called (${what}) while a database transaction was held: call out through UnitOfWork.release ` +
        '(infra/unit-of-work.ts), so the transaction commits first.'
    )
    this.name = 'TransactionHeldError'
  }
}

/**
 * Rethrows the guard's error when it is in `error`'s cause chain: Temporal's client wraps what an interceptor throws in
 * a ServiceError, which callers map to "Temporal unavailable" (a 503) or swallow; the defect must surface instead.
 */
export function rethrowIfTransactionHeld(error: unknown): void {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof TransactionHeldError) throw e
  }
}

/**
 * Throws when the calling code holds a unit of work's transaction.
 * @param peer - who would be called, for the message ("Temporal", "the embeddings provider")
 * @param what - the operation
 */
export function assertNoTransactionHeld(peer: string, what: string): void {
  if (holdsUnitTransaction()) throw new TransactionHeldError(peer, what)
}

/**
 * A gRPC interceptor that refuses a Temporal call made inside an open transaction. gRPC runs interceptors in the
 * caller's async context, when the call is made, so the unit of work's context is the caller's. The throw reaches the
 * caller as the call's rejection.
 */
export const refuseInsideTransaction: GrpcInterceptor = (options, nextCall) => {
  assertNoTransactionHeld('Temporal', options.method_definition.path)
  // The next call as is: nothing of the call is changed, so no wrapper (InterceptingCall) is needed.
  return nextCall(options) as ReturnType<GrpcInterceptor>
}
