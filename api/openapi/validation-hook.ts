/**
 * @module The one validation hook: every failed request validation becomes a 400 `validation_error` problem with
 * one entry per field, whatever the route; except a path id of a shape no id has, which names nothing and is a 404
 * `not_found` like any unknown id (`domain/id-schema.ts`).
 */
import type { ZodError } from 'zod'
import { notFound, validationError } from '../../domain/errors.ts'
import { idKindOfIssue, idLabel } from '../../domain/id-schema.ts'
import { fieldErrorsOf } from '../../domain/merge-patch.ts'

type ValidationResult = { success: true } | { success: false; error: ZodError; data?: unknown; target?: string }

export function validationHook(result: ValidationResult): void {
  if (result.success) return
  const { issues } = result.error
  const first = issues[0]
  const kind = first && idKindOfIssue(first)
  // A path that names no resource: the same 404 whether the id is unknown or could not even exist.
  if (result.target === 'param' && kind && issues.every((issue) => idKindOfIssue(issue))) {
    const value = (result.data as Record<string, unknown> | undefined)?.[String(first.path[0])]
    throw notFound(idLabel(kind), String(value))
  }
  // Per-field errors as a domain parse reports them: `required`, a refinement's own `params.code`, `not_found`.
  throw validationError(fieldErrorsOf(result.error))
}
