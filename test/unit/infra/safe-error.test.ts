import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../../infra/logger.ts'
import { redactValues, safeError } from '../../../infra/safe-error.ts'

function capture() {
  const lines: string[] = []
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { lines, logger: createLogger('info', 'api', stream) }
}

describe('errors in logs', () => {
  it('lose the values their messages quote, and keep type, code and stack frames', () => {
    const driver = Object.assign(new Error(`invalid input syntax for type date: "2019-13-45"`), { code: '22007' })
    const unique = Object.assign(
      new Error(
        'duplicate key value violates unique constraint "clients_email_key"\nDETAIL: Key (email)=(maya@example.com) already exists.'
      ),
      { code: '23505' }
    )
    const prisma = new Error(
      "Invalid `prisma.child.create()` invocation:\n{\n  data: {\n    firstName: 'Maya',\n    diagnoses: ['F80.1']\n  }\n}"
    )
    const { lines, logger } = capture()
    for (const err of [driver, unique, prisma, new Error('wrapped', { cause: driver })])
      logger.error({ err }, 'unhandled error')
    logger.warn({ err: String(unique) }, 'as text')
    const all = lines.join('')
    for (const value of ['2019-13-45', 'maya@example.com', 'Maya', 'F80.1']) expect(all).not.toContain(value)
    const first = JSON.parse(lines[0]!)
    expect(first.err).toMatchObject({
      type: 'Error',
      code: '22007',
      message: 'invalid input syntax for type date: "[redacted]"',
    })
    expect(first.err.stack).toMatch(/^\s+at /)
    expect(JSON.parse(lines[3]!).err.cause).toMatchObject({ code: '22007' })
    expect(JSON.parse(lines[4]!).err.message).toContain('duplicate key value violates unique constraint')
  })

  it('keeps messages without values as they are, and bounds their length', () => {
    expect(redactValues('connect ECONNREFUSED 127.0.0.1:5432')).toBe('connect ECONNREFUSED 127.0.0.1:5432')
    expect(redactValues('x'.repeat(1000))).toHaveLength(301)
    expect(safeError({ firstName: 'Maya' })).toEqual({ type: 'object', message: '[redacted]' })
  })
})
