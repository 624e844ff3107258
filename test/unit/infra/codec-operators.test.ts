/**
 * Named codec operators (issue 54): `CODEC_OPERATORS=<name>:<token>,...` gives each operator a token of their own, the
 * older `CODEC_OPERATOR_TOKEN` is the operator `operator`, and a bad list stops the boot without quoting a token.
 */
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { codecOperators } from '../../../infra/codec-operators.ts'
import { loadConfig } from '../../../infra/config.ts'

const base = { DATABASE_URL: 'postgresql://u:p@localhost:5432/db' }
const token = () => randomBytes(32).toString('base64url')

/** The message of the error `loadConfig` throws, or '' when it accepts the environment. */
function configError(env: Record<string, string>): string {
  try {
    loadConfig({ ...base, ...env })
    return ''
  } catch (error) {
    return String(error)
  }
}

describe('CODEC_OPERATORS', () => {
  it('names each operator, and keeps the shared token working as the operator "operator"', () => {
    const [alice, bob, shared] = [token(), token(), token()]
    const config = loadConfig({
      ...base,
      CODEC_OPERATORS: ` alice:${alice} , bob:${bob}`,
      CODEC_OPERATOR_TOKEN: shared,
    })
    expect(codecOperators(config)).toEqual([
      { name: 'alice', token: alice },
      { name: 'bob', token: bob },
      { name: 'operator', token: shared },
    ])
    expect(codecOperators(loadConfig({ ...base, CODEC_OPERATOR_TOKEN: shared }))).toEqual([
      { name: 'operator', token: shared },
    ])
    expect(codecOperators(loadConfig({ ...base, CODEC_OPERATORS: '' }))).toEqual([])
    expect(codecOperators(loadConfig(base))).toEqual([])
  })

  it('stops the boot on a malformed entry, a short or repeated token or a repeated name, never quoting a token', () => {
    const [a, short] = [token(), 'x'.repeat(31)]
    const cases: Array<[string, RegExp]> = [
      [`${a}`, /entry 1 is not "<name>:<token>"/],
      [`al ice:${a}`, /entry 1 is not "<name>:<token>"/],
      [`alice:${short}`, /entry 1 \(operator "alice"\) has a token shorter than 32/],
      [`alice:${a},alice:${token()}`, /entry 2 repeats the operator "alice"/],
      [`alice:${a},bob:${a}`, /entry 2 \(operator "bob"\) has the token of another operator/],
    ]
    for (const [value, problem] of cases) {
      const message = configError({ CODEC_OPERATORS: value })
      expect(message).toMatch(problem)
      expect(message).not.toContain(a)
      expect(message).not.toContain(short)
    }
    const shared = token()
    for (const value of [`operator:${token()}`, `alice:${shared}`]) {
      const message = configError({ CODEC_OPERATORS: value, CODEC_OPERATOR_TOKEN: shared })
      expect(message).toMatch(/CODEC_OPERATORS: names "operator" or holds CODEC_OPERATOR_TOKEN/)
      expect(message).not.toContain(shared)
    }
  })
})
