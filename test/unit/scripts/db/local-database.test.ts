import { describe, expect, it } from 'vitest'
import { describeDatabaseUrl } from '../../../../scripts/db/local-database.ts'

describe('describeDatabaseUrl', () => {
  it('names a PostgreSQL server by user, host, port and database, never its password or parameters', () => {
    expect(describeDatabaseUrl('postgresql://therapy:s3cret@db.internal:6432/care?sslmode=require')).toBe(
      'PostgreSQL server therapy@db.internal:6432/care (DATABASE_URL)'
    )
    expect(describeDatabaseUrl('postgres://127.0.0.1/care')).toBe(
      'PostgreSQL server 127.0.0.1:5432/care (DATABASE_URL)'
    )
  })

  it('says only where it came from when the URL does not parse', () => {
    expect(describeDatabaseUrl('not a url')).toBe('PostgreSQL server (DATABASE_URL, not a URL this summary can read)')
  })
})
