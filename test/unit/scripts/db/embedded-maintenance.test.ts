import { describe, expect, it } from 'vitest'
import { maintenanceDue, type TableActivity } from '../../../../scripts/db/embedded-maintenance.ts'

const table = (activity: Partial<TableActivity>): TableActivity => ({
  schema: 'public',
  table: 't',
  live: 0,
  dead: 0,
  modified: 0,
  inserted: 0,
  ...activity,
})

describe('maintenanceDue', () => {
  it('takes a table as autovacuum would, by its default thresholds', () => {
    // 1,000 live rows: vacuum above 250 dead (50 + 20 %), analyse above 150 changed (50 + 10 %).
    expect(maintenanceDue([table({ live: 1000, dead: 250, modified: 150 })])).toEqual([])
    expect(maintenanceDue([table({ live: 1000, dead: 251 })])).toEqual([
      { schema: 'public', table: 't', vacuum: true, analyze: false },
    ])
    expect(maintenanceDue([table({ live: 1000, modified: 151 })])).toEqual([
      { schema: 'public', table: 't', vacuum: false, analyze: true },
    ])
    expect(maintenanceDue([table({ live: 1000, dead: 400, modified: 400 })])).toEqual([
      { schema: 'public', table: 't', vacuum: true, analyze: true },
    ])
  })

  it('vacuums an append-only table for its visibility map, and reads the counts PostgreSQL sends as text', () => {
    expect(maintenanceDue([table({ live: '10000', inserted: '3000' })])).toEqual([])
    expect(maintenanceDue([table({ table: 'audit', live: '10000', inserted: '3001' })])).toEqual([
      { schema: 'public', table: 'audit', vacuum: true, analyze: false },
    ])
  })

  it('leaves an unchanged table alone, whatever its size', () => {
    expect(maintenanceDue([table({ live: 5_000_000 }), table({ table: 'empty' })])).toEqual([])
  })
})
