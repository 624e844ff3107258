/**
 * @module How an error appears in a log line. A driver's or ORM's message often quotes the values it was given
 * ("invalid input syntax for type date: '2019-13-45'", "Key (email)=(maya@example.com) already exists", Prisma's
 * invocation dump with the arguments): values that can be a child's name, date of birth or diagnosis. Logs carry ids
 * only (docs/conventions.md), so every quoted or bracketed value is replaced before the line is written; the error's type,
 * code and stack frames, which are what an operator debugs with, stay.
 */

/** What a logged error keeps. */
export interface SafeError {
  type: string
  message: string
  code?: string
  stack?: string
  cause?: SafeError
}

const REDACTED = '[redacted]'
/** Quoted values, `Key (column)=(value)` details and anything after the driver's "DETAIL:" or an argument dump. */
const VALUE_PATTERNS: Array<[RegExp, string]> = [
  [/(DETAIL|Detail|detail):[\s\S]*$/, `$1: ${REDACTED}`],
  // A value left open (no closing bracket or quote, or a last escape with nothing after it) is a value to the end of the
  // message: every match that starts succeeds, rather than failing and being tried again from every later bracket or
  // quote, which kept them quadratic in the message (issue 59: a wall-clock bound on that failed on a loaded machine).
  [/=\([^)]*(?:\)|$)/g, `=(${REDACTED})`],
  [/'(?:[^'\\]|\\(?:[\s\S]|$))*(?:'|$)/g, `'${REDACTED}'`],
  [/"(?:[^"\\]|\\(?:[\s\S]|$))*(?:"|$)/g, `"${REDACTED}"`],
  [/`(?:[^`\\]|\\(?:[\s\S]|$))*(?:`|$)/g, `\`${REDACTED}\``],
  // Prisma's "Invalid `prisma.x.create()` invocation:" is followed by the call's arguments.
  [/(invocation[^:\n]*:)[\s\S]*$/, `$1 ${REDACTED}`],
]
const MAX_MESSAGE = 300
/**
 * What the patterns read of a message: the argument dump's pattern is not linear in a message a caller can fill
 * (test/unit/infra/regex-audit.test.ts); bounded, that is a few milliseconds at worst.
 */
const MAX_REDACTED_INPUT = 4096

/** The message with every value that could be health information replaced. */
export function redactValues(message: string): string {
  const cut = message.length > MAX_REDACTED_INPUT
  let safe = cut ? message.slice(0, MAX_REDACTED_INPUT) : message
  for (const [pattern, replacement] of VALUE_PATTERNS) safe = safe.replace(pattern, replacement)
  // A quoted value the cut left open is a value too: everything from its quote on goes.
  if (cut) safe = safe.replace(/['"`][^'"`]*$/, REDACTED)
  return safe.length > MAX_MESSAGE ? `${safe.slice(0, MAX_MESSAGE)}…` : safe
}

/**
 * Whether a value is an error, from this realm or another: errors thrown inside a `vm` context (the Temporal workflow
 * sandbox) or by a WASM host are not `instanceof` this realm's `Error`, and would otherwise be logged as `[redacted]`
 * with no stack at all.
 */
function isErrorLike(value: unknown): value is Error {
  if (value instanceof Error) return true
  if (typeof value !== 'object' || value === null) return false
  const { name, message, stack } = value as Partial<Record<'name' | 'message' | 'stack', unknown>>
  return typeof name === 'string' && typeof message === 'string' && typeof stack === 'string'
}

/**
 * An error as a log line may show it: type, code, the message without values, the stack's frames (not its first
 * line, which repeats the message) and, a few levels deep, its cause. Log the error itself (`{ err: error }`), not
 * `String(error)`: a string has no stack and no cause left to keep.
 */
export function safeError(error: unknown, depth = 0): SafeError {
  // A string is all some callers have: the same rules apply to the text.
  if (typeof error === 'string') return { type: 'string', message: redactValues(error) }
  if (!isErrorLike(error)) return { type: typeof error, message: REDACTED }
  const code = (error as { code?: unknown }).code
  const frames = error.stack
    ?.split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n')
  const cause = (error as { cause?: unknown }).cause
  return {
    type: error.name,
    message: redactValues(error.message),
    ...(typeof code === 'string' || typeof code === 'number' ? { code: String(code) } : {}),
    ...(frames ? { stack: frames } : {}),
    ...(cause !== undefined && depth < 3 ? { cause: safeError(cause, depth + 1) } : {}),
  }
}
