/**
 * @module The operators of the Temporal codec server (docs/payload-encryption.md): each has a name and a token of its
 * own, from `CODEC_OPERATORS=<name>:<token>,<name>:<token>`, so every decode is on the audit trail under the name of
 * whoever asked. The older single `CODEC_OPERATOR_TOKEN` still works: it is an operator named `operator`. Checked at
 * boot; no message ever quotes a token.
 */
import { z } from 'zod'

/** One operator: the name its calls are recorded under, and the token that proves it. */
export interface CodecOperator {
  name: string
  token: string
}

/** The name `CODEC_OPERATOR_TOKEN` is recorded under. */
export const SHARED_OPERATOR_NAME = 'operator'

/** Long enough that guessing is hopeless: as CODEC_OPERATOR_TOKEN has always required. */
export const MIN_OPERATOR_TOKEN_LENGTH = 32

const NAME = /^[A-Za-z0-9._@-]{1,64}$/

/** What is wrong with one `<name>:<token>` entry, in words that never quote the token. */
function entryProblem(name: string, token: string, seen: readonly CodecOperator[]): string | undefined {
  if (!NAME.test(name)) return 'is not "<name>:<token>" with a name of letters, digits, ".", "_", "@" or "-"'
  if (seen.some((o) => o.name === name)) return `repeats the operator "${name}"`
  if (token.length < MIN_OPERATOR_TOKEN_LENGTH) {
    return `(operator "${name}") has a token shorter than ${MIN_OPERATOR_TOKEN_LENGTH} characters`
  }
  if (seen.some((o) => o.token === token)) return `(operator "${name}") has the token of another operator`
  return undefined
}

/**
 * Parses the operator list; empty means none.
 * @example `alice:0c8f…(32+ characters),bob:9e1d…`
 */
export const CodecOperatorsSchema = z.string().transform((value, ctx): CodecOperator[] => {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const operators: CodecOperator[] = []
  for (const [index, entry] of entries.entries()) {
    const separator = entry.indexOf(':')
    const name = separator < 0 ? '' : entry.slice(0, separator)
    const token = entry.slice(separator + 1)
    const problem = entryProblem(name, token, operators)
    if (problem) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} ${problem}` })
      return z.NEVER
    }
    operators.push({ name, token })
  }
  return operators
})

/**
 * Every operator: the named ones, and the holder of the shared token as `operator`.
 * @param config - `CODEC_OPERATORS` (parsed) and `CODEC_OPERATOR_TOKEN`
 */
export function codecOperators(config: {
  CODEC_OPERATORS?: readonly CodecOperator[] | undefined
  CODEC_OPERATOR_TOKEN?: string | undefined
}): CodecOperator[] {
  const operators = [...(config.CODEC_OPERATORS ?? [])]
  if (config.CODEC_OPERATOR_TOKEN) operators.push({ name: SHARED_OPERATOR_NAME, token: config.CODEC_OPERATOR_TOKEN })
  return operators
}
