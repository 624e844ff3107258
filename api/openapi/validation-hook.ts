/**
 * @module The one validation hook: every failed request validation becomes a 400 `validation_error` problem with
 * one entry per field, whatever the route.
 */
import type { ZodError } from 'zod'
import { validationError, type FieldError } from '../../domain/errors.ts'

/**
 * Converts zod issues to our per-field errors; a missing field gets the code `required`, and a refinement may name
 * its own stable code in `params.code` (e.g. `invalid_language`) instead of zod's generic `custom`.
 */
export function toFieldErrors(error: ZodError): FieldError[] {
  return error.issues.map((issue) => {
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message)
    const own = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined
    return {
      path: issue.path.join('.') || '(body)',
      code: missing ? 'required' : typeof own === 'string' ? own : issue.code,
      message: missing ? 'This field is required.' : issue.message,
    }
  })
}

export function validationHook(result: { success: true } | { success: false; error: ZodError }): void {
  if (!result.success) throw validationError(toFieldErrors(result.error))
}
