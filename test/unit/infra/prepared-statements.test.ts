/**
 * Which raw statements go to PostgreSQL as named (prepared) ones (infra/db.ts): only those marked `-- prepared:
 * <name>` on their first line, each text under a name of its own.
 */
import { describe, expect, it } from 'vitest'
import { preparedStatementName } from '../../../infra/db.ts'

describe('prepared statement names', () => {
  it('names a marked statement by its marker and a hash of its text', () => {
    const claim = '-- prepared: webhook-claim\n    WITH RECURSIVE due AS (SELECT $1::int)'
    expect(preparedStatementName(claim)).toMatch(/^webhook-claim-[0-9a-f]{12}$/)
    expect(preparedStatementName(claim)).toBe(preparedStatementName(claim))
    // Another text under the same marker is another statement: a connection refuses one name for two texts.
    expect(preparedStatementName(`${claim} -- changed`)).not.toBe(preparedStatementName(claim))
  })

  it('leaves every other statement unnamed, planned each time', () => {
    for (const sql of [
      'SELECT 1',
      'WITH r AS (SELECT 1) SELECT * FROM r',
      // The marker counts only at the start, alone on its line.
      'SELECT 1 -- prepared: webhook-claim\n',
      '-- prepared: webhook-claim SELECT 1',
      '-- Prepared: Webhook\nSELECT 1',
    ]) {
      expect(preparedStatementName(sql)).toBeUndefined()
    }
  })
})
