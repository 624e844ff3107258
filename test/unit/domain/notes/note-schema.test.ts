import { describe, expect, it } from 'vitest'
import { accuracyErrors, NoteContent, normaliseObjective } from '../../../../domain/notes/note-schema.ts'

describe('SOAP note content', () => {
  it('computes accuracy from trials and correct responses, to one decimal', () => {
    const content = NoteContent.parse({
      objective: { goals: [{ description: 'Final consonants', trials: 15, correct: 11, cueingLevel: 'MODERATE' }] },
    })
    expect(normaliseObjective(content.objective).goals[0]?.accuracyPercent).toBe(73.3)
  })

  it('keeps an observed accuracy when no counts are given, and reports one that disagrees with its counts', () => {
    const observed = NoteContent.parse({ objective: { goals: [{ description: 'Turn-taking', accuracyPercent: 60 }] } })
    expect(normaliseObjective(observed.objective).goals[0]?.accuracyPercent).toBe(60)
    const wrong = NoteContent.parse({
      objective: { goals: [{ description: 'x', trials: 20, correct: 17, accuracyPercent: 95 }] },
    })
    expect(accuracyErrors(wrong.objective)).toEqual([
      expect.objectContaining({ path: 'objective.goals.0.accuracyPercent', code: 'accuracy_mismatch' }),
    ])
    const rounded = NoteContent.parse({
      objective: { goals: [{ description: 'x', trials: 3, correct: 2, accuracyPercent: 67 }] },
    })
    expect(accuracyErrors(rounded.objective)).toEqual([])
  })

  it('refuses more correct responses than trials, one count without the other, and an unknown cueing level', () => {
    const result = NoteContent.safeParse({
      objective: {
        goals: [
          { description: 'a', trials: 5, correct: 6 },
          { description: 'b', trials: 5 },
          { description: 'c', cueingLevel: 'SOME' },
        ],
      },
    })
    expect(result.success).toBe(false)
    const paths = result.error!.issues.map((i) => i.path.join('.'))
    expect(paths).toEqual(
      expect.arrayContaining([
        'objective.goals.0.correct',
        'objective.goals.1.correct',
        'objective.goals.2.cueingLevel',
      ])
    )
  })
})
