import { describe, expect, it } from 'vitest'
import { createQueryAnswersByHistory } from '../../../domain/workflow-runs/query-answers-by-history.ts'

const run = (historyLength: number, runId = 'run-1') => ({ runId, historyLength })

describe('query answers by history', () => {
  it('answers from what was asked at the same run and history length', () => {
    const answers = createQueryAnswersByHistory()
    answers.set('booking-a', 'bookingView', run(7), { state: 'CONFIRMED' })
    expect(answers.get('booking-a', 'bookingView', run(7))).toEqual({ answer: { state: 'CONFIRMED' } })
  })

  it('asks again once the history has grown, or for another run of the same id', () => {
    const answers = createQueryAnswersByHistory()
    answers.set('booking-a', 'bookingView', run(7), { state: 'CONFIRMED' })
    expect(answers.get('booking-a', 'bookingView', run(9))).toBeUndefined()
    expect(answers.get('booking-a', 'bookingView', run(7, 'run-2'))).toBeUndefined()
    // The newer version replaces the older: the workflow's history does not shrink.
    answers.set('booking-a', 'bookingView', run(9), { state: 'CANCELLED' })
    expect(answers.get('booking-a', 'bookingView', run(7))).toBeUndefined()
    expect(answers.get('booking-a', 'bookingView', run(9))).toEqual({ answer: { state: 'CANCELLED' } })
  })

  it('keeps answers apart by workflow and by query', () => {
    const answers = createQueryAnswersByHistory()
    answers.set('booking-a', 'bookingView', run(7), 'a')
    answers.set('booking-b', 'bookingView', run(7), 'b')
    answers.set('booking-a', 'followUpView', run(7), 'follow-up')
    expect(answers.get('booking-a', 'bookingView', run(7))?.answer).toBe('a')
    expect(answers.get('booking-b', 'bookingView', run(7))?.answer).toBe('b')
    expect(answers.get('booking-a', 'followUpView', run(7))?.answer).toBe('follow-up')
  })

  it('keeps a null answer (a query the run does not have) as known', () => {
    const answers = createQueryAnswersByHistory()
    answers.set('booking-legacy', 'bookingView', run(3), null)
    expect(answers.get('booking-legacy', 'bookingView', run(3))).toEqual({ answer: null })
  })

  it('drops the least recently used entry past its bound', () => {
    const answers = createQueryAnswersByHistory(2)
    answers.set('a', 'q', run(1), 'a')
    answers.set('b', 'q', run(1), 'b')
    // Reading a makes b the least recently used.
    expect(answers.get('a', 'q', run(1))?.answer).toBe('a')
    answers.set('c', 'q', run(1), 'c')
    expect(answers.get('b', 'q', run(1))).toBeUndefined()
    expect(answers.get('a', 'q', run(1))?.answer).toBe('a')
    expect(answers.get('c', 'q', run(1))?.answer).toBe('c')
  })
})
