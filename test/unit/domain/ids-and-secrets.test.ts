import { describe, expect, it } from 'vitest'
import { newId, uuidv7 } from '../../../domain/ids.ts'
import { decodeCursor, encodeCursor, toPage } from '../../../domain/pagination.ts'
import { generateSecret, hashSecret, verifySecret } from '../../../domain/auth/secrets.ts'

describe('ids', () => {
  it('are UUIDv7s under a type prefix, ordered by creation time', () => {
    expect(uuidv7(0x0190_0000_0000)).toMatch(/^01900000-0000-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    const earlier = newId('appointment')
    const later = `apt_${uuidv7(Date.now() + 10).replace(/-/g, '')}`
    expect(earlier).toMatch(/^apt_[0-9a-f]{32}$/)
    expect(earlier < later).toBe(true)
  })

  it('carry the time in their first 48 bits and 74 random bits after the version and variant', () => {
    const now = 0x0193_c1a2_b3c4
    const ids = Array.from({ length: 2000 }, () => uuidv7(now))
    for (const id of ids) expect(id).toMatch(/^0193c1a2-b3c4-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(ids.length)
    // Every random hex digit takes more than one value across the sample: none is fixed by the construction.
    const randomDigits = [15, 16, 17, 20, 21, 22, ...Array.from({ length: 12 }, (_, i) => 24 + i)]
    for (const at of randomDigits) expect(new Set(ids.map((id) => id[at])).size, `digit ${at}`).toBeGreaterThan(8)
  })
})

describe('pagination', () => {
  it('round-trips cursors and rejects foreign ones', () => {
    expect(decodeCursor(encodeCursor('prv_1'))).toBe('prv_1')
    expect(decodeCursor('not-a-cursor')).toBeUndefined()
  })
  it('builds a page with a next cursor only when more rows exist', () => {
    const rows = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
    expect(toPage(rows, 2)).toEqual({ data: [{ id: 'a' }, { id: 'b' }], nextCursor: encodeCursor('b') })
    expect(toPage(rows, 3)).toEqual({ data: rows, nextCursor: null })
  })
})

describe('secrets', () => {
  it('have 256 random bits and verify only against their own hash', () => {
    const secret = generateSecret('cs')
    expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/)
    expect(verifySecret(secret, hashSecret(secret))).toBe(true)
    expect(verifySecret(`${secret}x`, hashSecret(secret))).toBe(false)
    expect(generateSecret('cs')).not.toBe(secret)
  })
})
