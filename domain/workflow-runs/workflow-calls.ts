/**
 * @module Calls from the API into running care workflows (updates, queries, cancellation), with their failures turned
 * into the API's errors: a workflow's refusal (an update's validator, a step's business rule) keeps its stable code —
 * `invalid_state_transition` or `validation_error` — a workflow that is not running is `invalid_state_transition`, and
 * Temporal being unreachable or too slow is `dependency_unavailable`, which the client may retry with the same
 * Idempotency-Key.
 */
import { setTimeout as delay } from 'node:timers/promises'
import {
  ServiceError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client'
import { ApplicationFailure } from '@temporalio/common'
import { rethrowIfTransactionHeld } from '../../infra/network-guard.ts'
import type { UnitOfWork } from '../../infra/unit-of-work.ts'
import {
  AppError,
  conflict,
  dependencyUnavailable,
  invalidStateTransition,
  validationError,
  type FieldError,
} from '../errors.ts'
import type { ErrorCode } from '../error-catalogue.ts'

/** Error types a workflow or activity may fail with to refuse a request (ApplicationFailure `type`). */
export const REFUSAL_TYPES = [
  'invalid_state_transition',
  'validation_error',
  'conflict',
] as const satisfies readonly ErrorCode[]

/** The innermost ApplicationFailure with a refusal type in an error's cause chain. */
function refusalIn(error: unknown): ApplicationFailure | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (e instanceof ApplicationFailure && (REFUSAL_TYPES as readonly string[]).includes(e.type ?? '')) return e
  }
  return undefined
}

function toAppError(failure: ApplicationFailure): AppError {
  if (failure.type === 'validation_error')
    return validationError((failure.details?.[0] as FieldError[] | undefined) ?? [], failure.message)
  if (failure.type === 'conflict') return conflict(failure.message)
  return invalidStateTransition(failure.message)
}

/**
 * Asks a workflow again, a few times a second for up to `attempts` tries, while it refuses with
 * `invalid_state_transition`, for a caller that has just checked the same move against the database. A workflow
 * decides against the status it holds, which trails the row by one workflow task whenever its own activity has
 * committed a step (a lead matched) whose result the workflow has not taken yet; a client that read the new status
 * and acted at once was refused (the lead "is QUALIFIED" after GET answered MATCHED). Any other failure, and the last
 * refusal, go to the caller as they are.
 */
export async function askWhileRefused<T>(
  ask: () => Promise<T>,
  {
    attempts = 12,
    waitMs = 250,
    sleep = (ms) => delay(ms),
  }: { attempts?: number; waitMs?: number; sleep?: (ms: number) => Promise<void> } = {}
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask()
    } catch (error) {
      if (attempt >= attempts || refusalIn(error)?.type !== 'invalid_state_transition') throw error
      await sleep(waitMs)
    }
  }
}

/**
 * The id of an update asked for a request: named after the request's operation (UnitOfWork.operationKey) when it has
 * an Idempotency-Key, so that Temporal answers a retry with the outcome of the update it already ran instead of running
 * it again. A 503 can hide an update the workflow accepted (its answer lost or late on the way back): the retry with
 * the key was refused by the state that update left ("CANCELLED is final") until the workflow's check a minute later
 * undid it. Without a key, a random id as before.
 */
export const updateIdFor = (uow: Pick<UnitOfWork, 'operationKey'>, update: { name: string }): string | undefined =>
  uow.operationKey === undefined ? undefined : `${update.name}-${uow.operationKey}`

/**
 * Longest the API waits for a workflow by default. Shorter than the request's transaction (15 s, infra/unit-of-work.ts),
 * which was opened before the call: with both at 15 s, a workflow that did not answer (no worker polling) let the
 * transaction expire first, a 500 instead of this 503 (found by Schemathesis).
 */
export const WORKFLOW_CALL_TIMEOUT_MS = 10_000

/**
 * Runs a call into a workflow and maps its failures.
 * @param what - the workflow as a user would name it ("onboarding"), for the not-running error
 * @param timeoutMs - longest the API waits (an update waits for the workflow's answer)
 */
export async function callWorkflow<T>(
  temporal: Client,
  what: string,
  call: () => Promise<T>,
  timeoutMs = WORKFLOW_CALL_TIMEOUT_MS
): Promise<T> {
  try {
    return await temporal.withDeadline(Date.now() + timeoutMs, call)
  } catch (error) {
    rethrowIfTransactionHeld(error)
    const refused = refusalIn(error)
    if (refused) throw toAppError(refused)
    if (error instanceof WorkflowNotFoundError) throw invalidStateTransition(`No ${what} is in progress.`)
    if (error instanceof WorkflowUpdateFailedError) throw error
    if (error instanceof ServiceError || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError) {
      throw dependencyUnavailable('The workflow service', error)
    }
    throw error
  }
}
