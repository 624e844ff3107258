/**
 * @module Sentences of a passage with their offsets, for quoting: the extractive answerer quotes whole sentences,
 * and a citation's offsets must point at them in the document. A line break ends a sentence only where it ends a
 * list item, a table row or a line that ends in punctuation; elsewhere (PDF text wraps lines mid-sentence) it is
 * just a space.
 */

export interface Sentence {
  start: number
  end: number
  text: string
}

const ABBREVIATIONS = /(?:\b(?:e\.g|i\.e|etc|dr|mr|mrs|ms|jr|sr|st|no|vs|approx|a\.m|p\.m)\.)$/i
const LIST_ITEM = /^\s*(?:[-*\u2022]|\d+[.)]|\|)\s*/
const LINE_END_BREAK = /[.!?:;]["')\]]?\s*$/

/** Trims a span to its text, and past a list marker: the quote is the item's words. */
function trimmed(text: string, start: number, end: number): Sentence | undefined {
  let s = start
  let e = end
  while (s < e && /\s/.test(text[s]!)) s++
  while (e > s && /\s/.test(text[e - 1]!)) e--
  const marker = /^(?:[-*\u2022]|\d+[.)])\s+/.exec(text.slice(s, e))
  if (marker) s += marker[0].length
  if (!/[\p{L}\p{N}]/u.test(text.slice(s, e))) return undefined
  return { start: s, end: e, text: text.slice(s, e) }
}

/**
 * Splits a passage into sentences.
 * @returns sentences in order; `text.slice(start, end) === sentence.text`
 */
export function splitSentences(text: string): Sentence[] {
  const sentences: Sentence[] = []
  let start = 0
  const push = (end: number) => {
    const sentence = trimmed(text, start, end)
    if (sentence) sentences.push(sentence)
    start = end
  }
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === '\n') {
      const line = text.slice(text.lastIndexOf('\n', i - 1) + 1, i)
      const nextLine = text.slice(i + 1, text.indexOf('\n', i + 1) < 0 ? text.length : text.indexOf('\n', i + 1))
      const breaks =
        !line.trim() ||
        !nextLine.trim() ||
        LINE_END_BREAK.test(line) ||
        LIST_ITEM.test(nextLine) ||
        LIST_ITEM.test(line) ||
        /^\s*#/.test(nextLine)
      if (breaks) push(i + 1)
      continue
    }
    if (c === '.' || c === '!' || c === '?') {
      let j = i + 1
      while (j < text.length && /["')\]]/.test(text[j]!)) j++
      const after = text.slice(j, j + 8)
      if (
        /^[ \t]+["'(]?[A-Z0-9]/.test(after) &&
        !(c === '.' && ABBREVIATIONS.test(text.slice(Math.max(0, i - 6), i + 1)))
      ) {
        push(j)
      }
    }
  }
  push(text.length)
  return sentences
}
