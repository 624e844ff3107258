import { describe, expect, it } from 'vitest'

import { StatementCache, type ClientStatements } from '../../../../scripts/db/pglite-statement-cache.ts'
import { bind, closeStatement, describeStatement, execute, parse, sync } from '../../../support/wire-messages.ts'

/** What a message says, for comparing: its type and its C strings. */
const read = (m: Uint8Array) => {
  const buffer = Buffer.from(m)
  expect(buffer.readInt32BE(1)).toBe(buffer.length - 1)
  return `${String.fromCharCode(buffer[0]!)} ${buffer.subarray(5).toString('latin1').split('\0').slice(0, 2).join('|')}`
}

describe('the embedded server statement cache', () => {
  it('names the first Parse of a text and answers the next ones itself, pointing Bind at the name', () => {
    const cache = new StatementCache()
    const a: ClientStatements = {}
    const first = cache.prepare([parse('SELECT $1::int'), bind(), execute(), sync()], a)
    expect(first.parseCompleteFirst).toBe(false)
    expect(first.messages.map(read)).toEqual(['P pglite_s1|SELECT $1::int', 'B |pglite_s1', 'E |', 'S '])
    cache.settle(first, true, a)

    // Another connection, same text: no Parse reaches the backend.
    const b: ClientStatements = {}
    const again = cache.prepare([parse('SELECT $1::int'), bind(), describeStatement(), execute(), sync()], b)
    expect(again.parseCompleteFirst).toBe(true)
    expect(again.messages.map(read)).toEqual(['B |pglite_s1', 'D Spglite_s1|', 'E |', 'S '])
    // A Bind of the unnamed statement in a later exchange still finds it.
    expect(cache.prepare([bind(), execute(), sync()], b).messages.map(read)[0]).toBe('B |pglite_s1')
  })

  it('tells texts with other parameter types apart, and leaves named statements and later Parses alone', () => {
    const cache = new StatementCache()
    const client: ClientStatements = {}
    cache.settle(cache.prepare([parse('SELECT $1'), sync()], client), true, client)
    const typed = cache.prepare([parse('SELECT $1', '', [23]), sync()], client)
    expect(typed.messages.map(read)[0]).toBe('P pglite_s2|SELECT $1')
    cache.settle(typed, true, client)

    const named = cache.prepare([parse('SELECT 2', 'mine'), bind('mine'), sync()], client)
    expect(named.messages.map(read)).toEqual(['P mine|SELECT 2', 'B |mine', 'S '])
    const second = cache.prepare([bind(), parse('SELECT 3'), bind(), sync()], {})
    expect(second.messages.map(read)).toEqual(['B |', 'P |SELECT 3', 'B |', 'S '])
  })

  it('forgets a text whose Parse failed, and the client unnamed statement with it', () => {
    const cache = new StatementCache()
    const client: ClientStatements = {}
    const failed = cache.prepare([parse('SELEC 1'), bind(), sync()], client)
    cache.settle(failed, false, client)
    expect(cache.size).toBe(0)
    expect(client.unnamed).toBeUndefined()
    expect(cache.prepare([parse('SELEC 1'), sync()], client).parseCompleteFirst).toBe(false)
  })

  it('closing the unnamed statement does not deallocate the cached one', () => {
    const cache = new StatementCache()
    const client: ClientStatements = {}
    cache.settle(cache.prepare([parse('SELECT 1'), sync()], client), true, client)
    expect(cache.prepare([closeStatement(), sync()], client).messages.map(read)[0]).toBe('C S|')
    expect(client.unnamed).toBeUndefined()
    expect(cache.prepare([bind(), sync()], client).messages.map(read)[0]).toBe('B |')
  })

  it('deallocates the least recently used beyond its capacity', () => {
    const cache = new StatementCache(2)
    const client: ClientStatements = {}
    for (const sql of ['SELECT 1', 'SELECT 2']) cache.settle(cache.prepare([parse(sql), sync()], client), true, client)
    // SELECT 1 used again: SELECT 2 is now the least recently used.
    expect(cache.prepare([parse('SELECT 1'), sync()], client).parseCompleteFirst).toBe(true)
    cache.settle(cache.prepare([parse('SELECT 3'), sync()], client), true, client)
    expect(cache.takeEvicted()).toEqual(['pglite_s2'])
    expect(cache.takeEvicted()).toEqual([])
    expect(cache.size).toBe(2)
  })

  it('starts again after DDL, never prepares DDL, and forgets everything on DISCARD ALL', () => {
    const cache = new StatementCache()
    const client: ClientStatements = {}
    cache.settle(cache.prepare([parse('SELECT * FROM t'), sync()], client), true, client)
    cache.simpleQuery('-- AddColumn\nALTER TABLE t ADD COLUMN x int;')
    expect(cache.takeEvicted()).toEqual(['pglite_s1'])
    expect(cache.prepare([parse('SELECT * FROM t'), sync()], client).parseCompleteFirst).toBe(false)

    const ddl = cache.prepare([parse('CREATE INDEX i ON t (x)'), bind(), sync()], client)
    expect(ddl.messages.map(read)[0]).toBe('P |CREATE INDEX i ON t (x)')
    expect(cache.size).toBe(0)

    cache.settle(cache.prepare([parse('SELECT created_at, comment FROM t'), sync()], client), true, client)
    cache.simpleQuery("BEGIN; SELECT set_config('app.tenant_id', 'x', true)")
    expect(cache.size).toBe(1)
    cache.simpleQuery('DISCARD ALL')
    expect(cache.size).toBe(0)
    expect(cache.takeEvicted()).toEqual([])
  })
})
