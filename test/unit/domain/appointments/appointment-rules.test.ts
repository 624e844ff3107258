import { describe, expect, it } from 'vitest'
import {
  DEFAULT_SERVICE,
  defaultService,
  overlaps,
  resolveInterval,
} from '../../../../domain/appointments/appointment-rules.ts'

const at = (iso: string) => new Date(iso)
const now = at('2026-11-21T12:00:00Z')

describe('overlaps', () => {
  const a = { startsAt: at('2026-12-01T09:00:00Z'), endsAt: at('2026-12-01T10:00:00Z') }
  it('detects intersecting intervals', () => {
    expect(overlaps(a, { startsAt: at('2026-12-01T09:30:00Z'), endsAt: at('2026-12-01T10:30:00Z') })).toBe(true)
    expect(overlaps(a, { startsAt: at('2026-12-01T08:00:00Z'), endsAt: at('2026-12-01T11:00:00Z') })).toBe(true)
  })
  it('lets back-to-back appointments through', () => {
    expect(overlaps(a, { startsAt: at('2026-12-01T10:00:00Z'), endsAt: at('2026-12-01T11:00:00Z') })).toBe(false)
    expect(overlaps(a, { startsAt: at('2026-12-01T08:00:00Z'), endsAt: at('2026-12-01T09:00:00Z') })).toBe(false)
  })
})

describe('resolveInterval', () => {
  it('defaults to 60 minutes', () => {
    const result = resolveInterval(at('2026-12-01T09:00:00Z'), undefined, now)
    expect(result).toEqual({ interval: { startsAt: at('2026-12-01T09:00:00Z'), endsAt: at('2026-12-01T10:00:00Z') } })
  })
  it('rejects the past, reversed intervals and very long ones, naming the field', () => {
    expect(resolveInterval(at('2026-11-20T09:00:00Z'), undefined, now)).toEqual({
      errors: [expect.objectContaining({ path: 'startsAt', code: 'in_past' })],
    })
    expect(resolveInterval(at('2026-12-01T09:00:00Z'), at('2026-12-01T08:00:00Z'), now)).toEqual({
      errors: [expect.objectContaining({ path: 'endsAt', code: 'before_start' })],
    })
    expect(resolveInterval(at('2026-12-01T09:00:00Z'), at('2026-12-01T18:00:01Z'), now)).toEqual({
      errors: [expect.objectContaining({ path: 'endsAt', code: 'too_long' })],
    })
  })
  it('tolerates a few minutes of client clock skew', () => {
    expect(resolveInterval(at('2026-11-21T11:57:00Z'), undefined, now)).toHaveProperty('interval')
  })
})

describe('resolveInterval with a duration', () => {
  it('derives endsAt from durationMinutes and names durationMinutes in errors', () => {
    expect(resolveInterval(at('2026-12-01T09:00:00Z'), 45, now)).toEqual({
      interval: { startsAt: at('2026-12-01T09:00:00Z'), endsAt: at('2026-12-01T09:45:00Z') },
    })
    expect(resolveInterval(at('2026-12-01T09:00:00Z'), 481, now)).toEqual({
      errors: [expect.objectContaining({ path: 'durationMinutes', code: 'too_long' })],
    })
  })
})

describe('defaultService', () => {
  it("takes the provider's first discipline", () => {
    expect(defaultService(['OCCUPATIONAL_THERAPY', 'SPEECH_THERAPY'], 'THERAPY_SESSION')).toBe('OCCUPATIONAL_THERAPY')
    expect(defaultService(['OCCUPATIONAL_THERAPY'], 'IFSP_MEETING')).toBe('OCCUPATIONAL_THERAPY')
  })
  it('falls back on the type, then on the documented default', () => {
    expect(defaultService([], 'EARLY_INTERVENTION')).toBe('EARLY_INTERVENTION')
    expect(defaultService([], 'IFSP_MEETING')).toBe('EARLY_INTERVENTION')
    expect(defaultService([], 'THERAPY_SESSION')).toBe(DEFAULT_SERVICE)
    expect(DEFAULT_SERVICE).toBe('SPEECH_THERAPY')
  })
})
