/**
 * @module A child's therapy goals. The list is written whole (a PATCH replaces the array, RFC 7396), but each goal
 * keeps a stable id: SOAP notes record which goals a session addressed, so a goal edited in place must stay the same
 * goal. A goal sent without an id is new; one sent with an id must be one of the child's goals. A goal left out is
 * removed, which is why a goal that was reached or dropped is better kept with status MET or DISCONTINUED.
 */
import type { FieldError } from '../errors.ts'
import type { GoalInputValue } from './child-schema.ts'

/** A goal as stored and answered. */
export interface Goal {
  id: string
  description: string
  discipline?: string
  status: string
  targetDate?: string
}

export type GoalsResult = { ok: true; goals: Goal[] } | { ok: false; errors: FieldError[] }

/**
 * Gives the goals of a write their ids.
 * @param existing - the child's goals now ([] for a new child)
 * @param input - the goals as sent
 * @param newGoalId - makes the id of a new goal
 */
export function assignGoalIds(
  existing: readonly Goal[],
  input: readonly GoalInputValue[],
  newGoalId: () => string
): GoalsResult {
  const known = new Set(existing.map((goal) => goal.id))
  const errors: FieldError[] = []
  const goals = input.map((goal, index): Goal => {
    if (goal.id !== undefined && !known.has(goal.id)) {
      errors.push({
        path: `goals.${index}.id`,
        code: 'unknown_goal',
        message: 'Not a goal of this child; leave the id out for a new goal.',
      })
    }
    const { id, discipline, targetDate, ...rest } = goal
    return {
      id: id ?? newGoalId(),
      ...rest,
      ...(discipline !== undefined ? { discipline } : {}),
      ...(targetDate !== undefined ? { targetDate } : {}),
    }
  })
  return errors.length > 0 ? { ok: false, errors } : { ok: true, goals }
}
