/**
 * @module Synthetic distractor documents for the latency benchmark: plausible centre paperwork (meeting notes,
 * newsletters, staff memos) generated from a fixed seed, so an assistant can hold 5,000 chunks of text that reads
 * like the corpus without answering its questions. They share the corpus's vocabulary on purpose: retrieval must
 * still find the right passage among many near misses.
 */

const SUBJECTS = [
  'The speech team',
  'The occupational therapy team',
  'Our front desk',
  'The early intervention team',
  'The practice manager',
  'The clinical director',
  'Each therapist',
  'The parent committee',
  'The board',
  'The feeding clinic team',
]
const VERBS = [
  'reviewed',
  'discussed',
  'updated',
  'planned',
  'shared',
  'welcomed',
  'trialled',
  'collected feedback on',
  'reorganised',
  'celebrated',
]
const OBJECTS = [
  'the new sensory room',
  'the summer newsletter',
  'waitlist numbers',
  'the staff rota',
  'training in visual supports',
  'the toy library',
  'progress report templates',
  'the garden project',
  'parking signs on the side street',
  'the fundraising raffle',
  'storage in the studio',
  'the volunteer programme',
  'coffee mornings for carers',
  'the reading corner',
  'new chairs for the waiting room',
]
const TAILS = [
  'at the monthly meeting',
  'before the end of term',
  'with families who volunteered',
  'after several requests',
  'as part of the annual plan',
  'during the staff training day',
  'with help from local schools',
  'to make visits calmer',
  "following last year's survey",
  'in a short presentation',
]
const KINDS = ['Meeting notes', 'Newsletter', 'Staff memo', 'Committee minutes', 'Project update']

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const pick = <T>(next: () => number, items: readonly T[]) => items[Math.floor(next() * items.length)]!

/**
 * One distractor document in Markdown: a title, sections and paragraphs of generated sentences.
 * @param index - the document's number (its seed)
 * @param sections - sections of about 700 characters each, so roughly one chunk per section
 */
export function distractorDocument(index: number, sections = 50): { name: string; text: string } {
  const next = random(index + 1)
  const kind = pick(next, KINDS)
  const lines = [`# ${kind} ${index + 1}`, '']
  for (let s = 0; s < sections; s++) {
    lines.push(`## Item ${s + 1}`, '')
    const sentences: string[] = []
    while (sentences.join(' ').length < 600) {
      sentences.push(`${pick(next, SUBJECTS)} ${pick(next, VERBS)} ${pick(next, OBJECTS)} ${pick(next, TAILS)}.`)
    }
    lines.push(sentences.join(' '), '')
  }
  return { name: `${kind.toLowerCase().replace(/\s+/g, '-')}-${index + 1}.md`, text: lines.join('\n') }
}
