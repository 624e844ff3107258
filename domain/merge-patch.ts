/**
 * @module JSON merge patch (RFC 7396), the body of every PATCH (docs/conventions.md): members of the patch replace the
 * target's, `null` removes a member, objects merge recursively and everything else (arrays included) is replaced
 * whole. `patchResource` applies one to a resource's writable fields and validates the result with the same schema
 * that validates a create, so a PATCH can never leave a record that a POST would have refused.
 */
import { z } from '@hono/zod-openapi'
import { validationError, type FieldError } from './errors.ts'
import { idKindOfIssue } from './id-schema.ts'
import { orNull } from './nullable.ts'

/** A JSON object. */
export type JsonObject = { [key: string]: unknown }

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Applies `patch` to `target` as RFC 7396 §2 describes. Neither argument is modified.
 * @param target - the current document
 * @param patch - the merge patch
 * @returns the patched document
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const result: JsonObject = isObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key]
    else result[key] = applyMergePatch(result[key], value)
  }
  return result
}

/**
 * Per-field errors of a failed zod parse, each path prefixed by `prefix`. A missing field has the code `required`, as
 * in the request validation hook; a refinement names its own code in `params.code`; an id of a shape no id has is
 * `not_found`, as an unknown id of the right shape is (`id-schema.ts`).
 */
export function fieldErrorsOf(error: z.ZodError, prefix = ''): FieldError[] {
  return error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.') || '(body)'
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message)
    if (missing) return { path, code: 'required', message: 'This field is required.' }
    if (idKindOfIssue(issue)) return { path, code: 'not_found', message: issue.message }
    const own = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined
    return { path, code: typeof own === 'string' ? own : issue.code, message: issue.message }
  })
}

/** The outcome of patching: the validated fields, or every error the patched record would have. */
export type PatchOutcome<T> = { ok: true; data: T } | { ok: false; errors: FieldError[] }

/**
 * Patches a resource's writable fields and validates the outcome.
 * @param schema - the schema of the writable fields (the create schema without server-managed parts)
 * @param current - the writable fields as they are now, optional ones absent rather than null
 * @param patch - the merge patch (already checked member by member by the route)
 */
export function patchFields<S extends z.ZodType>(
  schema: S,
  current: JsonObject,
  patch: JsonObject
): PatchOutcome<z.output<S>> {
  const parsed = schema.safeParse(applyMergePatch(current, patch))
  return parsed.success ? { ok: true, data: parsed.data } : { ok: false, errors: fieldErrorsOf(parsed.error) }
}

/**
 * {@link patchFields}, throwing on a record that would be invalid.
 * @throws AppError `validation_error` naming every field the patched record would get wrong
 */
export function patchResource<S extends z.ZodType>(schema: S, current: JsonObject, patch: JsonObject): z.output<S> {
  const outcome = patchFields(schema, current, patch)
  if (!outcome.ok) throw validationError(outcome.errors)
  return outcome.data
}

/**
 * The object without its null and undefined members: how a row's optional columns look as a merge-patch target.
 * @param value - e.g. the writable fields of a row
 */
export function withoutNulls(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined))
}

/** A member's schema without `.optional()` and `.default()`: a patch leaves out what it does not change. */
function bare(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodDefault) return bare(schema.unwrap() as z.ZodType)
  return schema
}

/**
 * The merge-patch form of an object schema, for a PATCH body: every member optional, `null` allowed (it removes the
 * member) except for the `required` ones, defaults dropped (a default would overwrite the stored value of a member
 * the patch leaves out), and object-level refinements dropped (they hold for the patched record, checked by
 * {@link patchFields}). Nested objects that merge get their own merge-patch schema through `nested`.
 * @param object - the schema of the writable fields
 */
export function mergePatchSchema(
  object: z.ZodObject,
  options: { required?: readonly string[]; nested?: Record<string, z.ZodType> } = {}
): z.ZodObject {
  const shape = Object.fromEntries(
    Object.entries(object.shape).map(([key, member]) => {
      const base = options.nested?.[key] ?? bare(member as z.ZodType)
      return [key, options.required?.includes(key) ? base.optional() : orNull(base).optional()]
    })
  )
  return z.strictObject(shape)
}
