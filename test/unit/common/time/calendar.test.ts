/**
 * The one calendar module (common/time/calendar.ts, issue 79 item 5): its arithmetic, and that no other production
 * file writes the length of a day or its own date arithmetic again (they had it in 5 constants, 3 `addDays` and 30
 * literals).
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { addDays, DAY_MS, mondayOf } from '../../../../common/time/calendar.ts'

const ROOT = path.resolve(import.meta.dirname, '../../../..')
const PRODUCTION = ['adapters', 'api', 'activities', 'common', 'domain', 'infra', 'worker', 'workflows', 'scripts']
const HOME = 'common/time/'

function* sources(folder: string): Generator<string> {
  for (const entry of readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`
    if (entry.isDirectory()) yield* sources(relative)
    else if (/\.(ts|mjs)$/.test(entry.name)) yield relative
  }
}

describe('the calendar module', () => {
  it('counts days, and a week from its Monday', () => {
    expect(DAY_MS).toBe(24 * 60 * 60 * 1000)
    expect(addDays('2026-02-27', 2)).toBe('2026-03-01')
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28')
    expect(mondayOf('2026-11-29')).toBe('2026-11-23') // a Sunday
    expect(mondayOf('2026-11-23')).toBe('2026-11-23')
    expect(mondayOf('2027-01-01')).toBe('2026-12-28') // across a year
  })

  it('is the only production file that writes the length of a day or adds days to a date', () => {
    const found: string[] = []
    for (const file of PRODUCTION.flatMap((folder) => [...sources(folder)])) {
      if (file.startsWith(HOME)) continue
      const text = readFileSync(path.join(ROOT, file), 'utf8')
      if (/\b86_?400_?000\b|\b24 \* 60 \* 60 \* 1000\b/.test(text)) found.push(`${file}: the length of a day`)
      if (/\b(function|const) addDays\b/.test(text)) found.push(`${file}: addDays`)
      if (/\b(function|const) (mondayOf|daysBetween|REAL_DAY_MS|DAY|DAY_MS)\b/.test(text))
        found.push(`${file}: its own day`)
    }
    expect(found).toEqual([])
  })
})
