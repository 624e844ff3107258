/**
 * @module Canonical JSON for hashing, the one scheme of the code base: the JSON Canonicalization Scheme (RFC 8785)
 * for the values we hash — object members sorted by their UTF-16 code units, no insignificant whitespace, strings and
 * numbers serialised as ECMAScript's JSON.stringify does (which is what RFC 8785 specifies for them). Signed notes
 * (notes/note-hash.ts) and the audit hash chain (audit/audit-hash.ts) hash it, and anyone can recompute either hash
 * with any RFC 8785 library, in any language. The audit chain hashed `JSON.stringify` of its fields in sorted order
 * before it used this module. The two differ in general (JavaScript lists array-index names such as "9" first, and
 * JSON.stringify writes NaN as null), but not for its records: fixed non-index names, strings, finite numbers and
 * nulls give the same bytes (test/unit/domain/canonical-json.test.ts checks it on many generated records), so every
 * stored chain verifies.
 */

/** A JSON value (what a canonical form exists for). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/**
 * The canonical serialisation of a JSON value.
 * @param value - plain JSON data; `undefined` members of objects are left out, as JSON.stringify does
 * @returns the RFC 8785 string
 * @throws Error for non-finite numbers and for values JSON cannot represent (functions, symbols, bigints, undefined
 *   at the top level or in an array), which would otherwise hash to something a verifier cannot reproduce
 */
export function canonicalJson(value: unknown): string {
  if (value === null) return 'null'
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false'
    case 'string':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new Error('canonical JSON has no representation for a non-finite number')
      // ECMAScript's Number-to-String is the RFC 8785 number form (and -0 serialises as 0).
      return JSON.stringify(value)
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value
          .map((item) => {
            if (item === undefined) throw new Error('canonical JSON has no representation for undefined in an array')
            return canonicalJson(item)
          })
          .join(',')}]`
      }
      const prototype: unknown = Object.getPrototypeOf(value)
      if (prototype !== Object.prototype && prototype !== null) {
        throw new Error('canonical JSON takes plain objects only (convert dates to strings first)')
      }
      const members = Object.entries(value as Record<string, unknown>)
        .filter(([, member]) => member !== undefined)
        // Default sort compares UTF-16 code units, exactly RFC 8785 §3.2.3.
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`)
      return `{${members.join(',')}}`
    }
    default:
      throw new Error(`canonical JSON has no representation for a ${typeof value}`)
  }
}
