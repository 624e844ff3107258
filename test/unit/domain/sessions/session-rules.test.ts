import { describe, expect, it } from 'vitest'
import {
  canTransition,
  sessionRecordErrors,
  totalUnits,
  type SessionRecord,
} from '../../../../domain/sessions/session-rules.ts'
import { SessionFields } from '../../../../domain/sessions/session-schema.ts'

const record = (overrides: Partial<SessionRecord>): SessionRecord => ({
  status: 'SCHEDULED',
  billingCodes: [],
  telehealth: false,
  ...overrides,
})

describe('session state machine', () => {
  it.each([
    ['SCHEDULED', 'IN_PROGRESS', true],
    ['SCHEDULED', 'COMPLETED', true],
    ['SCHEDULED', 'CANCELLED', true],
    ['IN_PROGRESS', 'COMPLETED', true],
    ['IN_PROGRESS', 'CANCELLED', false],
    ['IN_PROGRESS', 'SCHEDULED', false],
    ['COMPLETED', 'IN_PROGRESS', false],
    ['COMPLETED', 'CANCELLED', false],
    ['CANCELLED', 'SCHEDULED', false],
    ['COMPLETED', 'COMPLETED', true],
  ] as const)('%s → %s: %s', (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed)
  })
})

describe('session record consistency', () => {
  it('accepts a completed, attended, billed session', () => {
    const started = new Date('2026-12-01T15:00:00Z')
    const ended = new Date('2026-12-01T15:45:00Z')
    expect(
      sessionRecordErrors(
        record({
          status: 'COMPLETED',
          attendance: 'LATE',
          actualStartedAt: started,
          actualEndedAt: ended,
          billingCodes: [{ code: '92507', units: 1 }],
        })
      )
    ).toEqual([])
  })

  it('refuses absence on a session that took place, presence on a cancelled one, and billing a cancelled one', () => {
    expect(
      sessionRecordErrors(record({ status: 'COMPLETED', attendance: 'ABSENT_UNEXCUSED' })).map((e) => e.code)
    ).toEqual(['inconsistent_with_status'])
    expect(sessionRecordErrors(record({ status: 'CANCELLED', attendance: 'PRESENT' })).map((e) => e.path)).toEqual([
      'attendance',
    ])
    expect(
      sessionRecordErrors(
        record({ status: 'CANCELLED', attendance: 'CANCELLED_LATE', billingCodes: [{ code: '92507', units: 1 }] })
      ).map((e) => e.code)
    ).toEqual(['not_billable'])
  })

  it('refuses an end before the start, times on a session that has not started, and telehealth at the office', () => {
    const t = new Date('2026-12-01T15:00:00Z')
    expect(
      sessionRecordErrors(record({ status: 'COMPLETED', actualStartedAt: t, actualEndedAt: t })).map((e) => e.code)
    ).toEqual(['before_start'])
    expect(sessionRecordErrors(record({ status: 'SCHEDULED', actualStartedAt: t })).map((e) => e.path)).toEqual([
      'actualStartedAt',
    ])
    expect(
      sessionRecordErrors(
        record({ status: 'IN_PROGRESS', actualStartedAt: t, actualEndedAt: new Date(t.getTime() + 1) })
      ).map((e) => e.path)
    ).toEqual(['actualEndedAt'])
    expect(sessionRecordErrors(record({ telehealth: true, placeOfService: '11' })).map((e) => e.code)).toEqual([
      'inconsistent_with_telehealth',
    ])
    expect(sessionRecordErrors(record({ telehealth: true, placeOfService: '10' }))).toEqual([])
  })

  it('adds up the units of the billing lines', () => {
    expect(totalUnits([{ units: 1 }, { units: 3 }])).toBe(4)
  })
})

describe('billing code formats', () => {
  const parse = (billingCodes: unknown) => SessionFields.safeParse({ status: 'COMPLETED', billingCodes })

  it('accepts CPT Category I, II and III and HCPCS Level II codes with modifiers', () => {
    const ok = parse([
      { code: '92507', units: 1, modifiers: ['GN'] },
      { code: '97530', units: 2, modifiers: ['GO', '59'], minutes: 30 },
      { code: '0362T', units: 1 },
      { code: '1126F', units: 1 },
      { code: 'G0283', units: 1 },
    ])
    expect(ok.success).toBe(true)
    expect(ok.data?.billingCodes[2]?.modifiers).toEqual([])
  })

  it.each([
    [{ code: '9250', units: 1 }, '0.code'],
    [{ code: '925077', units: 1 }, '0.code'],
    [{ code: 'W1234', units: 1 }, '0.code'],
    [{ code: '92507', units: 0 }, '0.units'],
    [{ code: '92507', units: 1.5 }, '0.units'],
    [{ code: '92507', units: 97 }, '0.units'],
    [{ code: '92507', units: 1, modifiers: ['gn'] }, '0.modifiers.0'],
    [{ code: '92507', units: 1, modifiers: ['GN', 'GN'] }, '0.modifiers'],
    [{ code: '92507', units: 1, modifiers: ['GN', 'GO', 'GP', '59', 'KX'] }, '0.modifiers'],
  ])('refuses %j', (line, path) => {
    const result = parse([line])
    expect(result.success).toBe(false)
    expect(result.error!.issues.map((i) => i.path.slice(1).join('.'))).toContain(path)
  })

  it('refuses the same code with the same modifiers twice', () => {
    const result = parse([
      { code: '97530', units: 1, modifiers: ['GO', '59'] },
      { code: '97530', units: 2, modifiers: ['59', 'GO'] },
    ])
    expect(result.error!.issues.map((i) => i.message)).toContain(
      'The same code with the same modifiers appears twice: add the units to one line.'
    )
  })
})
