import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../domain/errors.ts'
import { applyMergePatch, patchFields, patchResource } from '../../../domain/merge-patch.ts'

describe('applyMergePatch (RFC 7396)', () => {
  // The examples of RFC 7396 Appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j patched with %j is %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected)
  })

  it('leaves its arguments untouched', () => {
    const target = { a: { b: 1 } }
    const patch = { a: { c: 2 } }
    applyMergePatch(target, patch)
    expect(target).toEqual({ a: { b: 1 } })
    expect(patch).toEqual({ a: { c: 2 } })
  })
})

describe('patching a resource', () => {
  const Fields = z.strictObject({
    name: z.string().min(1),
    nickname: z.string().optional(),
    tags: z.array(z.string()).default([]),
  })

  it('validates the patched record with the create schema', () => {
    expect(patchResource(Fields, { name: 'Ada', nickname: 'A' }, { nickname: null, tags: ['x'] })).toEqual({
      name: 'Ada',
      tags: ['x'],
    })
  })

  it('turns removing a required field into a per-field `required` error', () => {
    expect(patchFields(Fields, { name: 'Ada' }, { name: null })).toEqual({
      ok: false,
      errors: [{ path: 'name', code: 'required', message: 'This field is required.' }],
    })
    expect(() => patchResource(Fields, { name: 'Ada' }, { name: null })).toThrow(AppError)
  })
})
