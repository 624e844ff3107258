import { Writable } from 'node:stream'
import { runInNewContext } from 'node:vm'
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

  it('loses a value left open to the end of the message, an escape at its very end too', () => {
    expect(redactValues('Key (email)=(maya@example.com')).toBe('Key (email)=([redacted])')
    expect(redactValues(`name 'Maya O\\'Brien`)).toBe(`name '[redacted]'`)
    expect(redactValues('date "2019-13-45\\')).toBe('date "[redacted]"')
    // Closed ones are cut where they close, as before.
    expect(redactValues(`'Maya' and 'F80.1' for "x"`)).toBe(`'[redacted]' and '[redacted]' for "[redacted]"`)
  })

  it('keeps messages without values as they are, and bounds their length', () => {
    expect(redactValues('connect ECONNREFUSED 127.0.0.1:5432')).toBe('connect ECONNREFUSED 127.0.0.1:5432')
    expect(redactValues('x'.repeat(1000))).toHaveLength(301)
    expect(safeError({ firstName: 'Maya' })).toEqual({ type: 'object', message: '[redacted]' })
  })

  it('keep the stack and the cause chain of a logged error, values redacted at every level', () => {
    const driver = Object.assign(new Error(`Key (email)=(maya@example.com) already exists.`), { code: '23505' })
    const outer = new Error('workflow start failed', { cause: new Error("no row 'chd_1 Maya'", { cause: driver }) })
    const { lines, logger } = capture()
    logger.warn({ workflowId: 'wf-1', err: outer }, 'workflow start deferred')
    expect(lines.join('')).not.toContain('Maya')
    expect(lines.join('')).not.toContain('maya@example.com')
    const { err } = JSON.parse(lines[0]!)
    expect(err.message).toBe('workflow start failed')
    expect(err.stack).toMatch(/^\s+at .*safe-error\.test\.ts/)
    expect(err.cause.message).toBe(`no row '[redacted]'`)
    expect(err.cause.stack).toMatch(/^\s+at /)
    expect(err.cause.cause).toMatchObject({ code: '23505', message: 'Key (email)=([redacted]) already exists.' })
    expect(err.cause.cause.stack).toMatch(/^\s+at /)
  })

  it('keep the stack of an error from another realm (a vm context, as the workflow sandbox is)', () => {
    const foreign: unknown = runInNewContext(`(function fail() { try { null.x } catch (e) { return e } })()`)
    expect(foreign instanceof Error).toBe(false)
    const { lines, logger } = capture()
    logger.error({ err: foreign }, 'unhandled error')
    const { err } = JSON.parse(lines[0]!)
    expect(err.type).toBe('TypeError')
    expect(err.message).toMatch(/Cannot read properties of null/)
    expect(err.stack).toMatch(/^\s+at fail /)
  })
})
