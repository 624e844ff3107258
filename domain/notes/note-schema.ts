/**
 * @module What a SOAP note is (docs/domain.md, 'SOAP notes'): Subjective (caregiver and child report), Objective (measurable data per
 * goal addressed: trials, correct responses, accuracy, cueing), Assessment (clinical interpretation) and Plan. Domain
 * schemas, so a create and the result of a PATCH obey the same rules.
 */
import { z } from '@hono/zod-openapi'
import { resourceId } from '../id-schema.ts'

/** The cue hierarchy, least to most support (SLP cueing levels; OT adds hand-over-hand assistance). */
export const CUEING_LEVELS = ['INDEPENDENT', 'MINIMAL', 'MODERATE', 'MAXIMAL', 'HAND_OVER_HAND'] as const
export const CUE_TYPES = ['VERBAL', 'VISUAL', 'GESTURAL', 'TACTILE', 'PHONEMIC', 'MODELING', 'PHYSICAL'] as const

const Text = (max: number) => z.string().trim().min(1).max(max)

export const GoalMeasure = z
  .strictObject({
    name: Text(100).openapi({ example: 'Mean length of utterance' }),
    value: z.number().finite().openapi({ example: 3.2 }),
    unit: Text(30).optional().openapi({ example: 'morphemes' }),
  })
  .openapi('GoalMeasure')

/** One goal addressed in the session, with its data. */
export const GoalAddressed = z
  .strictObject({
    goalId: z.string().min(1).max(64).optional().openapi({
      description:
        "One of the child's goals (`goals[].id` of the child); leave out for a target that is not a plan goal",
      example: 'gol_019a...',
    }),
    description: Text(500).openapi({ example: '/s/ in word-initial position' }),
    trials: z.number().int().min(0).max(10_000).optional().openapi({ description: 'Opportunities given', example: 20 }),
    correct: z.number().int().min(0).max(10_000).optional().openapi({ description: 'Correct responses', example: 17 }),
    accuracyPercent: z.number().min(0).max(100).optional().openapi({
      description:
        'Computed as correct / trials × 100 (one decimal) when trials and correct are given; otherwise as observed',
      example: 85,
    }),
    selfCorrections: z.number().int().min(0).max(10_000).optional(),
    cueingLevel: z.enum(CUEING_LEVELS).optional().openapi({ description: 'Level of cueing or assistance needed' }),
    cueTypes: z.array(z.enum(CUE_TYPES)).max(CUE_TYPES.length).optional(),
    measures: z.array(GoalMeasure).max(20).optional().openapi({ description: 'Other measures of this goal' }),
    comment: Text(2000).optional(),
  })
  .superRefine((goal, ctx) => {
    if ((goal.trials === undefined) !== (goal.correct === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [goal.trials === undefined ? 'trials' : 'correct'],
        message: 'Give trials and correct together.',
        params: { code: 'required_with' },
      })
    } else if (goal.trials !== undefined && goal.correct !== undefined && goal.correct > goal.trials) {
      ctx.addIssue({
        code: 'custom',
        path: ['correct'],
        message: 'More correct responses than trials.',
        params: { code: 'exceeds_trials' },
      })
    }
  })
  .openapi('GoalAddressed')

export const NoteObjective = z
  .strictObject({
    goals: z.array(GoalAddressed).max(50).default([]),
    observations: Text(10_000).optional().openapi({ description: 'Activities, behaviour and other observations' }),
  })
  .openapi('NoteObjective')

/** The writable content of a note (all optional while it is a draft). */
export const NoteContent = z.strictObject({
  subjective: Text(10_000).optional().openapi({ example: 'Mother reports practising the home program 4 of 7 days.' }),
  objective: NoteObjective.default({ goals: [] }),
  assessment: Text(10_000).optional(),
  plan: Text(10_000).optional(),
})

export type NoteContentInput = z.output<typeof NoteContent>
export type GoalAddressedInput = z.output<typeof GoalAddressed>

export const ADDENDUM_REASONS = ['LATE_ENTRY', 'CORRECTION', 'CLARIFICATION', 'OTHER'] as const

export const AddendumFields = z.strictObject({
  reason: z.enum(ADDENDUM_REASONS).default('OTHER').openapi({
    description: 'Why the addendum was added: a late entry, a correction, a clarification, or other',
  }),
  text: Text(10_000).openapi({ example: 'Late entry: caregiver reported an ear infection diagnosed the day before.' }),
  providerId: resourceId('provider').optional().openapi({
    description: 'The provider the addendum is written by (attested by the caller); recorded as its author',
  }),
})

/**
 * The objective as stored: accuracy computed from trials and correct (so the stored figure can never disagree with
 * the counts it comes from).
 * @throws nothing; a disagreeing `accuracyPercent` is reported by {@link accuracyErrors} first
 */
export function normaliseObjective(objective: z.output<typeof NoteObjective>): z.output<typeof NoteObjective> {
  return {
    ...objective,
    goals: objective.goals.map((goal) => {
      if (goal.trials === undefined || goal.correct === undefined || goal.trials === 0) return goal
      return { ...goal, accuracyPercent: accuracyOf(goal.correct, goal.trials) }
    }),
  }
}

/** correct / trials as a percentage with one decimal. */
export const accuracyOf = (correct: number, trials: number) => Math.round((correct / trials) * 1000) / 10

/** Goals whose given accuracy disagrees with their counts (by more than rounding). */
export function accuracyErrors(objective: z.output<typeof NoteObjective>) {
  return objective.goals.flatMap((goal, index) => {
    if (
      goal.accuracyPercent === undefined ||
      goal.trials === undefined ||
      goal.correct === undefined ||
      goal.trials === 0
    ) {
      return []
    }
    const computed = accuracyOf(goal.correct, goal.trials)
    return Math.abs(computed - goal.accuracyPercent) > 0.5
      ? [
          {
            path: `objective.goals.${index}.accuracyPercent`,
            code: 'accuracy_mismatch',
            message: `${goal.correct} of ${goal.trials} is ${computed}%; leave accuracyPercent out to have it computed.`,
          },
        ]
      : []
  })
}
