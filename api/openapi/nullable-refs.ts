/**
 * @module A nullable reference to a named schema, said the way OpenAPI 3.1 means it. The generator renders
 * `Role.nullable()` for a registered `Role` as `allOf: [{ $ref: Role }, { type: ['string', 'null'] }]`; `allOf` means
 * both must hold, and `null` is not a `Role`, so the description forbids the `null` the API sends (Schemathesis
 * found it on `/v1/sso-connections`). Rewritten as `anyOf: [{ $ref }, { type: 'null' }]`, which is what the zod schema
 * validates, and what generated clients read as `Role | null`.
 */

type Json = unknown
type JsonObject = Record<string, Json>

const isObject = (value: Json): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `{ type: [T, 'null'] }` (or `['null']`) and nothing that constrains further: the generator's nullability marker. */
function isNullMarker(value: Json): value is JsonObject & { type: string[] } {
  if (!isObject(value) || !Array.isArray(value.type) || !value.type.includes('null')) return false
  return Object.keys(value).every((key) => key === 'type' || key === 'description')
}

/** The rewritten schema, or the same one when it is not a nullable reference. */
function rewrite(schema: JsonObject): JsonObject {
  const allOf = schema.allOf
  if (!Array.isArray(allOf) || allOf.length !== 2) return schema
  const [ref, marker] = allOf as Json[]
  if (!isObject(ref) || typeof ref.$ref !== 'string' || Object.keys(ref).length !== 1 || !isNullMarker(marker))
    return schema
  const { allOf: _replaced, ...rest } = schema
  return {
    ...rest,
    ...(marker.description === undefined ? {} : { description: marker.description }),
    anyOf: [ref, { type: 'null' }],
  }
}

/**
 * Rewrites every nullable reference in the description, in place (schemas of paths, webhooks and components alike).
 * @returns the same document
 */
export function fixNullableRefs<T>(document: T): T {
  const visit = (value: Json): Json => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = visit(value[i])
      return value
    }
    if (!isObject(value)) return value
    for (const [key, child] of Object.entries(value)) value[key] = visit(child)
    return rewrite(value)
  }
  visit(document)
  return document
}
