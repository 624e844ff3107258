/**
 * @module The Porter stemming algorithm (M. F. Porter, "An algorithm for suffix stripping", 1980), as published at
 * https://tartarus.org/martin/PorterStemmer/: "cancellation", "cancelled" and "cancels" all become "cancel", so the
 * offline embeddings match a question to a passage whatever inflection either uses. Pure and deterministic.
 */

const isConsonantAt = (word: string, i: number): boolean => {
  const c = word[i]
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false
  if (c === 'y') return i === 0 ? true : !isConsonantAt(word, i - 1)
  return true
}

/** m, the number of vowel-consonant sequences in `stem` ([C](VC)^m[V]). */
function measure(stem: string): number {
  let m = 0
  let i = 0
  const n = stem.length
  while (i < n && isConsonantAt(stem, i)) i++
  while (i < n) {
    while (i < n && !isConsonantAt(stem, i)) i++
    if (i >= n) break
    m++
    while (i < n && isConsonantAt(stem, i)) i++
  }
  return m
}

const hasVowel = (stem: string) => [...stem].some((_, i) => !isConsonantAt(stem, i))

const endsDoubleConsonant = (w: string) =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonantAt(w, w.length - 1)

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string) => {
  const n = w.length
  if (n < 3) return false
  const last = w[n - 1]!
  return isConsonantAt(w, n - 3) && !isConsonantAt(w, n - 2) && isConsonantAt(w, n - 1) && !'wxy'.includes(last)
}

/** Replaces the first matching suffix whose stem satisfies `condition`; returns the word unchanged otherwise. */
function replaceSuffix(word: string, rules: ReadonlyArray<readonly [string, string]>, minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, -suffix.length)
      return measure(stem) > minMeasure ? stem + replacement : word
    }
  }
  return word
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
]
const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]
const STEP4 = [
  'al',
  'ance',
  'ence',
  'er',
  'ic',
  'able',
  'ible',
  'ant',
  'ement',
  'ment',
  'ent',
  'ion',
  'ou',
  'ism',
  'ate',
  'iti',
  'ous',
  'ive',
  'ize',
]

function step1ab(w: string): string {
  if (w.endsWith('sses')) w = w.slice(0, -2)
  else if (w.endsWith('ies')) w = w.slice(0, -2)
  else if (!w.endsWith('ss') && w.endsWith('s')) w = w.slice(0, -1)

  if (w.endsWith('eed')) {
    return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w
  }
  for (const suffix of ['ed', 'ing']) {
    if (w.endsWith(suffix) && hasVowel(w.slice(0, -suffix.length))) {
      w = w.slice(0, -suffix.length)
      if (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz')) return `${w}e`
      if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) return w.slice(0, -1)
      if (measure(w) === 1 && endsCvc(w)) return `${w}e`
      return w
    }
  }
  return w
}

const step1c = (w: string) => (w.endsWith('y') && hasVowel(w.slice(0, -1)) ? `${w.slice(0, -1)}i` : w)

function step4(w: string): string {
  for (const suffix of STEP4) {
    if (!w.endsWith(suffix)) continue
    const stem = w.slice(0, -suffix.length)
    if (suffix === 'ion' && !/[st]$/.test(stem)) return w
    return measure(stem) > 1 ? stem : w
  }
  return w
}

function step5(w: string): string {
  if (w.endsWith('e')) {
    const stem = w.slice(0, -1)
    const m = measure(stem)
    if (m > 1 || (m === 1 && !endsCvc(stem))) w = stem
  }
  if (measure(w) > 1 && endsDoubleConsonant(w) && w.endsWith('l')) w = w.slice(0, -1)
  return w
}

/**
 * The Porter stem of a lower-case word. Words of one or two letters and anything with a digit come back unchanged.
 * @param word - lower-case letters
 */
export function porterStem(word: string): string {
  if (word.length <= 2 || /[^a-z]/.test(word)) return word
  let w = step1ab(word)
  w = step1c(w)
  w = replaceSuffix(w, STEP2, 0)
  w = replaceSuffix(w, STEP3, 0)
  w = step4(w)
  return step5(w)
}
