/**
 * @module Languages as BCP 47 tags in their canonical form (`es-MX`, `zh-Hant-TW`), so `ES-mx` and `es-MX` are one
 * language and filters compare strings. A filter for a language matches it and its regional variants: `es` finds
 * providers who list `es` or `es-MX` (domain/availability/schedule-queries.ts `speaksSql`).
 */

/**
 * The canonical form of a BCP 47 tag, or undefined when it is not one.
 * @param tag - e.g. `es-mx`
 */
export function canonicalLanguage(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag)
    return canonical
  } catch {
    return undefined
  }
}
