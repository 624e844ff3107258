/**
 * The id patterns the description declares (domain/id-schema.ts): every id the API issues matches its kind's pattern
 * and no other, and a value of another shape is refused as `not_found`, as an unknown id is: a 404 in a path, a 400
 * field error in a body.
 */
import { z } from '@hono/zod-openapi'
import { describe, expect, it } from 'vitest'
import { validationHook } from '../../../api/openapi/validation-hook.ts'
import { AppError } from '../../../domain/errors.ts'
import { ID_PREFIXES, type IdKind } from '../../../domain/id-prefixes.ts'
import { exampleId, idKindOfPattern, idLabel, idPattern, resourceId } from '../../../domain/id-schema.ts'
import { newId } from '../../../domain/ids.ts'

const KINDS = Object.keys(ID_PREFIXES) as IdKind[]

const thrownBy = (run: () => void): AppError => {
  try {
    run()
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('nothing was thrown')
}

describe('id patterns', () => {
  it('match every id the API issues, of their kind only, and their own documented example', () => {
    for (const kind of KINDS) {
      const id = newId(kind)
      expect(id).toMatch(idPattern(kind))
      expect(exampleId(kind)).toMatch(idPattern(kind))
      const others = KINDS.filter((other) => other !== kind && idPattern(other).test(id))
      expect(others, `${id} also matches`).toEqual([])
    }
  })

  it('refuse what no id looks like: another prefix, upper case, dashes, a short or long body, padding', () => {
    const child = idPattern('child')
    const body = newId('child').slice(4)
    for (const value of [
      `prv_${body}`,
      `chd_${body.toUpperCase()}`,
      `chd_${body.slice(0, 8)}-${body.slice(8)}`,
      `chd_${body.slice(1)}`,
      `chd_${body}0`,
      ` chd_${body}`,
      'chd_missing',
      '',
    ]) {
      expect(child.test(value), value).toBe(false)
    }
  })

  it('are read back from the description: the pattern names its kind', () => {
    expect(idKindOfPattern('^chd_[0-9a-f]{32}$')).toBe('child')
    expect(idKindOfPattern('^kdoc_[0-9a-f]{32}$')).toBe('knowledgeDocument')
    expect(idKindOfPattern('^[A-Z]{3}$')).toBeUndefined()
    expect(idKindOfPattern(undefined)).toBeUndefined()
  })

  it('name kinds as people do', () => {
    expect(idLabel('customFieldDefinition')).toBe('custom field definition')
    expect(idLabel('apiKey')).toBe('API key')
    expect(idLabel('child')).toBe('child')
  })
})

describe('an id that cannot exist', () => {
  const Params = z.object({ id: resourceId('child') })
  const Body = z.object({ childId: resourceId('child'), note: z.string().max(3) })

  it('in a path is a 404 not_found, as an unknown id is', () => {
    const data = { id: 'chd_missing' }
    const parsed = Params.safeParse(data)
    expect(parsed.success).toBe(false)
    const error = thrownBy(() => validationHook({ ...parsed, data, target: 'param' } as never))
    expect({ status: error.status, code: error.code, detail: error.message }).toEqual({
      status: 404,
      code: 'not_found',
      detail: 'No child with id "chd_missing".',
    })
  })

  it('in a body is a 400 field error with the code not_found, beside the other field errors', () => {
    const data = { childId: 'chd_missing', note: 'too long' }
    const parsed = Body.safeParse(data)
    const error = thrownBy(() => validationHook({ ...parsed, data, target: 'json' } as never))
    expect(error.status).toBe(400)
    expect(error.errors?.map((e) => `${e.path}:${e.code}`)).toEqual(['childId:not_found', 'note:too_big'])
  })
})
