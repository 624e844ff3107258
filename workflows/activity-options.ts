/**
 * @module The activity options the care workflows share: a bounded attempt, retried without limit on a backoff from
 * one second to one minute (an activity's own business refusals are non-retryable failures, so only faults retry).
 * One definition, so the workflows keep one retry policy. Changing these values changes the commands of every
 * workflow that uses them: it needs `patched()` in each (docs/workflows.md), not an edit here.
 */
import type { Duration } from '@temporalio/common'
import type { ActivityOptions } from '@temporalio/workflow'

/** Exponential backoff from 1 s to 1 min, no attempt limit: a transient fault (database, network) outlasts it. */
export const STANDARD_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' }

/**
 * The options for `proxyActivities` of a workflow's activities.
 * @param startToCloseTimeout - the longest one attempt may run
 * @returns the options, with the standard retry policy
 */
export const standardActivityOptions = (startToCloseTimeout: Duration): ActivityOptions => ({
  startToCloseTimeout,
  retry: { ...STANDARD_RETRY },
})
