import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../../../domain/canonical-json.ts'
import { addendumContentHash, noteContentHash, type SignedNoteContent } from '../../../../domain/notes/note-hash.ts'

describe('canonicalJson (RFC 8785)', () => {
  it('sorts members by UTF-16 code units at every depth and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}'
    )
    // Code-unit order, not locale order: upper case before lower case, and "\u20ac" (€) before "\ud83d\ude00" (😀).
    expect(canonicalJson({ a: 1, B: 2, '😀': 3, '€': 4 })).toBe('{"B":2,"a":1,"€":4,"😀":3}')
  })

  it('serialises numbers and strings as ECMAScript does (the RFC 8785 forms)', () => {
    expect(canonicalJson([1.0, 85.5, -0, 1e21, 0.000001, 'é\n"'])).toBe('[1,85.5,0,1e+21,0.000001,"é\\n\\""]')
  })

  it('leaves out undefined members and refuses what JSON cannot carry', () => {
    expect(canonicalJson({ a: undefined, b: 2 })).toBe('{"b":2}')
    expect(() => canonicalJson({ a: Number.NaN })).toThrow(/non-finite/)
    expect(() => canonicalJson({ at: new Date(0) })).toThrow(/plain objects/)
    expect(() => canonicalJson([undefined])).toThrow(/undefined/)
  })
})

const note: SignedNoteContent = {
  noteId: 'snt_1',
  sessionId: 'ses_1',
  subjective: 'Mother reports practice 4 of 7 days.',
  objective: {
    goals: [{ description: '/s/ initial', trials: 20, correct: 17, accuracyPercent: 85, cueingLevel: 'MINIMAL' }],
  },
  assessment: 'Progressing.',
  plan: 'Continue twice weekly.',
  signedByProviderId: 'prv_1',
  signedAt: '2026-12-01T16:00:00.000Z',
}

describe('note content hash', () => {
  it('is SHA-256 hex over the canonical JSON of exactly the signed members', () => {
    const expected = createHash('sha256').update(canonicalJson(note)).digest('hex')
    expect(noteContentHash(note)).toBe(expected)
    // An independent implementation (Python's json.dumps with sorted keys and no whitespace) gives the same digest.
    expect(noteContentHash(note)).toBe('689d6041c1bbaa66528fb58f2099816294302196fda69d2e764488c3c1b786b6')
  })

  it('does not depend on member order but changes with any content, signer or time', () => {
    const reordered = Object.fromEntries(Object.entries(note).reverse()) as unknown as SignedNoteContent
    expect(noteContentHash(reordered)).toBe(noteContentHash(note))
    const base = noteContentHash(note)
    expect(noteContentHash({ ...note, plan: 'Continue once weekly.' })).not.toBe(base)
    expect(noteContentHash({ ...note, signedByProviderId: 'prv_2' })).not.toBe(base)
    expect(noteContentHash({ ...note, signedAt: '2026-12-01T16:00:00.001Z' })).not.toBe(base)
    expect(
      noteContentHash({ ...note, objective: { goals: [{ description: '/s/ initial', trials: 20, correct: 16 }] } })
    ).not.toBe(base)
  })

  it("chains an addendum to the note's hash", () => {
    const addendum = {
      addendumId: 'nad_1',
      noteId: 'snt_1',
      noteContentHash: noteContentHash(note),
      reason: 'LATE_ENTRY',
      text: 'Ear infection reported.',
      authorType: 'client',
      authorId: 'cli_1',
      authorProviderId: null,
      createdAt: '2026-12-02T10:00:00.000Z',
    }
    const hash = addendumContentHash(addendum)
    expect(hash).toBe(createHash('sha256').update(canonicalJson(addendum)).digest('hex'))
    expect(addendumContentHash({ ...addendum, noteContentHash: '0'.repeat(64) })).not.toBe(hash)
  })
})
